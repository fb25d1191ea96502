//! railx-core: the RailX plant, Hamiltonian decompositions of K*_s, OCS configuration synthesis
//! and verification, the realized chip-level network and its metrics. Pure Rust; the Python
//! binding lives in the `railx-py` crate and only converts arguments and results.

pub mod closed_form;
pub mod error;
pub mod hamiltonian;
pub mod metrics;
pub mod network;
pub mod ocs;
pub mod plan;
pub mod plant;
pub mod spec;
pub mod topology;
pub mod verify;

pub use error::{RailxError, Result};

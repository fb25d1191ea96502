//! railx-core: the RailX plant, Hamiltonian decompositions of K*_s, OCS configuration synthesis
//! and verification, the realized chip-level network and its metrics, the peer topologies it is
//! compared with, and bills of materials. Pure Rust; the Python binding lives in the `railx-py`
//! crate and only converts arguments and results.

pub mod bom;
pub mod closed_form;
pub mod collectives;
pub mod error;
pub mod hamiltonian;
pub mod metrics;
pub mod network;
pub mod ocs;
pub mod peers;
pub mod plan;
pub mod plant;
pub mod progress;
pub mod resources;
pub mod routing;
pub mod sim;
pub mod spec;
pub mod system;
pub mod topology;
pub mod verify;

pub use error::{RailxError, Result};

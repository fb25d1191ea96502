//! Traffic invariant under the node translations, built directly in representative form: the
//! messages whose source is a chip of node 0, one per orbit.
//!
//! - `all_to_all`: every chip sends `bytes_per_pair` to every other chip.
//!
//! Collective schedules give their own representative form (`collectives::symmetric`).

use super::symmetry::{SymmetricDag, Translations};
use crate::error::{RailxError, Result};
use crate::plant::Plant;
use crate::sim::dag::MessageDag;

fn positive_bytes(field: &str, bytes: u64) -> Result<()> {
    if bytes == 0 {
        return Err(RailxError::invalid(
            field,
            bytes,
            "must be at least one byte",
            "e.g. 1048576 for 1 MiB",
        ));
    }
    Ok(())
}

/// Uniform all-to-all: every chip sends `bytes_per_pair` to every other chip.
pub fn all_to_all(plant: &Plant, bytes_per_pair: u64) -> Result<SymmetricDag> {
    positive_bytes("bytes_per_pair", bytes_per_pair)?;
    let mut dag = MessageDag::new();
    for src in 0..plant.chips_per_node() {
        for dst in (0..plant.chips()).filter(|&d| d != src) {
            dag.push(src, dst, bytes_per_pair, 0.0, &[])?;
        }
    }
    Ok(SymmetricDag::new(dag, Translations::whole(plant)))
}

//! Simulation (docs/simulation.md, docs/flow.md): the workload form both simulators execute
//! (`dag`), the cycle-based flit-level simulator (`flit`), the flow-level simulator (`flow`), and
//! collectives on the flit level (`flit_collective`).

pub mod dag;
pub mod flit;
pub mod flit_collective;
pub mod flow;

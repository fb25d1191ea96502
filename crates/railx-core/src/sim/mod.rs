//! Simulation (DESIGN.md §6): the workload form both simulators execute (`dag`), the cycle-based
//! flit-level simulator (`flit`) and the flow-level simulator (`flow`).

pub mod dag;
pub mod flit;
pub mod flow;

//! Simulation (DESIGN.md §6): the workload form both simulators execute (`dag`), the cycle-based
//! flit-level simulator and the flow-level simulator (`flow`).

pub mod dag;
pub mod flow;

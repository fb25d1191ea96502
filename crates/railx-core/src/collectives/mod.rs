//! Collective schedules (docs/collectives.md): explicit, pipelined schedules of all-reduce,
//! reduce-scatter, all-gather and all-to-all over a process group mapped onto chips, checked as
//! data movement (`check`) and lowered to the message DAG both simulators execute.
//!
//! One file per algorithm family; each is a [`plan::Plan`] (lines and their order per data
//! part) that `build` expands with the ring and direct primitives:
//! `ring` / `bidir-ring` (ring.rs), `2d-ring` (torus2d.rs), `hierarchical` (hierarchical.rs),
//! `direct` (direct.rs), `multi-rail` (multi_rail.rs), `two-step` (two_step.rs). symmetric.rs gives the representative form the aggregated flow
//! simulation runs at hyper-scale. `sipco` / `flex-sipco` (sipco.rs) are not plans of lines:
//! they schedule by a SiPAC system's CU addresses and multicast on its WSS.

pub mod build;
pub mod check;
mod direct;
pub mod group;
mod hierarchical;
pub mod links;
mod multi_rail;
pub mod plan;
mod ring;
pub mod schedule;
pub mod sipco;
pub mod symmetric;
mod torus2d;
mod two_step;

pub use build::Counts;
pub use group::{DimKind, Group, GroupDim};
pub use schedule::Schedule;

use crate::error::{RailxError, Result};
use plan::Plan;

/// The collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    AllReduce,
    ReduceScatter,
    AllGather,
    AllToAll,
}

impl Op {
    pub const ALL: [Op; 4] = [
        Op::AllReduce,
        Op::ReduceScatter,
        Op::AllGather,
        Op::AllToAll,
    ];

    /// The canonical, hyphenated name (the spelling of the workload patterns and topology kinds).
    pub fn name(self) -> &'static str {
        match self {
            Op::AllReduce => "all-reduce",
            Op::ReduceScatter => "reduce-scatter",
            Op::AllGather => "all-gather",
            Op::AllToAll => "all-to-all",
        }
    }

    /// The unhyphenated spelling of earlier releases, still accepted on input.
    fn legacy_name(self) -> &'static str {
        match self {
            Op::AllReduce => "allreduce",
            Op::ReduceScatter => "reducescatter",
            Op::AllGather => "allgather",
            Op::AllToAll => "alltoall",
        }
    }

    /// The operation of a canonical or legacy name.
    pub fn parse(name: &str) -> Result<Op> {
        Op::ALL
            .into_iter()
            .find(|o| o.name() == name || o.legacy_name() == name)
            .ok_or_else(|| {
                RailxError::invalid(
                    "op",
                    name,
                    "not a collective operation",
                    "use all-reduce, reduce-scatter, all-gather or all-to-all",
                )
            })
    }
}

/// The algorithm family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algo {
    Ring,
    BidirRing,
    TwoDRing,
    Hierarchical,
    Direct,
    MultiRail,
    TwoStep,
    /// SiPCO all-reduce over every CU of a SiPAC system (paper 003).
    Sipco,
    /// Flex-SiPCO: SiPCO for a job's CUs, aware of where they sit (paper 003, Algorithm 1).
    FlexSipco,
}

impl Algo {
    pub const ALL: [Algo; 9] = [
        Algo::Ring,
        Algo::BidirRing,
        Algo::TwoDRing,
        Algo::Hierarchical,
        Algo::Direct,
        Algo::MultiRail,
        Algo::TwoStep,
        Algo::Sipco,
        Algo::FlexSipco,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Algo::Ring => "ring",
            Algo::BidirRing => "bidir-ring",
            Algo::TwoDRing => "2d-ring",
            Algo::Hierarchical => "hierarchical",
            Algo::Direct => "direct",
            Algo::MultiRail => "multi-rail",
            Algo::TwoStep => "two-step",
            Algo::Sipco => "sipco",
            Algo::FlexSipco => "flex-sipco",
        }
    }

    pub fn parse(name: &str) -> Result<Algo> {
        Algo::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                RailxError::invalid(
                    "algo",
                    name,
                    "not a collective algorithm",
                    "use ring, bidir-ring, 2d-ring, hierarchical, direct, multi-rail, two-step, sipco or flex-sipco",
                )
            })
    }
}

/// The plan of `algo` for `op` on `group`, or a one-line error when it does not apply.
pub fn plan_for(op: Op, algo: Algo, group: &Group) -> Result<Plan> {
    let reduction_only = |a: Algo| {
        plan::not_applicable(
            a,
            format!("{} is a reduction algorithm", a.name()),
            "use direct, two-step or multi-rail for an all-to-all",
        )
    };
    match algo {
        Algo::Ring | Algo::BidirRing if op == Op::AllToAll => Err(reduction_only(algo)),
        Algo::Ring => Ok(ring::plan(group, false)),
        Algo::BidirRing => Ok(ring::plan(group, true)),
        Algo::TwoDRing => torus2d::plan(op, group),
        Algo::Hierarchical => hierarchical::plan(op, group),
        Algo::Direct => direct::plan(op, group),
        Algo::MultiRail => Ok(multi_rail::plan(op, group)),
        Algo::TwoStep => two_step::plan(op, group),
        Algo::Sipco | Algo::FlexSipco => Err(plan::not_applicable(
            algo,
            "schedules by SiPAC CU addresses, not by lines of group dimensions",
            "build it with collectives::build (no per-line model applies)",
        )),
    }
}

pub(crate) fn check_size(size_bytes: u64, chunks: u32) -> Result<()> {
    if size_bytes == 0 {
        return Err(RailxError::invalid(
            "size_bytes",
            0,
            "a collective moves at least one byte",
            "e.g. size = 1048576",
        ));
    }
    if chunks == 0 {
        return Err(RailxError::invalid(
            "chunks",
            0,
            "a schedule has at least one chunk",
            "use chunks = 1 for no pipelining",
        ));
    }
    Ok(())
}

/// The explicit schedule of `op` by `algo` over `group`: `size_bytes` is the vector each rank
/// holds (all-reduce, reduce-scatter input, all-gather output) or sends in total (all-to-all);
/// the data is cut into `chunks` pipelined chunks.
pub fn build(op: Op, algo: Algo, group: &Group, size_bytes: u64, chunks: u32) -> Result<Schedule> {
    check_size(size_bytes, chunks)?;
    if matches!(algo, Algo::Sipco | Algo::FlexSipco) {
        return sipco::build(op, algo, group, size_bytes, chunks);
    }
    let plan = plan_for(op, algo, group)?;
    Ok(build::expand(
        op,
        algo,
        &plan,
        group,
        (size_bytes, chunks),
        build::Senders::All,
    ))
}

/// Messages and bytes of the schedule `build` would produce, without producing it.
pub fn counts(op: Op, algo: Algo, group: &Group, size_bytes: u64, chunks: u32) -> Result<Counts> {
    check_size(size_bytes, chunks)?;
    if matches!(algo, Algo::Sipco | Algo::FlexSipco) {
        return sipco::counts(op, algo, group, size_bytes, chunks);
    }
    let plan = plan_for(op, algo, group)?;
    Ok(build::counts(op, &plan, group, size_bytes, chunks))
}

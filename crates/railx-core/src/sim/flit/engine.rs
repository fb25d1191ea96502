//! The cycle loop. Routers are split into contiguous partitions, one per thread. Each cycle has
//! two phases: (1) every partition steps its routers, which read only their own state and send
//! events (packets downstream, credits upstream, DAG notices): to the partition's own routers
//! straight onto its timing wheel, to other partitions' into its outbox; (2) the outboxes are
//! delivered into the receivers' wheels. Every event lands at least one cycle later, so phase 1
//! needs no locks; and what a router does depends only on its own state and on the events it
//! receives — which touch distinct queues or add up, whatever order they wait in — so the run
//! is bit-identical for any number of threads.

use super::config::FlitConfig;
use super::fabric::Fabric;
use super::rng::Stream;
use super::router::{Event, Router, Scratch};
use super::stats::Counters;
use super::traffic::Destinations;
use super::wheel::Wheel;
use crate::error::{RailxError, Result};
use crate::progress::Meter;
use crate::routing::{Routing, Selection};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// An event for router `router` at cycle `time`.
pub(crate) struct Outgoing {
    pub router: u32,
    pub time: u64,
    pub event: Event,
}

/// Where a partition's routers send events: to its own routers straight onto its wheel, to
/// others' through its outbox (delivered between cycles). Events for one router at one cycle
/// from different routers commute (they touch different queues or add up), and those from one
/// router keep their order either way, so where an event waits does not change the run.
pub(crate) struct Post<'a> {
    wheel: &'a mut Wheel,
    outbox: &'a mut Vec<Outgoing>,
    /// The partition's routers: vertex ids `first..end`.
    first: u32,
    end: u32,
}

impl Post<'_> {
    #[inline(always)]
    pub fn send(&mut self, o: Outgoing) {
        if (self.first..self.end).contains(&o.router) {
            self.wheel.push(o.router, o.time, o.event);
        } else {
            self.outbox.push(o);
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Workload {
    /// Packets per cycle per chip: `whole_packets` plus one with probability `extra_packet`.
    Rate {
        whole_packets: u32,
        extra_packet: f64,
    },
    Finite {
        flits_per_pair: u32,
    },
    Dag,
}

/// A message DAG as the routers use it. Each counter is touched by one router only (a message's
/// source decrements its pending dependencies, its destination counts its flits in), so relaxed
/// atomics merely make the sharing legal.
pub(crate) struct DagState {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub flits: Vec<u64>,
    pub delay_cycles: Vec<u64>,
    pub dependants_start: Vec<u64>,
    pub dependants: Vec<u32>,
    pub pending: Vec<AtomicU32>,
    pub undelivered: Vec<AtomicU64>,
    pub done_cycle: Vec<AtomicU64>,
}

/// What every router reads.
pub(crate) struct Shared<'a> {
    pub fabric: &'a Fabric,
    pub routing: &'a dyn Routing,
    pub config: &'a FlitConfig,
    pub selection: Selection,
    /// Physical VCs per port: the routing function's VCs (classes) times `vcs_per_class`.
    pub vcs: u32,
    pub vcs_per_class: u32,
    pub link_src: &'a [u32],
    pub link_dst: &'a [u32],
    pub destinations: Option<Destinations>,
    pub workload: Workload,
    pub dag: Option<DagState>,
    /// Slots of the timing wheels (a power of two).
    pub wheel_slots: usize,
    pub measure_from: u64,
    pub measure_to: u64,
}

impl Shared<'_> {
    pub fn measuring(&self, cycle: u64) -> bool {
        (self.measure_from..self.measure_to).contains(&cycle)
    }
}

pub(crate) struct Partition {
    pub first: u32,
    pub routers: Vec<Router>,
    /// Events due at this partition's routers.
    wheel: Wheel,
    outbox: Vec<Outgoing>,
    pub counters: Counters,
    scratch: Scratch,
    moved: bool,
    error: Option<RailxError>,
}

impl Partition {
    /// Flits on this partition's wheel (on links, or ejecting).
    pub fn wheel_flits(&self) -> u64 {
        self.wheel.flits()
    }

    fn step(&mut self, cycle: u64, sh: &Shared) {
        self.moved = false;
        // Every event lands at least a cycle later, so none joins the slot taken out here.
        let events = self.wheel.take(cycle);
        let mut post = Post {
            wheel: &mut self.wheel,
            outbox: &mut self.outbox,
            first: self.first,
            end: self.first + self.routers.len() as u32,
        };
        for (router, event) in &events {
            let router = &mut self.routers[(router - self.first) as usize];
            if let Err(e) = router.apply(event, cycle, sh, &mut post, &mut self.counters) {
                self.error.get_or_insert(e);
            }
        }
        post.wheel.recycle(events);
        for router in &mut self.routers {
            match router.step(cycle, sh, &mut post, &mut self.counters, &mut self.scratch) {
                Ok(moved) => self.moved |= moved,
                Err(e) => {
                    self.error.get_or_insert(e);
                }
            }
        }
    }
}

/// Tag of the routers' random streams.
const ROUTER_TAG: u64 = 1;

/// Builds the routers, split into `threads` contiguous partitions.
pub(crate) fn partitions(sh: &Shared, threads: usize) -> (Vec<Partition>, u32) {
    let vertices = sh.fabric.vertices;
    let chunk = vertices.div_ceil(threads as u32).max(1);
    let wheel = sh.wheel_slots;
    let parts = (0..vertices.div_ceil(chunk))
        .map(|p| {
            let first = p * chunk;
            let routers = (first..(first + chunk).min(vertices))
                .map(|v| {
                    let endpoint = sh
                        .destinations
                        .as_ref()
                        .map_or(u32::MAX, |d| d.index_of[v as usize]);
                    let rng = Stream::new(sh.config.seed, ROUTER_TAG, v as u64);
                    Router::new(v, endpoint, sh, rng)
                })
                .collect();
            Partition {
                first,
                routers,
                wheel: Wheel::new(wheel),
                outbox: Vec::new(),
                counters: Counters::default(),
                scratch: Scratch::default(),
                moved: false,
                error: None,
            }
        })
        .collect();
    (parts, chunk)
}

/// Totals the cycle loop watches.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Progress {
    pub injected: u64,
    pub ejected: u64,
    pub messages_done: u64,
}

/// How a run ended.
pub(crate) enum Ending {
    /// Ran all its cycles, or a finite workload completed.
    Done,
    /// A finite workload reached `max_cycles`.
    OutOfCycles,
    /// Nothing moved for `watchdog_cycles` with flits in the network.
    Stalled { stalled: u64 },
}

/// Cycles between two reports to the progress meter (a cycle of a large network takes about a
/// millisecond, so a Ctrl-C is seen within a tenth of a second).
pub(crate) const CYCLES_PER_REPORT: u64 = 64;

/// Runs cycles `0..cycles` (or until `finished` says so), stepping `meter` every cycle with
/// `done(totals, cycles run)`; returns the cycles run and the ending.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    parts: &mut [Partition],
    chunk: u32,
    sh: &Shared,
    cycles: u64,
    finished: impl Fn(&Progress) -> bool + Sync,
    done: impl Fn(&Progress, u64) -> u64 + Sync,
    meter: &mut Meter,
    pool: Option<&rayon::ThreadPool>,
) -> Result<(u64, Ending)> {
    let mut outboxes: Vec<Vec<Outgoing>> = Vec::new();
    let mut body =
        |parts: &mut [Partition], outboxes: &mut Vec<Vec<Outgoing>>| -> Result<(u64, Ending)> {
            let mut stalled = 0u64;
            for cycle in 0..cycles {
                if pool.is_some() {
                    parts.par_iter_mut().for_each(|p| p.step(cycle, sh));
                } else {
                    parts.iter_mut().for_each(|p| p.step(cycle, sh));
                }
                if let Some(e) = parts.iter_mut().find_map(|p| p.error.take()) {
                    return Err(e);
                }
                deliver(parts, chunk, outboxes);
                let mut total = Progress::default();
                let mut moved = false;
                for p in parts.iter() {
                    total.injected += p.counters.injected;
                    total.ejected += p.counters.ejected;
                    total.messages_done += p.counters.messages_done;
                    moved |= p.moved;
                }
                if finished(&total) {
                    return Ok((cycle + 1, Ending::Done));
                }
                meter.step(|| done(&total, cycle + 1))?;
                stalled = if moved || total.injected == total.ejected {
                    0
                } else {
                    stalled + 1
                };
                if stalled >= sh.config.watchdog_cycles {
                    return Ok((cycle + 1, Ending::Stalled { stalled }));
                }
            }
            Ok((cycles, Ending::OutOfCycles))
        };
    match pool {
        Some(pool) => pool.install(|| body(parts, &mut outboxes)),
        None => body(parts, &mut outboxes),
    }
}

/// Phase 2: every outbox into the receivers' wheels, partitions in order, events in the order
/// they were sent.
fn deliver(parts: &mut [Partition], chunk: u32, outboxes: &mut Vec<Vec<Outgoing>>) {
    outboxes.clear();
    outboxes.extend(parts.iter_mut().map(|p| std::mem::take(&mut p.outbox)));
    for outbox in outboxes.iter_mut() {
        for o in outbox.drain(..) {
            let p = &mut parts[(o.router / chunk) as usize];
            p.wheel.push(o.router, o.time, o.event);
        }
    }
    for (p, outbox) in parts.iter_mut().zip(outboxes.drain(..)) {
        p.outbox = outbox;
    }
}

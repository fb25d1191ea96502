//! The event-driven execution of a message DAG over flows.
//!
//! A message becomes a flow when its dependencies have all arrived plus its `delay_s`. While
//! active it streams its bytes at its max-min fair rate; rates are recomputed whenever flows
//! start or finish (never in between, so each interval between events has constant rates). A
//! message arrives `latency_s` (the sum of its path's link latencies) after its last byte was
//! sent: an isolated message takes exactly `latency_s + bytes / bandwidth`, the alpha-beta form
//! the analytic collective models use, and contention stretches only the bandwidth term. A
//! multicast message is one flow over its route tree (`paths`): it is delivered to every
//! destination when its last byte has left, and its dependants start after the tree's latency
//! (its farthest destination's; on one WSS every destination is equally far).
//!
//! Simultaneous events are batched: every flow finishing, and every message starting, within a
//! relative `TIME_TOLERANCE` of the next event time is handled at that time, so rounding does
//! not split one logical instant into many.

use super::fairness::WaterFill;
use super::paths::PathSet;
use super::timeline::{Recorder, Timeline};
use crate::error::Result;
use crate::progress::{Meter, Observer, Unit};
use crate::sim::dag::MessageDag;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Relative width of one instant when batching events.
pub const TIME_TOLERANCE: f64 = 1e-12;

/// What a run yields.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRun {
    /// When the last message arrived.
    pub completion_s: f64,
    /// When each message was injected and when it arrived, indexed like the DAG.
    pub start_s: Vec<f64>,
    pub arrival_s: Vec<f64>,
    /// Rate recomputations (instants at which flows started or finished).
    pub events: u64,
    /// Utilisation of each resource over time (when bins were asked for).
    pub timeline: Option<Timeline>,
}

/// A start time in the heap (earliest first; ties by message id, for determinism).
struct StartAt(f64, u32);
impl PartialEq for StartAt {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for StartAt {}
impl PartialOrd for StartAt {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for StartAt {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// Events between two reports to the progress observer (an event re-solves the max-min rates
/// of every active flow: microseconds to milliseconds).
const EVENTS_PER_REPORT: u64 = 16;

/// Runs `dag`, message i on path `path_of[i]` of `paths`, over resources of the given
/// capacities; with `bins > 0` records the utilisation timeline. Tells `observer` the messages
/// arrived (`crate::progress`).
#[allow(non_snake_case)]
pub fn run(
    dag: &MessageDag,
    path_of: &[u32],
    paths: &PathSet,
    capacity_Bps: &[f64],
    bins: u32,
    observer: &mut dyn Observer,
) -> Result<FlowRun> {
    let n = dag.len() as usize;
    let mut meter = Meter::new(
        observer,
        "flow-level run",
        Unit::Messages,
        Some(n as u64),
        EVENTS_PER_REPORT,
    );
    let mut arrived = 0u64;
    let (dep_start, dependants) = dag.dependants();
    let mut waiting: Vec<u32> = (0..n as u32).map(|i| dag.after(i).len() as u32).collect();
    let mut ready_s = vec![0.0f64; n];
    let mut start_s = vec![f64::NAN; n];
    let mut arrival_s = vec![f64::NAN; n];
    let mut starts: BinaryHeap<Reverse<StartAt>> = (0..n as u32)
        .filter(|&i| waiting[i as usize] == 0)
        .map(|i| Reverse(StartAt(dag.delay_s(i), i)))
        .collect();
    // Active flows: message id, its path, bytes left; rates[k] belongs to active[k].
    let mut active: Vec<u32> = Vec::new();
    let mut active_paths: Vec<u32> = Vec::new();
    let mut left: Vec<f64> = Vec::new();
    let mut rates: Vec<f64> = Vec::new();
    let mut fill = WaterFill::default();
    let mut recorder = (bins > 0).then(|| Recorder::new(capacity_Bps));
    let (mut touched, mut scratch) = (Vec::new(), Vec::new());
    let mut now = 0.0f64;
    let mut events = 0u64;
    let mut completion_s = 0.0f64;
    loop {
        let next_start = starts.peek().map_or(f64::INFINITY, |s| s.0 .0);
        let next_finish = (0..active.len())
            .map(|k| now + left[k] / rates[k])
            .fold(f64::INFINITY, f64::min);
        let t = next_start.min(next_finish);
        if t == f64::INFINITY {
            break;
        }
        let horizon = t + TIME_TOLERANCE * t.abs();
        // Retire the flows finishing now.
        let mut k = 0;
        while k < active.len() {
            if now + left[k] / rates[k] <= horizon {
                let msg = active[k];
                let arrival = t + paths.latency_s(active_paths[k]);
                arrival_s[msg as usize] = arrival;
                arrived += 1;
                completion_s = completion_s.max(arrival);
                for &d in &dependants
                    [dep_start[msg as usize] as usize..dep_start[msg as usize + 1] as usize]
                {
                    let d = d as usize;
                    ready_s[d] = ready_s[d].max(arrival);
                    waiting[d] -= 1;
                    if waiting[d] == 0 {
                        starts.push(Reverse(StartAt(
                            ready_s[d] + dag.delay_s(d as u32),
                            d as u32,
                        )));
                    }
                }
                active.swap_remove(k);
                active_paths.swap_remove(k);
                left.swap_remove(k);
                rates.swap_remove(k);
            } else {
                left[k] -= rates[k] * (t - now);
                k += 1;
            }
        }
        now = t;
        // Inject the messages starting now.
        while let Some(Reverse(StartAt(at, msg))) = starts.peek() {
            if *at > horizon {
                break;
            }
            let msg = *msg;
            starts.pop();
            start_s[msg as usize] = now;
            active.push(msg);
            active_paths.push(path_of[msg as usize]);
            left.push(dag.bytes(msg) as f64);
        }
        events += 1;
        meter.step(|| arrived)?;
        fill.allocate(capacity_Bps, paths, &active_paths, &mut rates);
        if let Some(rec) = recorder.as_mut() {
            touched.clear();
            touched.extend(fill.loads(capacity_Bps));
            rec.set(now, &touched, &mut scratch);
        }
    }
    let timeline = recorder.map(|rec| rec.finish(completion_s, bins));
    Ok(FlowRun {
        completion_s,
        start_s,
        arrival_s,
        events,
        timeline,
    })
}

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
//!
//! The messages come from a [`Workload`]: a stored DAG, or one generated step by step as its
//! messages become ready (`ring`), so that only the live window is ever held. At every event
//! the rates are re-solved ([`Resolve`]) for every active flow, or only for the flows connected
//! (through shared resources, transitively) to those that started, finished or moved: max-min
//! fairness decomposes over the connected components of the flow/resource graph, and the
//! water-filling of a union of components in the same relative flow order is bit for bit the
//! global one (`fairness`), so both give the same rates, times and utilisation.

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

/// The messages of a run, revealed to the engine as they become ready.
pub trait Workload {
    /// Messages in the run (ids `0..messages()`).
    fn messages(&self) -> u64;
    /// Appends (injection time, id) of every message that waits for nothing.
    fn roots(&mut self, ready: &mut Vec<(f64, u64)>);
    /// Message `id` has arrived at `arrival_s`: appends (injection time, id) of the messages
    /// whose last dependency it was.
    fn arrived(&mut self, id: u64, arrival_s: f64, ready: &mut Vec<(f64, u64)>);
    fn bytes(&self, id: u64) -> u64;
    /// The index of the message's path in the run's `PathSet`.
    fn path(&self, id: u64) -> u32;
}

/// A stored DAG with each message's path: every message is held from the start.
pub struct Stored<'a> {
    dag: &'a MessageDag,
    path_of: &'a [u32],
    dep_start: Vec<u64>,
    dependants: Vec<u32>,
    waiting: Vec<u32>,
    ready_s: Vec<f64>,
}

impl<'a> Stored<'a> {
    /// `dag`, message i on path `path_of[i]`.
    pub fn new(dag: &'a MessageDag, path_of: &'a [u32]) -> Stored<'a> {
        let (dep_start, dependants) = dag.dependants();
        Stored {
            dag,
            path_of,
            dep_start,
            dependants,
            waiting: (0..dag.len()).map(|i| dag.after(i).len() as u32).collect(),
            ready_s: vec![0.0; dag.len() as usize],
        }
    }
}

impl Workload for Stored<'_> {
    fn messages(&self) -> u64 {
        self.dag.len() as u64
    }

    fn roots(&mut self, ready: &mut Vec<(f64, u64)>) {
        for i in 0..self.dag.len() {
            if self.waiting[i as usize] == 0 {
                ready.push((self.dag.delay_s(i), i as u64));
            }
        }
    }

    fn arrived(&mut self, id: u64, arrival_s: f64, ready: &mut Vec<(f64, u64)>) {
        let (a, b) = (
            self.dep_start[id as usize] as usize,
            self.dep_start[id as usize + 1] as usize,
        );
        for &d in &self.dependants[a..b] {
            let i = d as usize;
            self.ready_s[i] = self.ready_s[i].max(arrival_s);
            self.waiting[i] -= 1;
            if self.waiting[i] == 0 {
                ready.push((self.ready_s[i] + self.dag.delay_s(d), d as u64));
            }
        }
    }

    fn bytes(&self, id: u64) -> u64 {
        self.dag.bytes(id as u32)
    }

    fn path(&self, id: u64) -> u32 {
        self.path_of[id as usize]
    }
}

/// Which flows an event re-solves (module docs; both give bit-identical results).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolve {
    /// Every active flow: cheapest when most flows share links (an all-to-all).
    Every,
    /// The flows connected to those that started, finished or moved in the active list: an
    /// event costs what it touches where contention is local (a ring).
    Connected,
}

/// What a run yields.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRun {
    /// When the last message arrived.
    pub completion_s: f64,
    /// When each message was injected and when it arrived, indexed like the workload (empty
    /// when the times were not kept).
    pub start_s: Vec<f64>,
    pub arrival_s: Vec<f64>,
    /// Rate recomputations (instants at which flows started or finished).
    pub events: u64,
    /// Most flows active at once.
    pub peak_active: u64,
    /// Utilisation of each resource over time (when bins were asked for).
    pub timeline: Option<Timeline>,
}

/// A start time in the heap (earliest first; ties by message id, for determinism).
struct StartAt(f64, u64);
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

/// The active flows, in the order the re-solve sees them (a finished flow's place goes to the
/// last one), and with `Resolve::Connected` each resource's users by place.
struct Active {
    id: Vec<u64>,
    path: Vec<u32>,
    left: Vec<f64>,
    rate: Vec<f64>,
    /// Per resource, the places of the flows crossing it (Connected only).
    users: Option<Vec<Vec<u32>>>,
    /// Resources whose users changed or were reordered since the last re-solve, each once.
    seeds: Vec<u32>,
    is_seed: Vec<bool>,
}

impl Active {
    fn new(resources: usize, resolve: Resolve) -> Active {
        Active {
            id: Vec::new(),
            path: Vec::new(),
            left: Vec::new(),
            rate: Vec::new(),
            users: (resolve == Resolve::Connected).then(|| vec![Vec::new(); resources]),
            seeds: Vec::new(),
            is_seed: vec![false; resources],
        }
    }

    fn len(&self) -> usize {
        self.id.len()
    }

    fn seed(&mut self, paths: &PathSet, path: u32) {
        for &r in paths.path(path).0 {
            if !self.is_seed[r as usize] {
                self.is_seed[r as usize] = true;
                self.seeds.push(r);
            }
        }
    }

    fn push(&mut self, paths: &PathSet, id: u64, path: u32, bytes: f64) {
        let place = self.len() as u32;
        self.id.push(id);
        self.path.push(path);
        self.left.push(bytes);
        self.rate.push(0.0);
        if let Some(users) = self.users.as_mut() {
            for &r in paths.path(path).0 {
                users[r as usize].push(place);
            }
            self.seed(paths, path);
        }
    }

    /// Removes the flow at `place`; the last flow takes its place.
    fn remove(&mut self, paths: &PathSet, place: usize) {
        let last = self.len() - 1;
        if let Some(users) = self.users.as_mut() {
            for &r in paths.path(self.path[place]).0 {
                let list = &mut users[r as usize];
                let at = list.iter().position(|&k| k as usize == place);
                list.swap_remove(at.expect("a flow is among its resources' users"));
            }
            self.seed(paths, self.path[place]);
            if place != last {
                let users = self.users.as_mut().expect("users kept");
                for &r in paths.path(self.path[last]).0 {
                    let list = &mut users[r as usize];
                    let at = list.iter().position(|&k| k as usize == last);
                    list[at.expect("a flow is among its resources' users")] = place as u32;
                }
                // Its order relative to the flows it shares resources with may have changed.
                self.seed(paths, self.path[last]);
            }
        }
        self.id.swap_remove(place);
        self.path.swap_remove(place);
        self.left.swap_remove(place);
        self.rate.swap_remove(place);
    }
}

/// The flows to re-solve under `Resolve::Connected`: those reachable from the seed resources
/// through shared resources, in place order, and the resources visited.
#[derive(Default)]
struct Closure {
    flows: Vec<u32>,
    resources: Vec<u32>,
    flow_seen: Vec<bool>,
    resource_seen: Vec<bool>,
    paths: Vec<u32>,
    rates: Vec<f64>,
}

impl Closure {
    fn gather(&mut self, active: &mut Active, paths: &PathSet) {
        let users = active.users.as_ref().expect("users kept");
        self.flow_seen.resize(active.len(), false);
        self.resource_seen.resize(users.len(), false);
        self.flows.clear();
        self.resources.clear();
        for &r in &active.seeds {
            active.is_seed[r as usize] = false;
            self.resource_seen[r as usize] = true;
            self.resources.push(r);
        }
        active.seeds.clear();
        let mut next = 0;
        while next < self.resources.len() {
            let r = self.resources[next] as usize;
            next += 1;
            for &k in &users[r] {
                if self.flow_seen[k as usize] {
                    continue;
                }
                self.flow_seen[k as usize] = true;
                self.flows.push(k);
                for &r2 in paths.path(active.path[k as usize]).0 {
                    if !self.resource_seen[r2 as usize] {
                        self.resource_seen[r2 as usize] = true;
                        self.resources.push(r2);
                    }
                }
            }
        }
        for &k in &self.flows {
            self.flow_seen[k as usize] = false;
        }
        for &r in &self.resources {
            self.resource_seen[r as usize] = false;
        }
        self.flows.sort_unstable();
    }
}

/// Runs `work` over resources of the given capacities, its messages on paths of `paths`,
/// re-solving the rates as `resolve` says; with `bins > 0` records the utilisation timeline and
/// with `keep_times` every message's injection and arrival. Tells `observer` the messages
/// arrived (`crate::progress`).
#[allow(non_snake_case, clippy::too_many_arguments)]
pub fn run(
    work: &mut dyn Workload,
    paths: &PathSet,
    capacity_Bps: &[f64],
    resolve: Resolve,
    keep_times: bool,
    bins: u32,
    observer: &mut dyn Observer,
) -> Result<FlowRun> {
    let n = work.messages();
    let mut meter = Meter::new(
        observer,
        "flow-level run",
        Unit::Messages,
        Some(n),
        EVENTS_PER_REPORT,
    );
    let mut arrived = 0u64;
    let kept = if keep_times { n as usize } else { 0 };
    let mut start_s = vec![f64::NAN; kept];
    let mut arrival_s = vec![f64::NAN; kept];
    let mut ready = Vec::new();
    work.roots(&mut ready);
    let mut starts: BinaryHeap<Reverse<StartAt>> = ready
        .drain(..)
        .map(|(at, id)| Reverse(StartAt(at, id)))
        .collect();
    let mut active = Active::new(capacity_Bps.len(), resolve);
    let mut closure = Closure::default();
    let mut fill = WaterFill::default();
    let mut recorder = (bins > 0).then(|| Recorder::new(capacity_Bps));
    let (mut touched, mut scratch) = (Vec::new(), Vec::new());
    let mut finish: Vec<f64> = Vec::new();
    let mut now = 0.0f64;
    let mut events = 0u64;
    let mut peak_active = 0u64;
    let mut completion_s = 0.0f64;
    loop {
        let next_start = starts.peek().map_or(f64::INFINITY, |s| s.0 .0);
        // Every flow's finish at its current rate, once per event (the retiring below reads it).
        finish.clear();
        finish.extend((0..active.len()).map(|k| now + active.left[k] / active.rate[k]));
        let next_finish = finish.iter().copied().fold(f64::INFINITY, f64::min);
        let t = next_start.min(next_finish);
        if t == f64::INFINITY {
            break;
        }
        let horizon = t + TIME_TOLERANCE * t.abs();
        // Retire the flows finishing now.
        let mut k = 0;
        while k < active.len() {
            if finish[k] <= horizon {
                let msg = active.id[k];
                let arrival = t + paths.latency_s(active.path[k]);
                if keep_times {
                    arrival_s[msg as usize] = arrival;
                }
                arrived += 1;
                completion_s = completion_s.max(arrival);
                work.arrived(msg, arrival, &mut ready);
                starts.extend(ready.drain(..).map(|(at, id)| Reverse(StartAt(at, id))));
                active.remove(paths, k);
                finish.swap_remove(k);
            } else {
                active.left[k] -= active.rate[k] * (t - now);
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
            if keep_times {
                start_s[msg as usize] = now;
            }
            active.push(paths, msg, work.path(msg), work.bytes(msg) as f64);
        }
        peak_active = peak_active.max(active.len() as u64);
        events += 1;
        meter.step(|| arrived)?;
        match resolve {
            Resolve::Every => {
                fill.allocate(capacity_Bps, paths, &active.path, &mut active.rate);
                if let Some(rec) = recorder.as_mut() {
                    touched.clear();
                    touched.extend(fill.loads(capacity_Bps));
                    rec.set(now, &touched, &mut scratch);
                }
            }
            Resolve::Connected => {
                closure.gather(&mut active, paths);
                let c = &mut closure;
                c.paths.clear();
                c.paths
                    .extend(c.flows.iter().map(|&k| active.path[k as usize]));
                fill.allocate(capacity_Bps, paths, &c.paths, &mut c.rates);
                for (&k, &rate) in c.flows.iter().zip(&c.rates) {
                    active.rate[k as usize] = rate;
                }
                if let Some(rec) = recorder.as_mut() {
                    // The visited resources no flow crosses any more are idle now.
                    let users = active.users.as_ref().expect("users kept");
                    touched.clear();
                    touched.extend(fill.loads(capacity_Bps));
                    touched.extend(
                        c.resources
                            .iter()
                            .filter(|&&r| users[r as usize].is_empty())
                            .map(|&r| (r, 0.0)),
                    );
                    rec.update(now, &touched);
                }
            }
        }
    }
    let timeline = recorder.map(|rec| rec.finish(completion_s, bins));
    Ok(FlowRun {
        completion_s,
        start_s,
        arrival_s,
        events,
        peak_active,
        timeline,
    })
}

//! Measurements: per-thread counters merged by addition (so the totals do not depend on the
//! number of threads), a latency histogram, and the report of a run.

use super::engine::{Outgoing, Post, Shared};
use super::router::{Event, Packet, NO_MSG};
use crate::routing::deadlock::ChannelRef;
use serde::Serialize;
use std::sync::atomic::Ordering;

/// Latencies below this many cycles are counted in a histogram; longer ones kept as they are.
const HISTOGRAM_CYCLES: usize = 1 << 14;

#[derive(Debug, Clone)]
pub(crate) struct Counters {
    /// Whole run.
    pub created: u64,
    pub injected: u64,
    pub ejected: u64,
    pub packets_ejected: u64,
    pub flit_hops: u64,
    pub messages_done: u64,
    pub max_occupancy: u32,
    /// Measurement window only.
    pub offered: u64,
    pub accepted: u64,
    latency_counts: Vec<u64>,
    latency_long: Vec<u64>,
    latency_sum: u128,
    latency_packets: u64,
    pub last_delivery: u64,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            created: 0,
            injected: 0,
            ejected: 0,
            packets_ejected: 0,
            flit_hops: 0,
            messages_done: 0,
            max_occupancy: 0,
            offered: 0,
            accepted: 0,
            latency_counts: vec![0; HISTOGRAM_CYCLES],
            latency_long: Vec::new(),
            latency_sum: 0,
            latency_packets: 0,
            last_delivery: 0,
        }
    }
}

impl Counters {
    /// A packet's tail has reached its destination chip at `cycle`.
    pub fn eject(&mut self, packet: &Packet, cycle: u64, sh: &Shared, post: &mut Post) {
        let flits = packet.flits as u64;
        self.ejected += flits;
        self.packets_ejected += 1;
        self.last_delivery = cycle;
        if sh.measuring(cycle) {
            self.accepted += flits;
            let latency = cycle - packet.created;
            self.latency_sum += latency as u128;
            self.latency_packets += 1;
            match self.latency_counts.get_mut(latency as usize) {
                Some(n) => *n += 1,
                None => self.latency_long.push(latency),
            }
        }
        if packet.msg == NO_MSG {
            return;
        }
        let Some(dag) = &sh.dag else { return };
        let m = packet.msg as usize;
        if dag.undelivered[m].fetch_sub(flits, Ordering::Relaxed) != flits {
            return;
        }
        dag.done_cycle[m].store(cycle, Ordering::Relaxed);
        self.messages_done += 1;
        let (start, list) = (&dag.dependants_start, &dag.dependants);
        for &d in &list[start[m] as usize..start[m + 1] as usize] {
            post.send(Outgoing {
                router: dag.src[d as usize],
                time: cycle + 1,
                event: Event::DepDone {
                    msg: d,
                    done: cycle,
                },
            });
        }
    }

    pub fn merge(&mut self, other: &Counters) {
        self.created += other.created;
        self.injected += other.injected;
        self.ejected += other.ejected;
        self.packets_ejected += other.packets_ejected;
        self.flit_hops += other.flit_hops;
        self.messages_done += other.messages_done;
        self.max_occupancy = self.max_occupancy.max(other.max_occupancy);
        self.offered += other.offered;
        self.accepted += other.accepted;
        for (a, b) in self.latency_counts.iter_mut().zip(&other.latency_counts) {
            *a += b;
        }
        self.latency_long.extend_from_slice(&other.latency_long);
        self.latency_sum += other.latency_sum;
        self.latency_packets += other.latency_packets;
        self.last_delivery = self.last_delivery.max(other.last_delivery);
    }

    pub fn latency(&self) -> LatencyStats {
        let n = self.latency_packets;
        let mut long = self.latency_long.clone();
        long.sort_unstable();
        // The smallest latency with at least `rank` packets at or below it.
        let quantile = |q: f64| -> u64 {
            if n == 0 {
                return 0;
            }
            let rank = ((q * n as f64).ceil() as u64).max(1);
            let mut seen = 0;
            for (cycles, &count) in self.latency_counts.iter().enumerate() {
                seen += count;
                if seen >= rank {
                    return cycles as u64;
                }
            }
            long[(rank - seen - 1) as usize]
        };
        let max = long.last().copied().unwrap_or_else(|| {
            self.latency_counts
                .iter()
                .rposition(|&c| c > 0)
                .unwrap_or(0) as u64
        });
        LatencyStats {
            mean: if n == 0 {
                0.0
            } else {
                self.latency_sum as f64 / n as f64
            },
            p50: quantile(0.5),
            p99: quantile(0.99),
            max,
            packets: n,
        }
    }
}

/// Packet latency in cycles, from generation (source queueing included) to the tail's arrival,
/// over the packets delivered in the measurement window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyStats {
    pub mean: f64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
    pub packets: u64,
}

/// A blocked cycle of channels found by the watchdog.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Deadlock {
    /// Cycle at which the watchdog stopped the run.
    pub detected_at: u64,
    /// Cycles without any packet moving.
    pub stalled_cycles: u64,
    /// Each channel's head packet waits for the next channel, the last for the first.
    pub channels: Vec<ChannelRef>,
}

/// What a run measured. Rates are flits/cycle/chip over the measurement window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlitReport {
    pub routing: String,
    pub traffic: String,
    pub chips: u32,
    pub routers: u32,
    /// Physical VCs per port: the routing function's VCs times `vcs_per_class`.
    pub vcs: u8,
    pub threads: usize,
    pub seed: u64,
    /// Flits generated per cycle per chip.
    pub offered: f64,
    /// Flits delivered per cycle per chip.
    pub accepted: f64,
    pub latency: LatencyStats,
    /// Cycles simulated in all.
    pub cycles: u64,
    pub measured_cycles: u64,
    /// Over the whole run.
    pub flits_delivered: u64,
    pub packets_delivered: u64,
    pub flits_injected: u64,
    pub flits_in_flight: u64,
    /// Flits generated but not yet injected (in source queues and injection ports), at the end.
    pub flits_at_sources: u64,
    /// Flits carried over links (each link traversal counts once).
    pub flit_hops: u64,
    /// Routers x cycles simulated.
    pub router_cycles: u64,
    /// Largest VC buffer occupancy seen (never above `buffer_flits`; checked every arrival).
    pub max_buffer_flits: u32,
    /// Flits carried per cycle over capacity, mean and maximum over links.
    pub mean_link_utilisation: f64,
    pub max_link_utilisation: f64,
    /// Finite workloads: cycle at which the last flit arrived, if all did.
    pub completion_cycles: Option<u64>,
    /// False when the run stopped early (deadlock) or a finite workload hit `max_cycles`.
    pub completed: bool,
    pub deadlock: Option<Deadlock>,
    /// Seconds per cycle for message DAGs: flit size over the slowest link's bandwidth.
    pub cycle_s: f64,
    /// Per link (network order): flits carried per cycle over its flits per cycle.
    #[serde(skip)]
    pub link_utilisation: Vec<f64>,
    /// Message DAGs: the cycle each message fully arrived (`u64::MAX`: it did not).
    #[serde(skip)]
    pub message_done_cycles: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_known_histogram() {
        let mut c = Counters::default();
        for latency in 1..=100u64 {
            c.latency_counts[latency as usize] += 1;
            c.latency_sum += latency as u128;
            c.latency_packets += 1;
        }
        c.latency_long.push(20_000);
        c.latency_sum += 20_000;
        c.latency_packets += 1;
        let l = c.latency();
        assert_eq!((l.p50, l.p99, l.max, l.packets), (51, 100, 20_000, 101));
        assert!((l.mean - (5050.0 + 20_000.0) / 101.0).abs() < 1e-9);
    }
}

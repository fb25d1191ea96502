//! Route analysis: the route of one pair, hop statistics over all or sampled pairs, the largest
//! VC used, and link loads under uniform all-to-all traffic.

use super::{Hop, RouteState, Routing};
use crate::error::{RailxError, Result};
use crate::metrics::Hops;
use crate::progress::{chunked, Meter, Observer, Silent, Unit};
use crate::resources::{require, Driver, Estimate};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use rayon::prelude::*;
use serde::Serialize;

/// The route from `src` to `dst` taking the first allowed hop each time.
pub fn route(routing: &dyn Routing, src: u32, dst: u32) -> Result<Vec<Hop>> {
    let mut path = Vec::new();
    walk_first_choice(routing, src, dst, |hop, _| path.push(*hop))?;
    Ok(path)
}

/// Walks the route from `src` to `dst` taking the first allowed hop each time, calling
/// `on_hop(hop, candidates)` with the hop taken and every hop the routing offered there.
fn walk_first_choice(
    routing: &dyn Routing,
    src: u32,
    dst: u32,
    mut on_hop: impl FnMut(&Hop, &[Hop]),
) -> Result<()> {
    let limit = 4 * routing.chips().len() + 64;
    let (mut chip, mut state) = (src, RouteState::start());
    let mut taken = 0;
    let mut hops = Vec::new();
    while chip != dst {
        hops.clear();
        routing.next_hops(chip, dst, &state, &mut hops);
        let Some(&hop) = hops.first() else {
            return Err(RailxError::verification(
                format!("route {src} -> {dst}"),
                format!("stuck at chip {chip}: the routing function offers no next hop"),
            ));
        };
        if routing.link_source(hop.link) != chip || taken > limit {
            return Err(RailxError::verification(
                format!("route {src} -> {dst}"),
                format!(
                    "at chip {chip}: link {} does not leave this chip, or the route loops",
                    hop.link
                ),
            ));
        }
        on_hop(&hop, &hops);
        taken += 1;
        chip = routing.link_target(hop.link);
        state = hop.state;
    }
    Ok(())
}

/// `count` distinct ordered pairs of distinct chips drawn with a seeded generator (all pairs when
/// there are fewer).
pub fn sample_pairs(chips: &[u32], count: usize, seed: u64) -> Result<Vec<(u32, u32)>> {
    let n = chips.len() as u64;
    let total = n * n.saturating_sub(1);
    require(
        "routing this many pairs",
        &[Driver::new("samples", count as u64, 1)],
        |v| {
            let pairs = v[0].min(total as f64);
            Estimate::new(pairs * PAIR_BYTES, pairs * ROUTE_STEPS)
        },
    )?;
    if total <= count as u64 {
        return Ok(chips
            .iter()
            .flat_map(|&a| chips.iter().filter(move |&&b| b != a).map(move |&b| (a, b)))
            .collect());
    }
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut pairs = Vec::with_capacity(count);
    let mut seen = std::collections::HashSet::with_capacity(count);
    while pairs.len() < count {
        let k = rng.random_range(0..total);
        let (a, b) = (k / (n - 1), k % (n - 1));
        let b = if b >= a { b + 1 } else { b };
        if seen.insert(k) {
            pairs.push((chips[a as usize], chips[b as usize]));
        }
    }
    Ok(pairs)
}

/// Memory per sampled pair: the pair and its entry in the set that keeps pairs distinct.
const PAIR_BYTES: f64 = 40.0;
/// Work per routed pair: a route of a few dozen hops, each a routing decision.
pub const ROUTE_STEPS: f64 = 1000.0;

/// Hop statistics of routes over a set of pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteStats {
    pub routing: String,
    pub pairs: u64,
    pub sampled: bool,
    pub max_inter_node_hops: u32,
    pub mean_inter_node_hops: f64,
    pub max_hops: Hops,
    pub mean_intra_node_hops: f64,
    pub max_vc: u8,
    /// Pairs by inter-node hop count: `hop_histogram[k]` routes took k inter-node hops.
    pub hop_histogram: Vec<u64>,
}

/// Statistics over every pair, or `samples` seeded pairs when there are more.
pub fn route_stats(routing: &dyn Routing, samples: usize, seed: u64) -> Result<RouteStats> {
    route_stats_observed(routing, samples, seed, &mut Silent)
}

/// `route_stats`, telling `observer` the routes measured (`crate::progress`).
pub fn route_stats_observed(
    routing: &dyn Routing,
    samples: usize,
    seed: u64,
    observer: &mut dyn Observer,
) -> Result<RouteStats> {
    let chips = routing.chips();
    let n = chips.len() as u64;
    let pairs = sample_pairs(chips, samples, seed)?;
    let sampled = (pairs.len() as u64) < n * n.saturating_sub(1);
    let total = Some(pairs.len() as u64);
    let mut meter = Meter::new(observer, "route statistics", Unit::Routes, total, 1);
    let per_route: Vec<(u32, u32, u8)> = chunked(&pairs, &mut meter, |chunk| {
        chunk
            .par_iter()
            .map(|&(s, d)| {
                let path = route(routing, s, d)?;
                let ho = path.iter().filter(|h| routing.is_external(h.link)).count() as u32;
                let vc = path.iter().map(|h| h.vc).max().unwrap_or(0);
                Ok((ho, path.len() as u32 - ho, vc))
            })
            .collect::<Result<Vec<_>>>()
    })?
    .concat();
    let count = per_route.len().max(1) as f64;
    let max_ho = per_route.iter().map(|r| r.0).max().unwrap_or(0);
    let mut histogram = vec![0u64; max_ho as usize + 1];
    for r in &per_route {
        histogram[r.0 as usize] += 1;
    }
    Ok(RouteStats {
        routing: routing.name().to_string(),
        pairs: per_route.len() as u64,
        sampled,
        max_inter_node_hops: max_ho,
        mean_inter_node_hops: per_route.iter().map(|r| r.0 as f64).sum::<f64>() / count,
        max_hops: Hops {
            Ho: max_ho,
            Hi: per_route.iter().map(|r| r.1).max().unwrap_or(0),
        },
        mean_intra_node_hops: per_route.iter().map(|r| r.1 as f64).sum::<f64>() / count,
        max_vc: per_route.iter().map(|r| r.2).max().unwrap_or(0),
        hop_histogram: histogram,
    })
}

/// Sources whose loads one task accumulates in order. Fixed, so that the floating-point sums,
/// added chunk by chunk in chip order, are the same on any number of threads.
const LOAD_CHUNK_SOURCES: usize = 64;

/// Load of every link under uniform all-to-all traffic (every chip sends the same amount to
/// every other): routes crossing each link divided by (chips - 1), i.e. in units of one chip's
/// injection rate. Indexed by link id; `links` is the link count. Each route takes the first
/// choice, as [`route`] does, except that a hop's load is split evenly over the parallel lanes
/// offered beside the first choice (candidates joining the same two chips): the lanes are
/// interchangeable, and the simulators spread packets over them, so a bound that put everything
/// on the first lane would halve the mesh of a RailX node with two lanes.
pub fn all_to_all_link_load(routing: &dyn Routing, links: usize) -> Result<Vec<f64>> {
    let chips = routing.chips();
    let mut totals = vec![0.0f64; links];
    let batch = LOAD_CHUNK_SOURCES * rayon::current_num_threads().max(1);
    for sources in chips.chunks(batch) {
        let chunks = sources
            .par_chunks(LOAD_CHUNK_SOURCES)
            .map(|chunk| {
                let mut local = vec![0.0f64; links];
                for &src in chunk {
                    for &dst in chips.iter().filter(|&&d| d != src) {
                        add_lane_split_route(routing, src, dst, &mut local)?;
                    }
                }
                Ok(local)
            })
            .collect::<Result<Vec<_>>>()?;
        for local in chunks {
            totals.iter_mut().zip(local).for_each(|(t, l)| *t += l);
        }
    }
    let scale = 1.0 / (chips.len().max(2) - 1) as f64;
    Ok(totals.into_iter().map(|c| c * scale).collect())
}

/// Adds one route from `src` to `dst` to `load`: the first choice at every hop, its unit split
/// evenly over the distinct links offered there that join the same two chips (the parallel lanes).
fn add_lane_split_route(routing: &dyn Routing, src: u32, dst: u32, load: &mut [f64]) -> Result<()> {
    let mut lanes = Vec::new();
    walk_first_choice(routing, src, dst, |hop, offered| {
        let ends = |l: u32| (routing.link_source(l), routing.link_target(l));
        lanes.clear();
        lanes.extend(
            offered
                .iter()
                .map(|h| h.link)
                .filter(|&l| ends(l) == ends(hop.link)),
        );
        lanes.sort_unstable();
        lanes.dedup();
        let share = 1.0 / lanes.len() as f64;
        for &lane in &lanes {
            load[lane as usize] += share;
        }
    })
}

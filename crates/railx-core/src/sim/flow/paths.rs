//! Routed paths as resource incidences: which resources (links, or link orbits) a flow loads
//! and how much per unit of its rate, and the latency its last byte sees.
//!
//! A path is followed hop by hop with the routing function, as the flit simulator does. Where
//! the function offers several next hops (adaptive or randomised routing) the flow is split
//! evenly over them at every branching, so a link's coefficient is the fraction of the flow
//! crossing it (the expectation of a uniformly random choice); branches reaching the same chip
//! with the same routing state after the same number of hops merge, so the work stays linear in
//! the path lengths rather than in the number of paths. A multipath message's latency is that of
//! its slowest branch: it has arrived when its last byte has.
//!
//! A multicast message (one transmission replicated inside the network, as an optical WSS does)
//! loads the *tree* of its routes: the union of the routed paths to each destination, each link
//! once (a link shared by several destinations' routes, such as the source's uplink, carries
//! the data once); its latency is that of its farthest destination. A unicast is the tree of
//! one destination, so both are the same mechanism.

use super::symmetry::Symmetry;
use crate::error::{RailxError, Result};
use crate::routing::{Hop, RouteState, Routing};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Paths in compressed rows: path i loads `resource[start[i]..start[i+1]]` by the matching
/// `coeff` per unit of its rate (resources sorted, each once), and takes `latency_s[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct PathSet {
    start: Vec<u64>,
    resource: Vec<u32>,
    coeff: Vec<f64>,
    latency_s: Vec<f64>,
}

impl Default for PathSet {
    fn default() -> Self {
        PathSet {
            start: vec![0],
            resource: Vec::new(),
            coeff: Vec::new(),
            latency_s: Vec::new(),
        }
    }
}

impl PathSet {
    /// Appends a path given as (resource, coefficient) pairs, sorted by resource, each once.
    pub fn push(&mut self, incidence: &[(u32, f64)], latency_s: f64) {
        for &(r, a) in incidence {
            self.resource.push(r);
            self.coeff.push(a);
        }
        self.start.push(self.resource.len() as u64);
        self.latency_s.push(latency_s);
    }

    pub fn len(&self) -> usize {
        self.latency_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.latency_s.is_empty()
    }

    /// The resources path i loads and its coefficient on each.
    pub fn path(&self, i: u32) -> (&[u32], &[f64]) {
        let (a, b) = (
            self.start[i as usize] as usize,
            self.start[i as usize + 1] as usize,
        );
        (&self.resource[a..b], &self.coeff[a..b])
    }

    pub fn latency_s(&self, i: u32) -> f64 {
        self.latency_s[i as usize]
    }

    fn append(&mut self, other: PathSet) {
        let base = *self.start.last().unwrap_or(&0);
        self.start
            .extend(other.start[1..].iter().map(|&s| s + base));
        self.resource.extend(other.resource);
        self.coeff.extend(other.coeff);
        self.latency_s.extend(other.latency_s);
    }

    /// The paths of `pairs` (src, dst chips) under `routing`, with every link mapped to its
    /// resource by `resource_of_link`; computed in parallel, stored in the order of `pairs`.
    pub fn route_all(
        routing: &dyn Routing,
        link_latency_s: &[f64],
        resource_of_link: &[u32],
        pairs: &[(u32, u32)],
    ) -> Result<PathSet> {
        let trees: Vec<(u32, &[u32])> = pairs
            .iter()
            .map(|(s, d)| (*s, std::slice::from_ref(d)))
            .collect();
        PathSet::route_trees(routing, link_latency_s, resource_of_link, &trees)
    }

    /// The multicast trees of `trees` (src chip, destination chips) under `routing` (module
    /// docs): each resource once, with the largest share any destination's route puts on it
    /// (1 on a deterministic route), and the latency of the farthest destination. Computed in
    /// parallel, stored in the order of `trees`.
    pub fn route_trees(
        routing: &dyn Routing,
        link_latency_s: &[f64],
        resource_of_link: &[u32],
        trees: &[(u32, &[u32])],
    ) -> Result<PathSet> {
        const CHUNK: usize = 2048;
        let parts = trees
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut part = PathSet::default();
                let mut walker = Walker::default();
                let mut tree: Vec<(u32, f64)> = Vec::new();
                for &(s, dsts) in chunk {
                    tree.clear();
                    let mut latency: f64 = 0.0;
                    for &d in dsts {
                        latency = latency.max(walker.walk(routing, link_latency_s, s, d)?);
                        tree.extend_from_slice(walker.incidence(resource_of_link));
                    }
                    union_of_routes(&mut tree);
                    part.push(&tree, latency);
                }
                Ok(part)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut all = PathSet::default();
        for part in parts {
            all.append(part);
        }
        Ok(all)
    }

    /// The paths of `pairs` under `routing` for an aggregated run over `group`, with every
    /// link mapped to its orbit by `orbit_of_link`; the same incidences and latencies as
    /// `route_all` (up to the order of floating-point sums) when the routing is equivariant under
    /// the group, which the aggregated run requires anyway. Each pair (s, d) is moved by the
    /// element g taking d onto its orbit's domain chip d0, which keeps its orbit incidence; then
    /// the routes to each d0 are computed as suffixes shared by every route through the same
    /// (chip, routing state) (`Suffixes`), so a 65,536-chip all-to-all evaluates the routing
    /// function about twice per chip and destination instead of once per hop of each of its 1M
    /// representative routes. Computed in parallel over the domain chips, stored in the order
    /// of `pairs`.
    pub fn route_to_domain(
        routing: &dyn Routing,
        link_latency_s: &[f64],
        orbit_of_link: &[u32],
        group: &Symmetry,
        pairs: &[(u32, u32)],
    ) -> Result<PathSet> {
        let mut by_domain: Vec<Vec<(u32, u32)>> = vec![Vec::new(); group.domain_chips() as usize];
        for (i, &(s, d)) in pairs.iter().enumerate() {
            let slot = group.member(d).0;
            let d0 = group.domain_chip(slot);
            let g = group
                .between(d, d0)
                .expect("d and its domain chip share an orbit");
            by_domain[slot as usize].push((i as u32, group.translate(s, g)));
        }
        let parts = by_domain
            .par_iter()
            .enumerate()
            .map(|(slot, sources)| {
                let dst = group.domain_chip(slot as u32);
                let mut suffixes = Suffixes::default();
                let mut part = PathSet::default();
                for &(_, src) in sources {
                    let id = suffixes.of(routing, link_latency_s, orbit_of_link, src, dst)?;
                    let (res, coeff, latency) = suffixes.get(id);
                    part.resource.extend_from_slice(res);
                    part.coeff.extend_from_slice(coeff);
                    part.start.push(part.resource.len() as u64);
                    part.latency_s.push(latency);
                }
                Ok(part)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut place = vec![(0u32, 0u32); pairs.len()];
        for (slot, sources) in by_domain.iter().enumerate() {
            for (k, &(i, _)) in sources.iter().enumerate() {
                place[i as usize] = (slot as u32, k as u32);
            }
        }
        let mut all = PathSet::default();
        for &(slot, k) in &place {
            let (res, coeff) = parts[slot as usize].path(k);
            all.resource.extend_from_slice(res);
            all.coeff.extend_from_slice(coeff);
            all.start.push(all.resource.len() as u64);
            all.latency_s.push(parts[slot as usize].latency_s(k));
        }
        Ok(all)
    }
}

/// The rests of the routes to one destination, from every (chip, routing state) a route from a
/// requested source reaches: the resources they load with their shares (sorted, each once) and
/// the latency of their slowest branch. A (chip, state) determines the rest of the route, so
/// each is computed once, from the rests of its next hops: a hop offered among H loads its
/// link's resource by 1/H and adds 1/H of the rest beyond it; the latency is the largest of
/// link latency plus the rest's.
#[derive(Default)]
struct Suffixes {
    index: FxHashMap<(u32, RouteState), u32>,
    start: Vec<usize>,
    resource: Vec<u32>,
    coeff: Vec<f64>,
    latency_s: Vec<f64>,
    /// Depth-first frames: (chip, state, first hop in `hops`, hops offered, next hop to visit).
    frames: Vec<(u32, RouteState, usize, usize, usize)>,
    hops: Vec<Hop>,
    scratch: Vec<(u32, f64)>,
}

/// The id `Suffixes` gives the empty rest of a route that has arrived.
const ARRIVED: u32 = u32::MAX;

impl Suffixes {
    /// The rest of the route from `src` (starting state) to `dst`: its id for `get`.
    fn of(
        &mut self,
        routing: &dyn Routing,
        link_latency_s: &[f64],
        resource_of_link: &[u32],
        src: u32,
        dst: u32,
    ) -> Result<u32> {
        if src == dst {
            return Ok(ARRIVED);
        }
        let start = RouteState::start();
        if let Some(&id) = self.index.get(&(src, start)) {
            return Ok(id);
        }
        let limit = 4 * routing.chips().len() + 64;
        self.frames.clear();
        self.hops.clear();
        self.open(routing, src, start, dst)?;
        while let Some(&(chip, state, first, count, next)) = self.frames.last() {
            if next < count {
                self.frames.last_mut().expect("a frame").4 += 1;
                let hop = self.hops[first + next];
                let key = (routing.link_target(hop.link), hop.state);
                if key.0 != dst && !self.index.contains_key(&key) {
                    if self.frames.len() > limit {
                        return Err(RailxError::verification(
                            format!("route {src} -> {dst}"),
                            "the routing function loops (no arrival within 4 x chips hops)",
                        ));
                    }
                    self.open(routing, key.0, key.1, dst)?;
                }
                continue;
            }
            self.frames.pop();
            let share = 1.0 / count as f64;
            let mut latency_s: f64 = 0.0;
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.clear();
            for k in first..first + count {
                let hop = self.hops[k];
                let link = hop.link as usize;
                scratch.push((resource_of_link[link], share));
                let target = routing.link_target(hop.link);
                let rest = if target == dst {
                    ARRIVED
                } else {
                    self.index[&(target, hop.state)]
                };
                let (res, coeff, rest_s) = self.get(rest);
                scratch.extend(res.iter().zip(coeff).map(|(&r, &a)| (r, a * share)));
                latency_s = latency_s.max(link_latency_s[link] + rest_s);
            }
            self.hops.truncate(first);
            self.start.push(self.resource.len());
            for &(r, a) in merge_incidence(&mut scratch).iter() {
                self.resource.push(r);
                self.coeff.push(a);
            }
            self.scratch = scratch;
            self.latency_s.push(latency_s);
            self.index
                .insert((chip, state), self.latency_s.len() as u32 - 1);
        }
        Ok(self.index[&(src, start)])
    }

    /// Pushes the frame of (chip, state): its offered hops, checked to leave the chip.
    fn open(
        &mut self,
        routing: &dyn Routing,
        chip: u32,
        state: RouteState,
        dst: u32,
    ) -> Result<()> {
        let first = self.hops.len();
        routing.next_hops(chip, dst, &state, &mut self.hops);
        let offered = &self.hops[first..];
        if offered.is_empty() {
            return Err(RailxError::verification(
                format!("route to {dst}"),
                format!("stuck at chip {chip}: the routing function offers no next hop"),
            ));
        }
        if let Some(h) = offered.iter().find(|h| routing.link_source(h.link) != chip) {
            return Err(RailxError::verification(
                format!("route to {dst}"),
                format!("at chip {chip}: link {} does not leave this chip", h.link),
            ));
        }
        let count = offered.len();
        self.frames.push((chip, state, first, count, 0));
        Ok(())
    }

    /// The resources, shares and latency of rest `id`.
    fn get(&self, id: u32) -> (&[u32], &[f64], f64) {
        if id == ARRIVED {
            return (&[], &[], 0.0);
        }
        let i = id as usize;
        let end = self
            .start
            .get(i + 1)
            .copied()
            .unwrap_or(self.resource.len());
        let a = self.start[i];
        (
            &self.resource[a..end],
            &self.coeff[a..end],
            self.latency_s[i],
        )
    }
}

/// Sorts (resource, share) pairs by resource and sums the shares of each; returns the merged
/// prefix.
fn merge_incidence(list: &mut Vec<(u32, f64)>) -> &[(u32, f64)] {
    list.sort_unstable_by_key(|e| e.0);
    let mut out = 0;
    for i in 0..list.len() {
        if out > 0 && list[out - 1].0 == list[i].0 {
            list[out - 1].1 += list[i].1;
        } else {
            list[out] = list[i];
            out += 1;
        }
    }
    list.truncate(out);
    list
}

/// One branch front of a walk: a chip, the routing state there, the share of the flow on it
/// and the latency accumulated so far.
#[derive(Clone, Copy)]
struct Branch {
    chip: u32,
    state: RouteState,
    share: f64,
    latency_s: f64,
}

/// Scratch for walking routes; reused across pairs.
#[derive(Default)]
pub struct Walker {
    front: Vec<Branch>,
    next: Vec<Branch>,
    hops: Vec<Hop>,
    /// (link, share) of every hop taken, before merging.
    crossed: Vec<(u32, f64)>,
    merged: Vec<(u32, f64)>,
}

impl Walker {
    /// Follows the routes from `src` to `dst`, recording every link crossed with its share of
    /// the flow; returns the latency of the slowest branch.
    pub fn walk(
        &mut self,
        routing: &dyn Routing,
        link_latency_s: &[f64],
        src: u32,
        dst: u32,
    ) -> Result<f64> {
        let limit = 4 * routing.chips().len() + 64;
        self.crossed.clear();
        self.front.clear();
        self.front.push(Branch {
            chip: src,
            state: RouteState::start(),
            share: 1.0,
            latency_s: 0.0,
        });
        let mut latency_s: f64 = 0.0;
        let mut steps = 0;
        while !self.front.is_empty() {
            steps += 1;
            if steps > limit {
                return Err(RailxError::verification(
                    format!("route {src} -> {dst}"),
                    "the routing function loops (no arrival within 4 x chips hops)",
                ));
            }
            // Index, not `take`: the two fronts keep their buffers from hop to hop (a 65,536-chip
            // all-to-all walks about 60M hops).
            self.next.clear();
            for i in 0..self.front.len() {
                let b = self.front[i];
                if b.chip == dst {
                    latency_s = latency_s.max(b.latency_s);
                    continue;
                }
                self.hops.clear();
                routing.next_hops(b.chip, dst, &b.state, &mut self.hops);
                if self.hops.is_empty() {
                    return Err(RailxError::verification(
                        format!("route {src} -> {dst}"),
                        format!(
                            "stuck at chip {}: the routing function offers no next hop",
                            b.chip
                        ),
                    ));
                }
                let share = b.share / self.hops.len() as f64;
                for h in &self.hops {
                    if routing.link_source(h.link) != b.chip {
                        return Err(RailxError::verification(
                            format!("route {src} -> {dst}"),
                            format!(
                                "at chip {}: link {} does not leave this chip",
                                b.chip, h.link
                            ),
                        ));
                    }
                    self.crossed.push((h.link, share));
                    self.next.push(Branch {
                        chip: routing.link_target(h.link),
                        state: h.state,
                        share,
                        latency_s: b.latency_s + link_latency_s[h.link as usize],
                    });
                }
            }
            if self.next.len() > 1 {
                merge_branches(&mut self.next);
            }
            std::mem::swap(&mut self.front, &mut self.next);
        }
        Ok(latency_s)
    }

    /// The links crossed by the last walk mapped to resources, each resource once with the
    /// summed share, sorted by resource.
    pub fn incidence(&mut self, resource_of_link: &[u32]) -> &[(u32, f64)] {
        self.merged.clear();
        self.merged.extend(
            self.crossed
                .iter()
                .map(|&(l, a)| (resource_of_link[l as usize], a)),
        );
        merge_incidence(&mut self.merged)
    }
}

/// The union of several routes' incidences: each resource once, sorted, with the largest share.
fn union_of_routes(tree: &mut Vec<(u32, f64)>) {
    tree.sort_unstable_by_key(|e| e.0);
    tree.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 = kept.1.max(later.1);
        }
        same
    });
}

/// Merges branches at the same chip in the same state: shares add, the latency is the larger.
fn merge_branches(list: &mut Vec<Branch>) {
    list.sort_unstable_by_key(|b| {
        (
            b.chip,
            b.state.exit,
            b.state.hops,
            b.state.misroutes,
            b.state.vc,
            b.state.dim,
        )
    });
    let mut out = 0;
    for i in 0..list.len() {
        let b = list[i];
        if out > 0 && list[out - 1].chip == b.chip && list[out - 1].state == b.state {
            list[out - 1].share += b.share;
            list[out - 1].latency_s = list[out - 1].latency_s.max(b.latency_s);
        } else {
            list[out] = b;
            out += 1;
        }
    }
    list.truncate(out);
}

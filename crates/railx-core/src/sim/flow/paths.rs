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

use crate::error::{RailxError, Result};
use crate::routing::{Hop, LinkEnds, RouteState, Routing};
use rayon::prelude::*;

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
        // Sized once: appending a million routes' parts to a growing set copied and faulted in
        // its pages again at every doubling.
        let mut all = PathSet::default();
        all.start
            .reserve(parts.iter().map(|p| p.start.len() - 1).sum());
        all.resource
            .reserve(parts.iter().map(|p| p.resource.len()).sum());
        all.coeff.reserve(parts.iter().map(|p| p.coeff.len()).sum());
        all.latency_s
            .reserve(parts.iter().map(|p| p.latency_s.len()).sum());
        for part in parts {
            all.append(part);
        }
        Ok(all)
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
    /// Crossings counted per resource (zero between walks) and the resources counted.
    count: Vec<f64>,
    counted: Vec<u32>,
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
        let mut route = Route {
            routing,
            link_latency_s,
            src,
            dst,
            limit,
            steps: 0,
            latency_s: 0.0,
        };
        self.crossed.clear();
        self.front.clear();
        self.front.push(Branch {
            chip: src,
            state: RouteState::start(),
            share: 1.0,
            latency_s: 0.0,
        });
        while !self.front.is_empty() {
            route.step()?;
            // Index, not `take`: the two fronts keep their buffers from hop to hop (a 65,536-chip
            // all-to-all walks about 60M hops).
            self.next.clear();
            if self.front.len() == 1 {
                self.follow(&mut route, self.front[0])?;
            } else {
                for i in 0..self.front.len() {
                    let b = self.front[i];
                    if b.chip == dst {
                        route.arrive(&b);
                    } else {
                        self.offer(&route, &b)?;
                        self.spread(&route, &b)?;
                    }
                }
            }
            if self.next.len() > 1 {
                merge_branches(&mut self.next);
            }
            std::mem::swap(&mut self.front, &mut self.next);
        }
        Ok(route.latency_s)
    }

    /// Follows a lone branch hop by hop in place for as long as the routing offers one hop (a
    /// deterministic route all the way): each step's front is that branch, so the fronts'
    /// buffers are not written and read back at every hop. Stops at the destination (nothing
    /// in the next front) or where the route branches (the branches in the next front).
    fn follow(&mut self, route: &mut Route, mut b: Branch) -> Result<()> {
        let ends = route.routing.links();
        loop {
            if b.chip == route.dst {
                route.arrive(&b);
                return Ok(());
            }
            self.offer(route, &b)?;
            if self.hops.len() > 1 {
                return self.spread(route, &b);
            }
            // One hop: the branch keeps its whole share (`spread` divides it by one).
            let h = self.hops[0];
            let to = route.leave(ends, &b, h.link)?;
            self.crossed.push((h.link, b.share));
            b = Branch {
                chip: to,
                state: h.state,
                share: b.share,
                latency_s: b.latency_s + route.link_latency_s[h.link as usize],
            };
            route.step()?;
        }
    }

    /// The hops the routing offers branch b (at least one).
    fn offer(&mut self, route: &Route, b: &Branch) -> Result<()> {
        self.hops.clear();
        route
            .routing
            .next_hops(b.chip, route.dst, &b.state, &mut self.hops);
        if self.hops.is_empty() {
            return Err(RailxError::verification(
                format!("route {} -> {}", route.src, route.dst),
                format!(
                    "stuck at chip {}: the routing function offers no next hop",
                    b.chip
                ),
            ));
        }
        Ok(())
    }

    /// Splits branch b evenly over the hops offered, into the next front.
    fn spread(&mut self, route: &Route, b: &Branch) -> Result<()> {
        // The link ends read directly, not through two trait calls per hop (`link_source`,
        // `link_target` read the same table): the walk is most of a large run's routing time.
        let ends = route.routing.links();
        let share = b.share / self.hops.len() as f64;
        for h in &self.hops {
            let to = route.leave(ends, b, h.link)?;
            self.crossed.push((h.link, share));
            self.next.push(Branch {
                chip: to,
                state: h.state,
                share,
                latency_s: b.latency_s + route.link_latency_s[h.link as usize],
            });
        }
        Ok(())
    }

    /// The links crossed by the last walk mapped to resources, each resource once with the
    /// summed share, sorted by resource.
    pub fn incidence(&mut self, resource_of_link: &[u32]) -> &[(u32, f64)] {
        self.merged.clear();
        if self.crossed.iter().all(|&(_, a)| a == 1.0) {
            // A single path (no branching): shares are whole crossings, so their sums are exact
            // in any order; counting per resource sorts only the distinct resources instead of
            // every hop (the all-to-all's routes cross a few resources many times).
            for &(l, _) in &self.crossed {
                let r = resource_of_link[l as usize] as usize;
                if r >= self.count.len() {
                    self.count.resize(r + 1, 0.0);
                }
                if self.count[r] == 0.0 {
                    self.counted.push(r as u32);
                }
                self.count[r] += 1.0;
            }
            self.counted.sort_unstable();
            for &r in &self.counted {
                self.merged.push((r, self.count[r as usize]));
                self.count[r as usize] = 0.0;
            }
            self.counted.clear();
            return &self.merged;
        }
        self.merged.extend(
            self.crossed
                .iter()
                .map(|&(l, a)| (resource_of_link[l as usize], a)),
        );
        merge_incidence(&mut self.merged)
    }
}

/// One walk's fixed inputs and its running totals.
struct Route<'a> {
    routing: &'a dyn Routing,
    link_latency_s: &'a [f64],
    src: u32,
    dst: u32,
    /// Fronts allowed before the routing is taken to loop.
    limit: usize,
    steps: usize,
    /// The latency of the slowest branch arrived so far.
    latency_s: f64,
}

impl Route<'_> {
    /// Counts a front; an error past the limit.
    fn step(&mut self) -> Result<()> {
        self.steps += 1;
        if self.steps > self.limit {
            return Err(RailxError::verification(
                format!("route {} -> {}", self.src, self.dst),
                "the routing function loops (no arrival within 4 x chips hops)",
            ));
        }
        Ok(())
    }

    fn arrive(&mut self, b: &Branch) {
        self.latency_s = self.latency_s.max(b.latency_s);
    }

    /// The chip `link` leads to from branch b's chip; an error when it does not leave it.
    fn leave(&self, ends: &LinkEnds, b: &Branch, link: u32) -> Result<u32> {
        let [from, to] = ends.ends(link);
        if from != b.chip {
            return Err(RailxError::verification(
                format!("route {} -> {}", self.src, self.dst),
                format!("at chip {}: link {} does not leave this chip", b.chip, link),
            ));
        }
        Ok(to)
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A walker holding `crossed` as if a walk had just recorded it.
    fn walked(crossed: &[(u32, f64)]) -> Walker {
        Walker {
            crossed: crossed.to_vec(),
            ..Walker::default()
        }
    }

    proptest! {
        /// A single path's crossings counted per resource are exactly their sort-and-merge
        /// (whole crossings add exactly in any order), and the counts are cleared for the next
        /// path.
        #[test]
        fn counted_crossings_are_the_merged_ones(
            links in prop::collection::vec(0u32..40, 1..80),
            orbit_of in prop::collection::vec(0u32..12, 40),
        ) {
            let crossed: Vec<(u32, f64)> = links.iter().map(|&l| (l, 1.0)).collect();
            let mut reference: Vec<(u32, f64)> =
                crossed.iter().map(|&(l, a)| (orbit_of[l as usize], a)).collect();
            let reference = merge_incidence(&mut reference).to_vec();
            let mut walker = walked(&crossed);
            prop_assert_eq!(walker.incidence(&orbit_of), &reference[..]);
            prop_assert_eq!(walker.incidence(&orbit_of), &reference[..]);
        }
    }

    /// Chips 0..5 and links 0: 0 -> 1, 1: 0 -> 1 (parallel), 2: 1 -> 2, 3: 2 -> 3, 4: 3 -> 0, of
    /// latencies 1, 2, 4, 8, 16. Chip 0 offers both links to chip 1, the others one link on;
    /// chip 3 offers link 4 back to chip 0 when `cycle`, else nothing.
    struct Line {
        links: LinkEnds,
        cycle: bool,
    }

    const LATENCY_S: [f64; 5] = [1.0, 2.0, 4.0, 8.0, 16.0];

    fn line(cycle: bool) -> Line {
        let (src, dst) = (vec![0, 0, 1, 2, 3], vec![1, 1, 2, 3, 0]);
        let net = crate::network::Network {
            plant: None,
            chip_count: 5,
            switch_radix: vec![],
            src,
            dst,
            class: vec![crate::network::LinkClass::IntraNode; 5],
            bandwidth_Bps: vec![1.0; 5],
            latency_s: LATENCY_S.to_vec(),
            rail: vec![0; 5],
            axis: vec![crate::plant::Axis::X; 5],
        };
        Line {
            links: LinkEnds::of(&net, |_| false),
            cycle,
        }
    }

    impl Routing for Line {
        fn name(&self) -> &'static str {
            "line"
        }
        fn vcs(&self) -> u8 {
            1
        }
        fn chips(&self) -> &[u32] {
            &[0, 1, 2, 3, 4]
        }
        fn next_hops(&self, chip: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
            let links: &[u32] = match chip {
                _ if chip == dst => &[],
                0 => &[0, 1],
                1 => &[2],
                2 => &[3],
                3 if self.cycle => &[4],
                _ => &[],
            };
            out.extend(links.iter().map(|&link| Hop {
                link,
                vc: 0,
                state: *state,
            }));
        }
        fn links(&self) -> &LinkEnds {
            &self.links
        }
    }

    #[test]
    fn a_walk_splits_merges_and_follows_one_hop_routes() {
        // 0 -> 3: half the flow over each of links 0 and 1, merged at chip 1 (the latency of the
        // slower, 2), then links 2 and 3 whole: 2 + 4 + 8.
        let mut walker = Walker::default();
        assert_eq!(walker.walk(&line(false), &LATENCY_S, 0, 3).unwrap(), 14.0);
        let identity = [0, 1, 2, 3, 4];
        assert_eq!(
            walker.incidence(&identity),
            &[(0, 0.5), (1, 0.5), (2, 1.0), (3, 1.0)]
        );
        // 1 -> 3 never branches: a lone branch throughout.
        assert_eq!(walker.walk(&line(false), &LATENCY_S, 1, 3).unwrap(), 12.0);
        assert_eq!(walker.incidence(&identity), &[(2, 1.0), (3, 1.0)]);
        assert_eq!(walker.walk(&line(false), &LATENCY_S, 2, 2).unwrap(), 0.0);
    }

    #[test]
    fn a_walk_refuses_a_stuck_or_looping_route() {
        let mut walker = Walker::default();
        let stuck = walker.walk(&line(false), &LATENCY_S, 1, 4).unwrap_err();
        assert!(stuck.to_string().contains("stuck at chip 3"), "{stuck}");
        let loops = walker.walk(&line(true), &LATENCY_S, 1, 4).unwrap_err();
        assert!(loops.to_string().contains("loops"), "{loops}");
    }

    #[test]
    fn split_shares_are_merged() {
        // Two lanes of one hop (half each) map to the same resource: one entry, the whole flow.
        let mut walker = walked(&[(0, 0.5), (1, 0.5), (2, 1.0)]);
        assert_eq!(walker.incidence(&[3, 3, 1]), &[(1, 1.0), (3, 1.0)]);
    }
}

//! The translations of a RailX node grid, and message DAGs invariant under them.
//!
//! A translation `g = (dX, dY)` moves chip `(X, Y, x, y)` to `((X+dX) mod P, (Y+dY) mod Q, x, y)`.
//! It maps the network onto itself when every link's translate is a link of the same class,
//! rail, bandwidth and latency — true of a torus built from ring dimensions, whose rings join
//! nodes in index order with wrap-around, and checked here link by link, never assumed. The
//! group acts freely on chips (only the identity fixes a chip), hence freely on links and on
//! messages: every orbit has exactly `P*Q` members.
//!
//! Exactness of the aggregated simulation (one representative flow per orbit of messages, one
//! resource per orbit of links, each resource with ONE link's capacity):
//!
//! 1. Invariance. Let the network be invariant, the routing equivariant (the route of `g.s ->
//!    g.d` is the translate of the route of `s -> d`) and the message DAG invariant (message
//!    `g.i` exists for every message i, with the same bytes and delay, and waits for the
//!    translates of what i waits for). Max-min fair rates are unique, and the translate of a
//!    max-min fair allocation is again feasible and max-min fair, so at every instant
//!    `rate(g.f) = rate(f)`. By induction over events (every event time and every set of flows
//!    starting or finishing at it is invariant) all members of an orbit start, run at the same
//!    rate and finish at the same times.
//! 2. Loads. Count the crossings between a flow orbit F and a link orbit L two ways: the
//!    `|G|` flows of F each cross L `c(F, L)` times (c as seen on the representative path), and
//!    each of the `|G|` links of L is crossed by the same number of flows of F (invariance), so
//!    each link of L carries `c(F, L) * rate(F)` from F. The load of any link of L is therefore
//!    `sum_F c(F, L) rate(F)` — the load of resource L in the aggregated problem, whose capacity
//!    is one link's. Progressive filling on the aggregated problem therefore raises the same
//!    levels and saturates the same orbits at the same levels as on the full network: the rates,
//!    and so every event time, are the same (up to floating-point rounding of the sums).
//! 3. Dependencies. Because all members of an orbit arrive at the same time, a message's start
//!    depends only on which orbits it waits for, not on which member: the representative DAG
//!    names dependencies by orbit (`SymmetricDag`), and any invariant way of picking the member
//!    (see `SymmetricDag::expand`) has the same timing.
//!
//! The invariance of the network is checked exhaustively; the equivariance of the routing on a
//! deterministic sample of the representative routes at run time (`check_equivariance`), and
//! exhaustively against the full simulation in the tests.

use super::paths::Walker;
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::plant::Plant;
use crate::routing::Routing;
use crate::sim::dag::MessageDag;
use rustc_hash::FxHashMap;

/// The translation group of a RailX network's node grid, with the network's link orbits.
pub struct NodeTranslations {
    grid: Grid,
    /// (src, dst, rail, k) -> the k-th link with those ends on that rail (k > 0 only for a
    /// ring of two nodes on a one-chip mesh, whose two circuits join the same two chips).
    link_of: FxHashMap<(u32, u32, u32, u32), u32>,
    /// k of every link.
    parallel_index: Vec<u32>,
    /// Orbit of every link; orbits are numbered in the order of their links leaving node 0.
    orbit_of_link: Vec<u32>,
    /// The capacity of each orbit's links (one link's bandwidth).
    orbit_capacity_bps: Vec<f64>,
}

impl NodeTranslations {
    /// The translations of `net`'s node grid; an error when the network is not invariant under
    /// them (a peer topology, or an all-to-all dimension whose rails are not circulant).
    pub fn of(net: &Network) -> Result<NodeTranslations> {
        let plant: &Plant = net.railx_plant()?;
        let mut link_of = FxHashMap::default();
        link_of.reserve(net.links());
        let mut parallel_index = Vec::with_capacity(net.links());
        for l in 0..net.links() {
            let mut k = 0;
            while link_of.contains_key(&(net.src[l], net.dst[l], net.rail[l], k)) {
                k += 1;
            }
            link_of.insert((net.src[l], net.dst[l], net.rail[l], k), l as u32);
            parallel_index.push(k);
        }
        let mut g = NodeTranslations {
            grid: Grid::of(plant),
            link_of,
            parallel_index,
            orbit_of_link: Vec::new(),
            orbit_capacity_bps: Vec::new(),
        };
        // Invariance under the two generators implies it under the whole group.
        for l in 0..net.links() as u32 {
            for step in [(1, 0), (0, 1)] {
                let image = g.translate_link(net, l, step);
                let same = image.is_some_and(|t| {
                    let (a, b) = (l as usize, t as usize);
                    net.class[a] == net.class[b]
                        && net.bandwidth_bps[a] == net.bandwidth_bps[b]
                        && net.latency_s[a] == net.latency_s[b]
                });
                if !same {
                    return Err(not_symmetric(format!(
                        "link {l} ({} -> {}, {}) has no identical translate by {step:?}",
                        net.src[l as usize],
                        net.dst[l as usize],
                        net.class[l as usize].name()
                    )));
                }
            }
        }
        let mut orbit_of_link = vec![u32::MAX; net.links()];
        let mut capacity = Vec::new();
        for (l, orbit) in orbit_of_link.iter_mut().enumerate() {
            if net.src[l] < g.grid.per_node {
                *orbit = capacity.len() as u32;
                capacity.push(net.bandwidth_bps[l]);
            }
        }
        for l in 0..net.links() as u32 {
            let (x, y) = g.grid.node_xy(net.src[l as usize]);
            let back = ((g.grid.p - x) % g.grid.p, (g.grid.q - y) % g.grid.q);
            let rep = g
                .translate_link(net, l, back)
                .expect("an invariant network holds every translate");
            orbit_of_link[l as usize] = orbit_of_link[rep as usize];
        }
        g.orbit_of_link = orbit_of_link;
        g.orbit_capacity_bps = capacity;
        Ok(g)
    }

    /// Number of translations, P*Q: the size of every orbit.
    pub fn order(&self) -> u64 {
        self.grid.order() as u64
    }

    pub fn orbit_of_link(&self) -> &[u32] {
        &self.orbit_of_link
    }

    pub fn orbit_capacity_bps(&self) -> &[f64] {
        &self.orbit_capacity_bps
    }

    /// Chip `chip` moved by `(dx, dy)` nodes.
    pub fn translate(&self, chip: u32, step: (u32, u32)) -> u32 {
        self.grid.translate(chip, step)
    }

    fn translate_link(&self, net: &Network, l: u32, step: (u32, u32)) -> Option<u32> {
        let i = l as usize;
        let key = (
            self.translate(net.src[i], step),
            self.translate(net.dst[i], step),
            net.rail[i],
            self.parallel_index[i],
        );
        self.link_of.get(&key).copied()
    }

    /// Checks that `routing` routes translated pairs on translated links, on up to `samples`
    /// of `pairs` (evenly spread), each moved by a translation derived from its index.
    pub fn check_equivariance(
        &self,
        net: &Network,
        routing: &dyn Routing,
        pairs: &[(u32, u32)],
        samples: usize,
    ) -> Result<()> {
        if pairs.is_empty() || self.order() == 1 {
            return Ok(());
        }
        let stride = pairs.len().div_ceil(samples.max(1));
        let (mut a, mut b) = (Walker::default(), Walker::default());
        let identity: Vec<u32> = (0..net.links() as u32).collect();
        for (i, &(s, d)) in pairs.iter().enumerate().step_by(stride) {
            let k = 1 + (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) % (self.order() - 1);
            let p = self.grid.p as u64;
            let g = ((k % p) as u32, (k / p) as u32);
            let lat_a = a.walk(routing, &net.latency_s, s, d)?;
            let moved: Vec<(u32, f64)> = {
                let mut v: Vec<(u32, f64)> = a
                    .incidence(&identity)
                    .iter()
                    .map(|&(l, share)| (self.translate_link(net, l, g).unwrap_or(u32::MAX), share))
                    .collect();
                v.sort_unstable_by_key(|e| e.0);
                v
            };
            let (ts, td) = (self.translate(s, g), self.translate(d, g));
            let lat_b = b.walk(routing, &net.latency_s, ts, td)?;
            let got = b.incidence(&identity);
            let same_links = got.len() == moved.len()
                && got
                    .iter()
                    .zip(&moved)
                    .all(|(x, y)| x.0 == y.0 && (x.1 - y.1).abs() <= 1e-12);
            if !same_links || lat_a != lat_b {
                return Err(not_symmetric(format!(
                    "the routing function's route {ts} -> {td} is not the translate of {s} -> {d}"
                )));
            }
        }
        Ok(())
    }
}

fn not_symmetric(why: String) -> RailxError {
    RailxError::invalid(
        "aggregate",
        "node translations",
        format!("the network is not invariant under translations of its node grid: {why}"),
        "aggregate only torus (ring-dimension) RailX networks, or simulate the full message DAG",
    )
}

/// A message DAG invariant under the node translations, stored as one representative message
/// per orbit. Representative i stands for the `P*Q` messages `g.i` (its translates); a
/// dependency of i on j means: every translate of i waits for one translate of j — which one does
/// not change any time (module docs, point 3), `expand` picks the one arriving at i's source
/// node. Sizes and delays are those of every member.
#[derive(Debug, Clone, PartialEq)]
pub struct SymmetricDag {
    pub representatives: MessageDag,
}

impl SymmetricDag {
    pub fn new(representatives: MessageDag) -> SymmetricDag {
        SymmetricDag { representatives }
    }

    /// Messages the DAG stands for: representatives times the grid's node count.
    pub fn represented(&self, plant: &Plant) -> u64 {
        self.representatives.len() as u64 * plant.nodes() as u64
    }

    /// The full DAG: translate `g` of representative i is message `i * P*Q + (dY*P + dX)`; it
    /// waits for the translate of each dependency j that arrives at its own source node.
    pub fn expand(&self, plant: &Plant) -> Result<MessageDag> {
        let g = Grid::of(plant);
        let reps = &self.representatives;
        let order = g.order();
        let mut full = MessageDag::new();
        let mut after = Vec::new();
        for i in 0..reps.len() {
            for k in 0..order {
                let t = (k % plant.p, k / plant.p);
                let src = g.translate(reps.src(i), t);
                after.clear();
                for &j in reps.after(i) {
                    // The translate of j whose destination node is src's node.
                    let shift = g.offset(reps.dst(j), src);
                    after.push(j * order + shift.1 * plant.p + shift.0);
                }
                full.push(
                    src,
                    g.translate(reps.dst(i), t),
                    reps.bytes(i),
                    reps.delay_s(i),
                    &after,
                )?;
            }
        }
        Ok(full)
    }
}

/// Node-grid arithmetic without the network (for expanding DAGs and checking that schedules are
/// invariant).
pub(crate) struct Grid {
    p: u32,
    q: u32,
    per_node: u32,
}

impl Grid {
    pub(crate) fn of(plant: &Plant) -> Grid {
        Grid {
            p: plant.p,
            q: plant.q,
            per_node: plant.chips_per_node(),
        }
    }

    fn order(&self) -> u32 {
        self.p * self.q
    }

    fn node_xy(&self, chip: u32) -> (u32, u32) {
        let node = chip / self.per_node;
        (node % self.p, node / self.p)
    }

    fn offset(&self, from: u32, to: u32) -> (u32, u32) {
        let (a, b) = (self.node_xy(from), self.node_xy(to));
        ((b.0 + self.p - a.0) % self.p, (b.1 + self.q - a.1) % self.q)
    }

    pub(crate) fn translate(&self, chip: u32, (dx, dy): (u32, u32)) -> u32 {
        let (x, y) = self.node_xy(chip);
        let node = ((y + dy) % self.q) * self.p + (x + dx) % self.p;
        node * self.per_node + chip % self.per_node
    }
}

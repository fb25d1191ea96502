//! Translations of a RailX node grid — the whole group or a subgroup of it — and message DAGs
//! invariant under them.
//!
//! A translation `g = (dX, dY)` moves chip `(X, Y, x, y)` to `((X+dX) mod P, (Y+dY) mod Q, x, y)`.
//! The translations form the group `G = Z_P x Z_Q`; aggregation works over any subgroup `H` of
//! it, given by generators (`Translations`): the whole group, or e.g. the translations by whole
//! rows of nodes `(0, dY)`, under which a ring over all chips in chip-id order is invariant (a
//! shift by one row adds `P * chips per node` to every chip id mod N: a rotation of the ring)
//! while it is not under `G`. `H` maps the network onto itself when every link's translate by
//! each generator is a link of the same class, rail, bandwidth and latency — true of a torus
//! built from ring dimensions, whose rings join nodes in index order with wrap-around, and
//! checked here link by link, never assumed. Any translation other than the identity moves every
//! node, so `H` acts freely on chips, hence on links and on messages: every orbit has exactly
//! `|H|` members. Each orbit of chips meets the *fundamental domain* (the least node of every
//! coset `n + H`, with all its chips) exactly once; the representatives are the messages whose
//! source lies in it (for `G`: node 0; for `(0, dY)`: the nodes of row 0).
//!
//! Exactness of the aggregated simulation (one representative flow per orbit of messages, one
//! resource per orbit of links, each resource with ONE link's capacity), for any subgroup `H`:
//!
//! 1. Invariance. Let the network be invariant under `H`, the routing equivariant (for g in H,
//!    the route of `g.s -> g.d` is the translate of the route of `s -> d`) and the message DAG
//!    invariant (message `g.i` exists for every message i and g in H, with the same bytes and
//!    delay, and waits for the translates of what i waits for). Max-min fair rates are unique,
//!    and the translate of a max-min fair allocation is again feasible and max-min fair, so at
//!    every instant `rate(g.f) = rate(f)`. By induction over events (every event time and every
//!    set of flows starting or finishing at it is invariant) all members of an orbit start, run
//!    at the same rate and finish at the same times.
//! 2. Loads. Count the crossings between a flow orbit F and a link orbit L two ways: the `|H|`
//!    flows of F each cross L `c(F, L)` times (c as seen on the representative path), and each of
//!    the `|H|` links of L is crossed by the same number of flows of F (invariance), so each link
//!    of L carries `c(F, L) * rate(F)` from F. The load of any link of L is therefore
//!    `sum_F c(F, L) rate(F)` — the load of resource L in the aggregated problem, whose capacity
//!    is one link's. Progressive filling on the aggregated problem therefore raises the same
//!    levels and saturates the same orbits at the same levels as on the full network: the rates,
//!    and so every event time, are the same (up to floating-point rounding of the sums).
//! 3. Dependencies. Because all members of an orbit arrive at the same time, a message's start
//!    depends only on which orbits it waits for, not on which member: the representative DAG
//!    names dependencies by orbit (`SymmetricDag`), and any invariant way of picking the member
//!    (see `SymmetricDag::expand`) has the same timing.
//!
//! What a subgroup changes: only `|H|` in place of `P*Q` in point 2, the invariance required of
//! network, routing and DAG (under `H` only, which is weaker), and which member of an orbit a
//! dependency can name in `expand`. Under `G` some member of every orbit arrives at any node;
//! under `H` only the members of an orbit whose destination lies in the dependent's coset do.
//! Schedules (`collectives::symmetric`) only ever wait for a delivery to the sender (whose orbit
//! then has a member arriving at the sender: the builder credits it to the receiver's orbit) or
//! for the sender's own earlier send (its member with the same translation); `expand` picks the
//! member arriving at the sender where one exists and the same translate otherwise — both rules
//! commute with `H`, and by point 3 the timing does not depend on the choice.
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

/// A subgroup `H` of the translations of a node grid (module docs), with its elements and a
/// fundamental domain: pure grid arithmetic, no network.
#[derive(Debug, Clone, PartialEq)]
pub struct Translations {
    grid: Grid,
    generators: Vec<(u32, u32)>,
    /// The elements of H, the identity first.
    elements: Vec<(u32, u32)>,
    /// Per translation `dY*P + dX`: its index in `elements`, or `u32::MAX` when it is not in H.
    element_index: Vec<u32>,
    /// The fundamental domain: the least node of every coset, ascending.
    domain: Vec<u32>,
    /// Per node: the index of its coset's domain node, and the element moving that node onto it.
    coset_of_node: Vec<(u32, u32)>,
}

impl Translations {
    /// The subgroup of `plant`'s node translations generated by `generators` (each `(dX, dY)`
    /// with `dX < P`, `dY < Q`).
    pub fn generated(plant: &Plant, generators: &[(u32, u32)]) -> Result<Translations> {
        let grid = Grid::of(plant);
        if let Some(&g) = generators.iter().find(|g| g.0 >= grid.p || g.1 >= grid.q) {
            return Err(RailxError::invalid(
                "generators",
                format!("{g:?}"),
                format!(
                    "a translation (dX, dY) of a {} x {} node grid has dX < {} and dY < {}",
                    grid.p, grid.q, grid.p, grid.q
                ),
                "e.g. [(1, 0), (0, 1)] for every translation, [(0, 1)] for whole rows",
            ));
        }
        let order = grid.order() as usize;
        let index = |(dx, dy): (u32, u32)| (dy * grid.p + dx) as usize;
        let mut element_index = vec![u32::MAX; order];
        let mut elements = vec![(0, 0)];
        element_index[0] = 0;
        // Closure under the generators (a finite group: sums of generators are all of H).
        let mut next = 0;
        while next < elements.len() {
            let (x, y) = elements[next];
            for &(dx, dy) in generators {
                let e = ((x + dx) % grid.p, (y + dy) % grid.q);
                if element_index[index(e)] == u32::MAX {
                    element_index[index(e)] = elements.len() as u32;
                    elements.push(e);
                }
            }
            next += 1;
        }
        let mut domain = Vec::new();
        let mut coset_of_node = vec![(u32::MAX, 0); order];
        for node in 0..order as u32 {
            if coset_of_node[node as usize].0 != u32::MAX {
                continue;
            }
            let (x, y) = (node % grid.p, node / grid.p);
            for (k, &(dx, dy)) in elements.iter().enumerate() {
                let member = ((y + dy) % grid.q) * grid.p + (x + dx) % grid.p;
                coset_of_node[member as usize] = (domain.len() as u32, k as u32);
            }
            domain.push(node);
        }
        Ok(Translations {
            grid,
            generators: generators.to_vec(),
            elements,
            element_index,
            domain,
            coset_of_node,
        })
    }

    /// Every translation of the grid (generated by (1, 0) and (0, 1)).
    pub fn whole(plant: &Plant) -> Translations {
        Translations::generated(plant, &[(1 % plant.p, 0), (0, 1 % plant.q)])
            .expect("unit steps are translations of every grid")
    }

    /// The translations by whole rows of nodes, `(0, dY)` (generated by (0, 1)).
    pub fn whole_rows(plant: &Plant) -> Translations {
        Translations::generated(plant, &[(0, 1 % plant.q)])
            .expect("unit steps are translations of every grid")
    }

    /// |H|: the size of every orbit.
    pub fn order(&self) -> u64 {
        self.elements.len() as u64
    }

    pub fn generators(&self) -> &[(u32, u32)] {
        &self.generators
    }

    /// Whether this group acts on `plant`'s node grid.
    pub fn fits(&self, plant: &Plant) -> bool {
        self.grid == Grid::of(plant)
    }

    /// Chips in the fundamental domain: one per orbit of chips.
    pub fn domain_chips(&self) -> u32 {
        self.domain.len() as u32 * self.grid.per_node
    }

    /// The `slot`-th chip of the fundamental domain (ascending chip ids).
    pub fn domain_chip(&self, slot: u32) -> u32 {
        let per = self.grid.per_node;
        self.domain[(slot / per) as usize] * per + slot % per
    }

    /// The slot of the domain chip in `chip`'s orbit, and the element moving it onto `chip`.
    pub fn member(&self, chip: u32) -> (u32, u32) {
        let per = self.grid.per_node;
        let (coset, k) = self.coset_of_node[(chip / per) as usize];
        (coset * per + chip % per, k)
    }

    /// Chip `chip` moved by the element of index `k`.
    pub fn translate(&self, chip: u32, k: u32) -> u32 {
        self.grid.translate(chip, self.elements[k as usize])
    }

    /// Chip `chip` moved by `step`, any translation of the grid.
    pub(crate) fn translate_by(&self, chip: u32, step: (u32, u32)) -> u32 {
        self.grid.translate(chip, step)
    }

    /// The element moving `from`'s node onto `to`'s, if it is in H.
    fn between(&self, from: u32, to: u32) -> Option<u32> {
        let (dx, dy) = self.grid.offset(from, to);
        let k = self.element_index[(dy * self.grid.p + dx) as usize];
        (k != u32::MAX).then_some(k)
    }
}

/// A subgroup of a RailX network's node translations, with the network's link orbits under it.
#[allow(non_snake_case)]
pub struct LinkOrbits {
    group: Translations,
    /// (src, dst, rail, k) -> the k-th link with those ends on that rail (k > 0 only for a
    /// ring of two nodes on a one-chip mesh, whose two circuits join the same two chips).
    link_of: FxHashMap<(u32, u32, u32, u32), u32>,
    /// k of every link.
    parallel_index: Vec<u32>,
    /// Orbit of every link; orbits are numbered in the order of their links leaving the
    /// fundamental domain.
    orbit_of_link: Vec<u32>,
    /// The capacity of each orbit's links (one link's bandwidth).
    orbit_capacity_Bps: Vec<f64>,
}

impl LinkOrbits {
    /// The orbits of `net`'s links under `group`; an error when the network is not invariant
    /// under it (a peer topology, an all-to-all dimension whose rails are not circulant, or a
    /// group of another grid).
    pub fn of(net: &Network, group: &Translations) -> Result<LinkOrbits> {
        let plant: &Plant = net.railx_plant()?;
        if !group.fits(plant) {
            return Err(not_symmetric(format!(
                "the translations are of another node grid than its {} x {} nodes of {} chips",
                plant.p,
                plant.q,
                plant.chips_per_node()
            )));
        }
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
        let mut orbits = LinkOrbits {
            group: group.clone(),
            link_of,
            parallel_index,
            orbit_of_link: Vec::new(),
            orbit_capacity_Bps: Vec::new(),
        };
        // Invariance under the generators implies it under the whole subgroup.
        for l in 0..net.links() as u32 {
            for &step in group.generators() {
                let image = orbits.translate_link(net, l, step);
                let same = image.is_some_and(|t| {
                    let (a, b) = (l as usize, t as usize);
                    net.class[a] == net.class[b]
                        && net.bandwidth_Bps[a] == net.bandwidth_Bps[b]
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
            if group.member(net.src[l]).1 == 0 {
                *orbit = capacity.len() as u32;
                capacity.push(net.bandwidth_Bps[l]);
            }
        }
        for l in 0..net.links() as u32 {
            // The translate of l leaving the fundamental domain (by an element of H).
            let src = net.src[l as usize];
            let shift = group
                .grid
                .offset(src, group.domain_chip(group.member(src).0));
            let rep = orbits
                .translate_link(net, l, shift)
                .expect("an invariant network holds every translate");
            orbit_of_link[l as usize] = orbit_of_link[rep as usize];
        }
        orbits.orbit_of_link = orbit_of_link;
        orbits.orbit_capacity_Bps = capacity;
        Ok(orbits)
    }

    /// |H|: the size of every orbit.
    pub fn order(&self) -> u64 {
        self.group.order()
    }

    pub fn orbit_of_link(&self) -> &[u32] {
        &self.orbit_of_link
    }

    #[allow(non_snake_case)]
    pub fn orbit_capacity_Bps(&self) -> &[f64] {
        &self.orbit_capacity_Bps
    }

    fn translate_link(&self, net: &Network, l: u32, step: (u32, u32)) -> Option<u32> {
        let i = l as usize;
        let key = (
            self.group.grid.translate(net.src[i], step),
            self.group.grid.translate(net.dst[i], step),
            net.rail[i],
            self.parallel_index[i],
        );
        self.link_of.get(&key).copied()
    }

    /// Checks that `routing` routes translated pairs on translated links, on up to `samples`
    /// of `pairs` (evenly spread), each moved by an element of H derived from its index.
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
            let g = self.group.elements[k as usize];
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
            let (ts, td) = (
                self.group.grid.translate(s, g),
                self.group.grid.translate(d, g),
            );
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

/// A message DAG invariant under a group H of node translations, stored as one representative
/// message per orbit. Representative i stands for the `|H|` messages `g.i` (its translates); a
/// dependency of i on j means: every translate of i waits for one translate of j — which one
/// does not change any time (module docs, point 3); `expand` picks the one arriving at i's
/// source node, or the same translate when no member of j arrives there. Sizes and delays are
/// those of every member.
#[derive(Debug, Clone, PartialEq)]
pub struct SymmetricDag {
    pub representatives: MessageDag,
    pub group: Translations,
}

impl SymmetricDag {
    pub fn new(representatives: MessageDag, group: Translations) -> SymmetricDag {
        SymmetricDag {
            representatives,
            group,
        }
    }

    /// Messages the DAG stands for: representatives times |H|.
    pub fn represented(&self) -> u64 {
        self.representatives.len() as u64 * self.group.order()
    }

    /// The full DAG: translate k (the k-th element of H) of representative i is message
    /// `i * |H| + k`; it waits for the translate of each dependency j that arrives at its own
    /// source node, or for j's translate k when none does.
    pub fn expand(&self) -> Result<MessageDag> {
        let h = &self.group;
        let reps = &self.representatives;
        let order = h.order() as u32;
        let mut full = MessageDag::new();
        let mut after = Vec::new();
        for i in 0..reps.len() {
            for k in 0..order {
                let src = h.translate(reps.src(i), k);
                after.clear();
                for &j in reps.after(i) {
                    let member = h.between(reps.dst(j), src).unwrap_or(k);
                    after.push(j * order + member);
                }
                full.push(
                    src,
                    h.translate(reps.dst(i), k),
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
#[derive(Debug, Clone, PartialEq)]
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

    /// The translation moving `from`'s node onto `to`'s.
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

//! Groups of network automorphisms acting freely on chips — RailX's node translations, a peer
//! family's declared symmetries — and message DAGs invariant under them.
//!
//! A group `H` is given by generators, each a permutation of the chips (`Generator`); the
//! generators must commute and `H` must act freely on chips (every element other than the
//! identity moves every chip), both checked when the group is built (`Symmetry::new`): then `H`
//! is the product of the cyclic groups of its generators, an element is a vector of exponents
//! (numbered in mixed radix, the identity first), and every orbit of chips has exactly `|H|`
//! members. Its *fundamental domain* is the least chip of every orbit; the representatives of a
//! DAG are the messages whose source lies in it.
//!
//! Instances: RailX's translations `g = (dX, dY)`, moving chip `(X, Y, x, y)` to
//! `((X+dX) mod P, (Y+dY) mod Q, x, y)` (`Symmetry::generated`: every translation, or a
//! subgroup such as the whole rows `(0, dY)`), and each peer family's generators
//! (`PeerBuilder::symmetry`: cube translations of a 3D torus, board translations of a
//! HammingMesh, HB-domain rotations and leaf shifts of Rail-only's rails, leaf shifts and
//! rotations of a fat-tree). On a network with packet switches, a generator's action on the
//! switches is derived from its action on chips (`lift`: tier by tier, a switch goes to the
//! switch whose lower neighbours are the images of its own, twins in order), and `LinkOrbits`
//! checks link by link that the resulting vertex permutation maps every link onto a link of the
//! same class, rail, bandwidth and latency, never assuming it.
//!
//! Exactness of the aggregated simulation (one representative flow per orbit of messages, one
//! resource per orbit of links), for any such group `H`:
//!
//! 1. Invariance. Let the network be invariant under `H`, the routing equivariant (for g in H,
//!    the route of `g.s -> g.d` is the image of the route of `s -> d`) and the message DAG
//!    invariant (message `g.i` exists for every message i and g in H, with the same bytes and
//!    delay, and waits for the images of what i waits for). Max-min fair rates are unique,
//!    and the image of a max-min fair allocation is again feasible and max-min fair, so at
//!    every instant `rate(g.f) = rate(f)`. By induction over events (every event time and every
//!    set of flows starting or finishing at it is invariant) all members of an orbit start, run
//!    at the same rate and finish at the same times.
//! 2. Loads. `H` acts freely on chips, so every orbit F of messages has `|H|` members; an orbit
//!    L of links has `|L|` members, `|H|` when H acts freely on links (always on a network of
//!    chips only, where a link moves with its source chip) and fewer when some element fixes a
//!    link (two switches fixed by it, e.g. a fat-tree's top tier under a leaf shift). Count the
//!    crossings of L by F two ways: the `|H|` flows of F each cross L `c(F, L)` times (c as seen
//!    on the representative path), and each of the `|L|` links of L is crossed equally often
//!    (invariance), so each link of L carries `(|H| / |L|) c(F, L) rate(F)` from F. A link of L
//!    is within its bandwidth `b` exactly when `sum_F c(F, L) rate(F) <= b |L| / |H|`: resource
//!    L of the aggregated problem has capacity `b |L| / |H|` (one link's bandwidth when the
//!    action on L is free). Progressive filling on the aggregated problem therefore raises the
//!    same levels and saturates the same orbits at the same levels as on the full network: the
//!    rates, and so every event time, are the same (up to floating-point rounding of the sums).
//! 3. Dependencies. Because all members of an orbit arrive at the same time, a message's start
//!    depends only on which orbits it waits for, not on which member: the representative DAG
//!    names dependencies by orbit (`SymmetricDag`), and any invariant way of picking the member
//!    (see `SymmetricDag::expand`) has the same timing.
//!
//! A subgroup changes only `|H|`, the invariance required of network, routing and DAG (under the
//! subgroup only, which is weaker), and which member of an orbit a dependency can name in
//! `expand`. Under a group acting transitively some member of every orbit arrives at any chip;
//! under a smaller one only the members of an orbit whose destination lies in the dependent's
//! orbit do. Schedules (`collectives::symmetric`) only ever wait for a delivery to the sender
//! (whose orbit then has a member arriving at the sender: the builder credits it to the
//! receiver's orbit) or for the sender's own earlier send (its member with the same element);
//! `expand` picks the member arriving at the sender where one exists and the same element
//! otherwise — both rules commute with `H`, and by point 3 the timing does not depend on the
//! choice.
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

/// One generator of a symmetry group: a permutation of the chips, with a label for reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Generator {
    pub label: String,
    /// `chips[c]`: the image of chip c.
    pub chips: Vec<u32>,
}

impl Generator {
    /// The shift of one mixed-radix coordinate of the chip ids: the coordinate `i = (c / stride)
    /// mod extent` goes to `i'`, its block of `block` consecutive values (block divides extent)
    /// rotated by `step`: `i' = i - i mod block + (i mod block + step) mod block`. A torus
    /// translation is one block of the whole extent; a rotation inside a fat-tree leaf is blocks
    /// of the leaf's size.
    pub fn coordinate_shift(
        label: impl Into<String>,
        chips: u32,
        stride: u32,
        extent: u32,
        block: u32,
        step: u32,
    ) -> Generator {
        let image = |c: u32| {
            let i = (c / stride) % extent;
            let j = i - i % block + (i % block + step) % block;
            c - i * stride + j * stride
        };
        Generator {
            label: label.into(),
            chips: (0..chips).map(image).collect(),
        }
    }

    fn is_identity(&self) -> bool {
        self.chips.iter().enumerate().all(|(c, &g)| c as u32 == g)
    }
}

/// A finite abelian group H of permutations of the chips, given by commuting generators and
/// acting freely (module docs), with its fundamental domain: pure arithmetic on chip ids, no
/// network. RailX's node translations are `Translations`.
#[derive(Debug, Clone, PartialEq)]
pub struct Symmetry {
    /// What the elements are ("node translations", "board translations", ...), for messages.
    what: String,
    /// The node grid, for RailX's translations (a group of another grid is refused by name).
    grid: Option<Grid>,
    generators: Vec<Generator>,
    /// The order of each generator; H is the product of their cyclic groups.
    orders: Vec<u32>,
    /// The least chip of every orbit, ascending.
    domain: Vec<u32>,
    /// Per chip: the slot of its orbit's domain chip, and the element moving that chip onto it.
    member_of_chip: Vec<(u32, u32)>,
}

/// RailX's node translations: a `Symmetry` built by `Symmetry::generated`.
pub type Translations = Symmetry;

fn invalid_group(what: &str, rule: String) -> RailxError {
    RailxError::invalid(
        "symmetry",
        what,
        rule,
        "declare commuting generators of a group acting freely on chips (e.g. translations), or simulate the full message DAG",
    )
}

impl Symmetry {
    /// The group generated by `generators` (identities dropped); an error unless they are
    /// permutations of the same chips that commute and generate a group acting freely.
    pub fn new(what: impl Into<String>, generators: Vec<Generator>) -> Result<Symmetry> {
        Symmetry::with_grid(what.into(), None, generators)
    }

    fn with_grid(what: String, grid: Option<Grid>, generators: Vec<Generator>) -> Result<Symmetry> {
        let chips = generators.first().map_or(0, |g| g.chips.len());
        for g in &generators {
            let mut seen = vec![false; chips];
            let permutes = g.chips.len() == chips
                && g.chips.iter().all(|&c| {
                    (c as usize) < chips && !std::mem::replace(&mut seen[c as usize], true)
                });
            if !permutes {
                return Err(invalid_group(
                    &what,
                    format!(
                        "generator {} is not a permutation of {chips} chips",
                        g.label
                    ),
                ));
            }
        }
        let generators: Vec<Generator> = generators
            .into_iter()
            .filter(|g| !g.is_identity())
            .collect();
        for (i, a) in generators.iter().enumerate() {
            for b in &generators[i + 1..] {
                if (0..chips).any(|c| a.chips[b.chips[c] as usize] != b.chips[a.chips[c] as usize])
                {
                    return Err(invalid_group(
                        &what,
                        format!("generators {} and {} do not commute", a.label, b.label),
                    ));
                }
            }
        }
        let orders: Vec<u32> = generators
            .iter()
            .map(|g| {
                let (mut c, mut n) = (g.chips[0], 1);
                while c != 0 {
                    c = g.chips[c as usize];
                    n += 1;
                }
                n
            })
            .collect();
        let order: u64 = orders.iter().map(|&n| n as u64).product();
        let mut member_of_chip = vec![(u32::MAX, 0u32); chips];
        let mut domain = Vec::new();
        let mut queue = Vec::new();
        for root in 0..chips as u32 {
            if member_of_chip[root as usize].0 != u32::MAX {
                continue;
            }
            let slot = domain.len() as u32;
            domain.push(root);
            member_of_chip[root as usize] = (slot, 0);
            queue.clear();
            queue.push(root);
            let mut size = 0u64;
            while let Some(c) = queue.pop() {
                size += 1;
                let k = member_of_chip[c as usize].1;
                for (i, g) in generators.iter().enumerate() {
                    let image = g.chips[c as usize];
                    let next = step_element(&orders, k, i);
                    let seen = member_of_chip[image as usize];
                    if seen.0 == u32::MAX {
                        member_of_chip[image as usize] = (slot, next);
                        queue.push(image);
                    } else if seen != (slot, next) {
                        return Err(invalid_group(
                            &what,
                            format!("the group does not act freely: an element other than the identity fixes chip {image}"),
                        ));
                    }
                }
            }
            if size != order {
                return Err(invalid_group(
                    &what,
                    format!("the orbit of chip {root} has {size} chips, not the group's order {order}: the generators are not independent or the action is not free"),
                ));
            }
        }
        Ok(Symmetry {
            what,
            grid,
            generators,
            orders,
            domain,
            member_of_chip,
        })
    }

    /// The subgroup of `plant`'s node translations generated by `generators` (each `(dX, dY)`
    /// with `dX < P`, `dY < Q`, independent).
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
        let chips = plant.chips();
        let gens = generators
            .iter()
            .map(|&step| Generator {
                label: format!("{step:?}"),
                chips: (0..chips).map(|c| grid.translate(c, step)).collect(),
            })
            .collect();
        Symmetry::with_grid("node translations".into(), Some(grid), gens)
    }

    /// Every translation of the grid (generated by (1, 0) and (0, 1)).
    pub fn whole(plant: &Plant) -> Translations {
        Symmetry::generated(plant, &[(1 % plant.p, 0), (0, 1 % plant.q)])
            .expect("unit steps generate the translations of every grid")
    }

    /// The translations by whole rows of nodes, `(0, dY)` (generated by (0, 1)).
    pub fn whole_rows(plant: &Plant) -> Translations {
        Symmetry::generated(plant, &[(0, 1 % plant.q)])
            .expect("unit steps generate the translations of every grid")
    }

    /// The subgroup generated by the generators at `indices`.
    pub fn subgroup(&self, indices: &[usize]) -> Symmetry {
        let gens = indices
            .iter()
            .map(|&i| self.generators[i].clone())
            .collect();
        Symmetry::with_grid(self.what.clone(), self.grid.clone(), gens)
            .expect("a subset of independent commuting generators of a free action is one")
    }

    /// |H|: the size of every orbit of chips.
    pub fn order(&self) -> u64 {
        self.orders.iter().map(|&n| n as u64).product()
    }

    pub fn generators(&self) -> &[Generator] {
        &self.generators
    }

    /// The generators' labels, e.g. `["(0, 1)"]`.
    pub fn labels(&self) -> Vec<String> {
        self.generators.iter().map(|g| g.label.clone()).collect()
    }

    /// What the elements are, e.g. "node translations".
    pub fn what(&self) -> &str {
        &self.what
    }

    /// Chips the group permutes.
    pub fn chips(&self) -> u32 {
        self.member_of_chip.len() as u32
    }

    /// Chips in the fundamental domain: one per orbit of chips.
    pub fn domain_chips(&self) -> u32 {
        self.domain.len() as u32
    }

    /// The `slot`-th chip of the fundamental domain (ascending chip ids).
    pub fn domain_chip(&self, slot: u32) -> u32 {
        self.domain[slot as usize]
    }

    /// The slot of the domain chip in `chip`'s orbit, and the element moving it onto `chip`.
    pub fn member(&self, chip: u32) -> (u32, u32) {
        self.member_of_chip[chip as usize]
    }

    /// The exponent of each generator in element `k`.
    fn exponents(&self, mut k: u32) -> Vec<u32> {
        self.orders
            .iter()
            .map(|&n| {
                let e = k % n;
                k /= n;
                e
            })
            .collect()
    }

    /// Chip `chip` moved by the element of index `k`.
    pub fn translate(&self, chip: u32, k: u32) -> u32 {
        let mut c = chip;
        for (g, e) in self.generators.iter().zip(self.exponents(k)) {
            for _ in 0..e {
                c = g.chips[c as usize];
            }
        }
        c
    }

    /// Chip `chip` moved by generator `i`.
    pub(crate) fn apply_generator(&self, i: usize, chip: u32) -> u32 {
        self.generators[i].chips[chip as usize]
    }

    /// The element moving `from` onto `to`, if they lie in one orbit.
    fn between(&self, from: u32, to: u32) -> Option<u32> {
        let ((a, ka), (b, kb)) = (self.member(from), self.member(to));
        if a != b {
            return None;
        }
        let (ea, eb) = (self.exponents(ka), self.exponents(kb));
        let mut k = 0;
        for i in (0..self.orders.len()).rev() {
            let n = self.orders[i];
            k = k * n + (eb[i] + n - ea[i]) % n;
        }
        Some(k)
    }
}

/// The element index after one more step of generator `i` from element `k` (mixed radix).
fn step_element(orders: &[u32], k: u32, i: usize) -> u32 {
    let below: u32 = orders[..i].iter().product();
    let e = (k / below) % orders[i];
    let next = (e + 1) % orders[i];
    k - e * below + next * below
}

/// A symmetry group acting on a network, with the network's link orbits under it.
#[allow(non_snake_case)]
pub struct LinkOrbits {
    group: Symmetry,
    /// Per generator, the image of every link.
    link_images: Vec<Vec<u32>>,
    /// Orbit of every link; orbits are numbered in the order of their links leaving the
    /// fundamental domain, then of the first link of the others (links between switches).
    orbit_of_link: Vec<u32>,
    /// The capacity of each orbit's resource: one link's bandwidth times |L| / |H|.
    orbit_capacity_Bps: Vec<f64>,
}

impl LinkOrbits {
    /// The orbits of `net`'s links under `group`; an error when the network is not invariant
    /// under it (checked link by link), or the group acts on other chips or another node grid.
    pub fn of(net: &Network, group: &Symmetry) -> Result<LinkOrbits> {
        if let Some(grid) = &group.grid {
            let plant: &Plant = net.railx_plant()?;
            if *grid != Grid::of(plant) {
                return Err(not_symmetric(
                    group,
                    format!(
                        "the translations are of another node grid than its {} x {} nodes of {} chips",
                        plant.p,
                        plant.q,
                        plant.chips_per_node()
                    ),
                ));
            }
        }
        if group.chips() != net.chips() {
            return Err(not_symmetric(
                group,
                format!(
                    "the group permutes {} chips, the network has {}",
                    group.chips(),
                    net.chips()
                ),
            ));
        }
        let links = Links::of(net);
        let mut link_images = Vec::with_capacity(group.generators.len());
        let mut vertex_perms = Vec::with_capacity(group.generators.len());
        for g in &group.generators {
            let perm = lift(net, &links, &g.chips).ok_or_else(|| {
                not_symmetric(
                    group,
                    format!(
                        "no switch matches the image of a switch under {} (its lower neighbours' images attach to no switch alike)",
                        g.label
                    ),
                )
            })?;
            link_images.push(links.images(net, &perm, group, &g.label)?);
            vertex_perms.push(perm);
        }
        check_group_on_switches(net, group, &vertex_perms)?;
        let (orbit_of_link, capacity) = orbits(net, group, &link_images);
        Ok(LinkOrbits {
            group: group.clone(),
            link_images,
            orbit_of_link,
            orbit_capacity_Bps: capacity,
        })
    }

    /// |H|: the size of every orbit of chips.
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

    /// Link `l` moved by the element of index `k`.
    fn translate_link(&self, l: u32, k: u32) -> u32 {
        let mut l = l;
        for (images, e) in self.link_images.iter().zip(self.group.exponents(k)) {
            for _ in 0..e {
                l = images[l as usize];
            }
        }
        l
    }

    /// Checks that `routing` routes moved pairs on moved links, on up to `samples` of `pairs`
    /// (evenly spread), each moved by an element of H derived from its index.
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
            let k = k as u32;
            let lat_a = a.walk(routing, &net.latency_s, s, d)?;
            let mut moved: Vec<(u32, f64)> = a
                .incidence(&identity)
                .iter()
                .map(|&(l, share)| (self.translate_link(l, k), share))
                .collect();
            moved.sort_unstable_by_key(|e| e.0);
            let (ts, td) = (self.group.translate(s, k), self.group.translate(d, k));
            let lat_b = b.walk(routing, &net.latency_s, ts, td)?;
            let got = b.incidence(&identity);
            let same_links = got.len() == moved.len()
                && got
                    .iter()
                    .zip(&moved)
                    .all(|(x, y)| x.0 == y.0 && (x.1 - y.1).abs() <= 1e-12);
            if !same_links || lat_a != lat_b {
                return Err(not_symmetric(
                    &self.group,
                    format!(
                        "the routing function's route {ts} -> {td} is not the image of {s} -> {d}"
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn not_symmetric(group: &Symmetry, why: String) -> RailxError {
    let alternative = match group.grid {
        Some(_) => {
            "aggregate only torus (ring-dimension) RailX networks, or simulate the full message DAG"
        }
        None => "simulate the full message DAG (a smaller system), or use the analytic model",
    };
    RailxError::invalid(
        "aggregate",
        group.what.as_str(),
        format!(
            "the network is not invariant under {}: {why}",
            match group.grid {
                Some(_) => "translations of its node grid",
                None => group.what.as_str(),
            }
        ),
        alternative,
    )
}

/// A network's links by their ends, and each vertex's lower neighbours (for lifting).
struct Links {
    /// (src, dst, rail, k) -> the k-th link with those ends on that rail.
    link_of: FxHashMap<(u32, u32, u32, u32), u32>,
    /// k of every link.
    parallel_index: Vec<u32>,
    /// Hops from the nearest chip, per vertex.
    level: Vec<u32>,
}

impl Links {
    fn of(net: &Network) -> Links {
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
        let vertices = net.vertices() as usize;
        let mut out = vec![Vec::new(); vertices];
        for l in 0..net.links() {
            out[net.src[l] as usize].push(net.dst[l]);
        }
        let mut level = vec![u32::MAX; vertices];
        let mut queue: std::collections::VecDeque<u32> = (0..net.chips()).collect();
        level[..net.chips() as usize].fill(0);
        while let Some(v) = queue.pop_front() {
            for &w in &out[v as usize] {
                if level[w as usize] == u32::MAX {
                    level[w as usize] = level[v as usize] + 1;
                    queue.push_back(w);
                }
            }
        }
        Links {
            link_of,
            parallel_index,
            level,
        }
    }

    /// The image of every link under the vertex permutation `perm`; an error naming the first
    /// link without an identical image.
    fn images(
        &self,
        net: &Network,
        perm: &[u32],
        group: &Symmetry,
        label: &str,
    ) -> Result<Vec<u32>> {
        (0..net.links())
            .map(|a| {
                let key = (
                    perm[net.src[a] as usize],
                    perm[net.dst[a] as usize],
                    net.rail[a],
                    self.parallel_index[a],
                );
                let image = self.link_of.get(&key).copied();
                let same = image.is_some_and(|b| {
                    let b = b as usize;
                    net.class[a] == net.class[b]
                        && net.bandwidth_Bps[a] == net.bandwidth_Bps[b]
                        && net.latency_s[a] == net.latency_s[b]
                });
                match (image, same) {
                    (Some(b), true) => Ok(b),
                    _ => Err(not_symmetric(
                        group,
                        format!(
                            "link {a} ({} -> {}, {}) has no identical image under {label}",
                            net.src[a],
                            net.dst[a],
                            net.class[a].name()
                        ),
                    )),
                }
            })
            .collect()
    }
}

/// Extends a permutation of the chips to the switches, tier by tier (module docs): switch s goes
/// to the switch whose lower neighbours (with their rails, counted with multiplicity) are the
/// images of s's; among switches with equal lower neighbours (twins), the i-th goes to the i-th.
/// `None` when some image has no such switch. The result is checked link by link afterwards.
fn lift(net: &Network, links: &Links, chips: &[u32]) -> Option<Vec<u32>> {
    let vertices = net.vertices() as usize;
    let mut perm: Vec<u32> = chips.to_vec();
    perm.resize(vertices, u32::MAX);
    if vertices == chips.len() {
        return Some(perm);
    }
    let level = &links.level;
    let mut lower: Vec<Vec<(u32, u32)>> = vec![Vec::new(); vertices];
    for l in 0..net.links() {
        let (s, d) = (net.src[l] as usize, net.dst[l]);
        if s >= chips.len() && level[d as usize].checked_add(1) == Some(level[s]) {
            lower[s].push((d, net.rail[l]));
        }
    }
    let top = level[chips.len()..]
        .iter()
        .copied()
        .filter(|&l| l != u32::MAX)
        .max()
        .unwrap_or(0);
    for tier in 1..=top {
        let switches: Vec<usize> = (chips.len()..vertices)
            .filter(|&v| level[v] == tier)
            .collect();
        let mut twins: FxHashMap<Vec<(u32, u32)>, Vec<u32>> = FxHashMap::default();
        let mut twin_index = vec![0usize; vertices];
        for &s in &switches {
            lower[s].sort_unstable();
            let list = twins.entry(lower[s].clone()).or_default();
            twin_index[s] = list.len();
            list.push(s as u32);
        }
        for &s in &switches {
            let mut key: Vec<(u32, u32)> = lower[s]
                .iter()
                .map(|&(v, rail)| (perm[v as usize], rail))
                .collect();
            key.sort_unstable();
            perm[s] = *twins.get(&key)?.get(twin_index[s])?;
        }
    }
    // Switches no chip reaches are left out of any group.
    perm.iter().all(|&v| v != u32::MAX).then_some(perm)
}

/// The lifted generators must still commute and have the generators' orders on the switches,
/// so that the group acting on the network is H itself.
fn check_group_on_switches(net: &Network, group: &Symmetry, perms: &[Vec<u32>]) -> Result<()> {
    let switches = net.chips() as usize..net.vertices() as usize;
    for (i, a) in perms.iter().enumerate() {
        let mut power: Vec<u32> = (0..net.vertices()).collect();
        for _ in 0..group.orders[i] {
            power = power.iter().map(|&v| a[v as usize]).collect();
        }
        let returns = switches.clone().all(|v| power[v] == v as u32);
        let commutes = perms[i + 1..].iter().all(|b| {
            switches
                .clone()
                .all(|v| a[b[v] as usize] == b[a[v] as usize])
        });
        if !returns || !commutes {
            return Err(not_symmetric(
                group,
                format!(
                    "the action of {} on the switches does not match its action on the chips",
                    group.generators[i].label
                ),
            ));
        }
    }
    Ok(())
}

/// The orbit of every link under the generators' link images, and each orbit's capacity.
fn orbits(net: &Network, group: &Symmetry, images: &[Vec<u32>]) -> (Vec<u32>, Vec<f64>) {
    let links = net.links();
    let mut orbit_of_link = vec![u32::MAX; links];
    let mut members = Vec::new();
    let mut stack = Vec::new();
    let chips = net.chips();
    let leaves_domain = |l: usize| net.src[l] < chips && group.member(net.src[l]).1 == 0;
    let first = (0..links).filter(|&l| leaves_domain(l));
    let rest = (0..links).filter(|&l| !leaves_domain(l));
    for root in first.chain(rest) {
        if orbit_of_link[root] != u32::MAX {
            continue;
        }
        let orbit = members.len() as u32;
        orbit_of_link[root] = orbit;
        stack.push(root as u32);
        let mut size = 0u64;
        while let Some(l) = stack.pop() {
            size += 1;
            for g in images {
                let m = g[l as usize];
                if orbit_of_link[m as usize] == u32::MAX {
                    orbit_of_link[m as usize] = orbit;
                    stack.push(m);
                }
            }
        }
        members.push((root, size));
    }
    let order = group.order();
    let capacity = members
        .iter()
        .map(|&(l, size)| {
            let bw = net.bandwidth_Bps[l];
            if size == order {
                bw
            } else {
                bw * size as f64 / order as f64
            }
        })
        .collect();
    (orbit_of_link, capacity)
}

/// A message DAG invariant under a group H of automorphisms, stored as one representative
/// message per orbit. Representative i stands for the `|H|` messages `g.i` (its images); a
/// dependency of i on j means: every image of i waits for one image of j — which one does not
/// change any time (module docs, point 3); `expand` picks the one arriving at i's source chip,
/// or the same element's image when no member of j arrives there. Sizes and delays are those of
/// every member.
#[derive(Debug, Clone, PartialEq)]
pub struct SymmetricDag {
    pub representatives: MessageDag,
    pub group: Symmetry,
}

impl SymmetricDag {
    pub fn new(representatives: MessageDag, group: Symmetry) -> SymmetricDag {
        SymmetricDag {
            representatives,
            group,
        }
    }

    /// Messages the DAG stands for: representatives times |H|.
    pub fn represented(&self) -> u64 {
        self.representatives.len() as u64 * self.group.order()
    }

    /// The full DAG: image k (under the k-th element of H) of representative i is message
    /// `i * |H| + k`; it waits for the image of each dependency j that arrives at its own source
    /// chip, or for j's image k when none does.
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

/// Node-grid arithmetic of a RailX plant (its translations).
#[derive(Debug, Clone, PartialEq)]
struct Grid {
    p: u32,
    q: u32,
    per_node: u32,
}

impl Grid {
    fn of(plant: &Plant) -> Grid {
        Grid {
            p: plant.p,
            q: plant.q,
            per_node: plant.chips_per_node(),
        }
    }

    fn translate(&self, chip: u32, (dx, dy): (u32, u32)) -> u32 {
        let node = chip / self.per_node;
        let (x, y) = (node % self.p, node / self.p);
        let node = ((y + dy) % self.q) * self.p + (x + dx) % self.p;
        node * self.per_node + chip % self.per_node
    }
}

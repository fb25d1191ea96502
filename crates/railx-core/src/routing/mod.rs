//! Routing functions and their analyses (docs/routing.md).
//!
//! A routing function is algorithmic (no all-pairs table): given the chip a packet is at, its
//! destination and the routing state it carries, it lists the allowed next hops, each an output
//! link, the virtual channel to use on it and the state after it. Deterministic functions give
//! one hop; adaptive ones several. The deadlock check and the route analysis work on any
//! function through this interface, and the simulators use the same functions.

pub mod analysis;
pub mod channel_graph;
pub mod deadlock;
pub mod dragonfly;
pub mod hammingmesh;
pub mod hyperx;
pub mod logical;
pub mod peer;
pub mod rail_only;
pub mod railx;
pub mod shortest_path;
pub mod sipac;
pub mod torus;
pub mod updown;

use crate::network::{LinkClass, Network};

/// Both ends of every link, and which links count as external (optical, Ho) hops.
pub struct LinkEnds {
    /// (source, target) side by side: a route step reads both ends of the link it takes, and
    /// on large networks each read of a link is a cache miss (a 65,536-chip all-to-all walks
    /// about 60M hops over half a million links).
    ends: Vec<[u32; 2]>,
    external: Vec<bool>,
}

impl LinkEnds {
    /// The network's links; `external` says which link classes are external hops.
    pub fn of(net: &Network, external: impl Fn(LinkClass) -> bool) -> LinkEnds {
        LinkEnds {
            ends: net
                .src
                .iter()
                .zip(&net.dst)
                .map(|(&a, &b)| [a, b])
                .collect(),
            external: net.class.iter().map(|&c| external(c)).collect(),
        }
    }

    /// The number of links.
    pub fn count(&self) -> usize {
        self.ends.len()
    }

    /// The chip a link leaves from.
    pub fn source(&self, link: u32) -> u32 {
        self.ends[link as usize][0]
    }

    /// The chip a link leads to.
    pub fn target(&self, link: u32) -> u32 {
        self.ends[link as usize][1]
    }

    /// The chips a link leaves from and leads to.
    pub fn ends(&self, link: u32) -> [u32; 2] {
        self.ends[link as usize]
    }
}

/// Every vertex's outgoing links as (target, link), sorted by target.
pub struct Adjacency {
    out: Vec<Vec<(u32, u32)>>,
}

impl Adjacency {
    pub fn of(net: &Network) -> Adjacency {
        let mut out = vec![Vec::new(); net.vertices() as usize];
        for link in 0..net.links() {
            out[net.src[link] as usize].push((net.dst[link], link as u32));
        }
        for list in &mut out {
            list.sort_unstable();
        }
        Adjacency { out }
    }

    /// Outgoing (target, link) pairs of a vertex.
    pub fn from(&self, vertex: u32) -> &[(u32, u32)] {
        &self.out[vertex as usize]
    }

    /// The first link from `a` to `b`, if any.
    pub fn link_to(&self, a: u32, b: u32) -> Option<u32> {
        self.links_to(a, b).next()
    }

    /// Every (parallel) link from `a` to `b`, in link order.
    pub fn links_to(&self, a: u32, b: u32) -> impl Iterator<Item = u32> + '_ {
        let list = self.from(a);
        let first = list.partition_point(|e| e.0 < b);
        list[first..]
            .iter()
            .take_while(move |e| e.0 == b)
            .map(|e| e.1)
    }
}

/// Marks "no link chosen yet" in a routing state.
pub const NO_LINK: u32 = u32::MAX;

/// What a packet carries between hops for the routing function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RouteState {
    /// The inter-node link this node's mesh traversal is heading for (`NO_LINK` when none yet).
    pub exit: u32,
    /// Inter-node hops taken so far.
    pub hops: u8,
    /// Non-minimal inter-node hops taken so far.
    pub misroutes: u8,
    /// Virtual channel the packet holds now (kept across the mesh of one node).
    pub vc: u8,
    /// Logical dimension of the last inter-node hop (`NO_DIM` before the first).
    pub dim: u8,
    /// Where the packet is bound before its destination (`NO_VIA` when nowhere): Valiant's
    /// intermediate switch or group, or the chip that a climb through a switched tree lands on.
    pub via: u32,
    /// The axis order of the RailX mesh crossing under way (`Unchosen` between crossings).
    pub mesh: MeshOrder,
}

/// The order in which a crossing of a RailX node's mesh corrects its axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MeshOrder {
    /// Not chosen yet: the next mesh hop starts a crossing (taken XY by every scheme but
    /// `balanced`, which may also take it YX).
    #[default]
    Unchosen,
    Xy,
    Yx,
}

/// Marks "no waypoint" in a routing state.
pub const NO_VIA: u32 = u32::MAX;

/// Marks "no inter-node hop yet" in a routing state.
pub const NO_DIM: u8 = u8::MAX;

/// Hashed as two words (the deadlock check hashes a state per route step, and field-by-field
/// hashing of seven fields costs a quarter of its time on large tori); injective, so consistent
/// with `Eq`.
impl std::hash::Hash for RouteState {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let mesh = match self.mesh {
            MeshOrder::Unchosen => 0u64,
            MeshOrder::Xy => 1,
            MeshOrder::Yx => 2,
        };
        h.write_u64(
            (self.exit as u64) << 32
                | (self.hops as u64) << 24
                | (self.misroutes as u64) << 16
                | (self.vc as u64) << 8
                | self.dim as u64,
        );
        h.write_u64((self.via as u64) << 8 | mesh);
    }
}

impl RouteState {
    pub fn start() -> RouteState {
        RouteState {
            exit: NO_LINK,
            hops: 0,
            misroutes: 0,
            vc: 0,
            dim: NO_DIM,
            via: NO_VIA,
            mesh: MeshOrder::Unchosen,
        }
    }
}

/// One allowed next hop: traverse `link` on virtual channel `vc`, then carry `state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub link: u32,
    pub vc: u8,
    pub state: RouteState,
}

/// How a simulator picks among several allowed next hops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// By downstream credits (the least occupied next VC class), the first listed hop winning
    /// ties, so minimal hops, listed first, are preferred while uncongested.
    Adaptive,
    /// By downstream credits as `Adaptive`, ties going round-robin: a router lists the hops of
    /// each packet it routes from the next one on. For routings whose hops are all equally good
    /// (ECMP over a fat-tree's up links), where the first listed would take every packet that
    /// finds the hops idle.
    Balanced,
    /// Uniformly at random with the simulator's seeded generator (e.g. Valiant's intermediate).
    Random,
}

/// The interface every routing function offers.
pub trait Routing: Sync {
    /// Name as given on the command line (`minimal`, `dateline`, `adaptive`, ...).
    fn name(&self) -> &'static str;
    /// Virtual channels the function may use (ids `0..vcs`).
    fn vcs(&self) -> u8;
    /// The chips this function routes between.
    fn chips(&self) -> &[u32];
    /// Appends the allowed next hops of a packet at `chip` bound for `dst` to `out`; nothing when
    /// `chip == dst`.
    fn next_hops(&self, chip: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>);
    /// The ends of the links this function routes over.
    fn links(&self) -> &LinkEnds;
    /// How a simulator chooses when several hops are allowed.
    fn selection(&self) -> Selection {
        Selection::Adaptive
    }
    /// Whether the function's deadlock freedom is the structural argument (the VC rises at every
    /// external hop and holds inside a node, XY there), which sampled routes can check on
    /// networks too large for the exhaustive check. Otherwise it is checked exhaustively only.
    fn rising_vcs(&self) -> bool {
        false
    }
    /// How many consecutive chips of `chips()` form a group of destinations whose routes agree
    /// away from the group: at any vertex outside the group, `next_hops` lists the same hops
    /// (links, VCs and states) for every destination of the group. The exhaustive deadlock
    /// check walks a group's routes once up to its chips (a RailX node's chips: 16 destinations
    /// per walk on 4 x 4 meshes). Each chip alone by default.
    fn destinations_per_group(&self) -> usize {
        1
    }
    /// The chip a link leaves from.
    fn link_source(&self, link: u32) -> u32 {
        self.links().source(link)
    }
    /// The chip a link leads to.
    fn link_target(&self, link: u32) -> u32 {
        self.links().target(link)
    }
    /// Whether a link joins two nodes (an external, optical hop: Ho) rather than a mesh hop (Hi).
    fn is_external(&self, link: u32) -> bool {
        self.links().external[link as usize]
    }
}

/// Whether one step from ring position `a` to its neighbour `b` in a ring of `size` crosses the
/// wrap-around link. A step is forward when `b` is `a + 1` round the ring, which is every step of
/// a ring of two (routes break that tie forward), so there 1 -> 0 is the wrap-around link too.
pub(crate) fn ring_wraps(size: u32, a: u32, b: u32) -> bool {
    // No division: the deadlock check calls this on every inter-node hop of every route.
    let forward = b == a + 1 || (a + 1 == size && b == 0);
    if forward {
        b < a
    } else {
        b > a
    }
}

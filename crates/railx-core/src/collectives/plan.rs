//! The shape of an algorithm: the *lines* it runs on (sets of group dimensions whose ranks act as
//! one ring or one fully connected set) and, per data *part*, the order of lines. Every algorithm
//! family is a plan; the operation decides which stages the plan expands to:
//!
//! - all-reduce: reduce-scatter over the lines in order, then all-gather in reverse order;
//! - reduce-scatter: the first half; all-gather: the second half, starting from the shards;
//! - all-to-all: one all-to-all stage per line, in order (each stage forwards what the next
//!   lines deliver, as in LIBRA's multi-rail and Rail-only's two-step algorithms).
//!
//! Parts split the vector into equal shares that run their stages at the same time (the 2D-ring
//! algorithm runs half X-then-Y and half Y-then-X); they never wait for each other.

use crate::collectives::group::Group;
use crate::collectives::{Algo, Op};
use crate::error::RailxError;

/// The primitive a line runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineAlgo {
    /// Unidirectional ring: L-1 steps, one neighbour.
    Ring,
    /// Each piece split in two halves going round the ring in opposite directions.
    BidirRing,
    /// One step: every rank exchanges with every other rank of the line.
    Direct,
}

impl LineAlgo {
    pub fn name(self) -> &'static str {
        match self {
            LineAlgo::Ring => "ring",
            LineAlgo::BidirRing => "bidir-ring",
            LineAlgo::Direct => "direct",
        }
    }

    /// The primitive of a name (`ring`, `bidir-ring`, `direct`).
    pub fn parse(name: &str) -> Result<LineAlgo, RailxError> {
        [LineAlgo::Ring, LineAlgo::BidirRing, LineAlgo::Direct]
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                RailxError::invalid(
                    "line algo",
                    name,
                    "not a line primitive",
                    "use ring, bidir-ring or direct",
                )
            })
    }
}

/// A set of group dimensions treated as one line, with its ring order.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Group dimensions, innermost first; the line coordinate is their mixed-radix number.
    pub dims: Vec<usize>,
    pub algo: LineAlgo,
    /// `order[pos]` is the line coordinate at ring position `pos`; `position` inverts it.
    order: Vec<u32>,
    position: Vec<u32>,
    strides: Vec<u32>,
    sizes: Vec<u32>,
}

impl Line {
    /// A line over `dims` in mixed-radix order.
    pub fn new(group: &Group, dims: Vec<usize>, algo: LineAlgo) -> Line {
        let size: u32 = dims.iter().map(|&d| group.dims()[d].size).product();
        Line::with_order(group, dims, algo, (0..size).collect())
    }

    /// A line whose ring visits the line coordinates in `order` (a permutation).
    pub fn with_order(group: &Group, dims: Vec<usize>, algo: LineAlgo, order: Vec<u32>) -> Line {
        let mut position = vec![0; order.len()];
        for (pos, &coord) in order.iter().enumerate() {
            position[coord as usize] = pos as u32;
        }
        let strides = dims.iter().map(|&d| group.stride(d)).collect();
        let sizes = dims.iter().map(|&d| group.dims()[d].size).collect();
        Line {
            dims,
            algo,
            order,
            position,
            strides,
            sizes,
        }
    }

    pub fn size(&self) -> u32 {
        self.order.len() as u32
    }

    fn coord(&self, rank: u32) -> u32 {
        let mut coord = 0;
        let mut place = 1;
        for (&stride, &size) in self.strides.iter().zip(&self.sizes) {
            coord += (rank / stride) % size * place;
            place *= size;
        }
        coord
    }

    /// The rank's ring position on this line.
    pub fn pos(&self, rank: u32) -> u32 {
        self.position[self.coord(rank) as usize]
    }

    /// The rank of the same line instance at ring position `pos`.
    pub fn rank_at(&self, rank: u32, pos: u32) -> u32 {
        let mut base = rank;
        let mut coord = self.order[pos as usize];
        for (&stride, &size) in self.strides.iter().zip(&self.sizes) {
            base -= (rank / stride) % size * stride;
            base += coord % size * stride;
            coord /= size;
        }
        base
    }

    /// The rank of the same line instance whose coordinate on every dimension of the line is
    /// `rank`'s plus the matching mixed-radix digit of `step`, modulo the dimension's size: a
    /// translation of the line's torus. For each `step` in `1..size` it maps the line instance
    /// onto itself without fixed points (a permutation of the ranks), and which dimensions a
    /// message to `shifted(rank, step)` crosses depends on `step` alone.
    pub fn shifted(&self, rank: u32, step: u32) -> u32 {
        let mut out = rank;
        let mut digits = step;
        for (&stride, &size) in self.strides.iter().zip(&self.sizes) {
            let c = (rank / stride) % size;
            out = out - c * stride + (c + digits % size) % size * stride;
            digits /= size;
        }
        out
    }

    /// Data pieces a reduce-scatter on this line cuts a range into (halves for a bidirectional ring).
    pub fn cuts(&self) -> u64 {
        match (self.algo, self.size()) {
            (_, 1) => 1,
            (LineAlgo::BidirRing, l) => 2 * l as u64,
            (_, l) => l as u64,
        }
    }
}

/// An algorithm's lines and, per data part, the order it visits them.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub lines: Vec<Line>,
    pub parts: Vec<Vec<usize>>,
}

/// One reduce-scatter, all-gather or all-to-all pass over a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    ReduceScatter,
    AllGather,
    AllToAll,
}

impl Plan {
    /// The stages one part runs for `op`: (phase, line).
    pub fn stages(&self, op: Op, part: usize) -> Vec<(Phase, usize)> {
        let order = &self.parts[part];
        let rs = order.iter().map(|&l| (Phase::ReduceScatter, l));
        let ag = order.iter().rev().map(|&l| (Phase::AllGather, l));
        match op {
            Op::AllReduce => rs.chain(ag).collect(),
            Op::ReduceScatter => rs.collect(),
            Op::AllGather => ag.collect(),
            Op::AllToAll => order.iter().map(|&l| (Phase::AllToAll, l)).collect(),
        }
    }

    /// Units of data per part: the product of every line's cuts (reduction family), or 1 for an
    /// all-to-all (whose units are (source, destination) blocks instead).
    pub fn units_per_part(&self, op: Op) -> u64 {
        if op == Op::AllToAll {
            return 1;
        }
        self.parts[0]
            .iter()
            .map(|&l| self.lines[l].cuts())
            .product()
    }
}

/// The group dimensions of each kind-class, for the algorithm families.
pub(crate) fn dims_where(group: &Group, keep: impl Fn(usize) -> bool) -> Vec<usize> {
    (0..group.dims().len()).filter(|&d| keep(d)).collect()
}

/// The one-line error for an algorithm that does not apply.
pub(crate) fn not_applicable(
    algo: Algo,
    rule: impl Into<String>,
    hint: impl Into<String>,
) -> RailxError {
    RailxError::invalid("algo", algo.name(), rule, hint)
}

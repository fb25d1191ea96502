//! Directed Hamiltonian decompositions of the complete symmetric digraph K*_s.
//!
//! A RailX ring-rail all-to-all on `s` nodes needs `s - 1` directed Hamiltonian cycles that
//! between them use every ordered pair of distinct nodes exactly once. This module builds them
//! without any search, following the recipe of `notes/hamiltonian-decomposition.md` (§5); the
//! section numbers below refer to that note.
//!
//! * **Odd s = 2h+1 (§2).** Node `A = 2h` starts every cycle; the others form Z_2h. Cycle `C_t`
//!   is a translate by `t` of the zig-zag `0, 1, -1, 2, -2, …, h`, whose steps are all the
//!   nonzero residues mod 2h once each, so the 2h translates cover every arc once. The cycle
//!   holding a given arc therefore has a closed form ([`cycle_of_arc`]), and so does the position
//!   of a node inside a cycle ([`position_in_cycle`]).
//! * **Even s = 2h+2 ≥ 8 (§3).** A new node `Z` is spliced into the odd decomposition along a
//!   *rainbow path* `R`: a Hamiltonian path of K*_{2h+1} with exactly one arc in each `C_t`.
//!   Each arc `u→v` of `R` becomes `u→Z→v` in its own cycle, and `[Z] ++ R` is the last cycle;
//!   arcs of `R` merely move into that new cycle, so every arc is still used once.
//! * **The rainbow path (§3, §4).** For six small `h` it is stored (§7). Otherwise it is
//!   assembled around `F(h)`, a *local path* on `0..h` that ends at `h-3`. Local paths stack
//!   (stacking lemma, §4), so `F(h)` is found by a dynamic program over (length, threshold)
//!   states that piles staircase blocks Δ(ℓ, m) and, only if those cannot reach `h`, the stored
//!   blocks of §7 as well. The program enumerates states, it never backtracks.
//! * **s = 4 and 6 (§6).** No decomposition exists; on request the caller gets `s - 2`
//!   Hamiltonian rails plus one "matching rail" of 2-cycles, which still uses every ordered pair
//!   once.
//! * **Undirected K_s (single-link all-to-all, RailX paper A.1).** Each undirected Walecki cycle
//!   is one rail ring, so every unordered pair is joined once: the h cycles `C_0 … C_{h-1}` for
//!   s = 2h+1; for s = 2h+2 a new node spliced into each cycle's antipodal edge, those edges and
//!   one more pair forming the perfect matching of the last rail ([`single_link_rails`]).
//!
//! Every result is verified before it is returned; an internal inconsistency is reported as
//! [`DecompositionError::Invalid`], never as a panic. Time and memory grow as `s²` (the size of
//! the output); node ids are `u32`, so `s` may not exceed `2^32`.

use std::collections::BTreeMap;

/// Why no decomposition can be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecompositionError {
    #[error("K*_{s} has no decomposition into {} directed Hamiltonian cycles (none exists for 4 or 6 nodes)", s.saturating_sub(1))]
    NoneExists { s: usize },
    #[error("decomposition of K*_{s} failed verification: {reason}")]
    Invalid { s: usize, reason: String }, // only if an internal check fails: a bug, but never a panic
}

/// Bytes per entry (one of the s(s-1) arcs) a decomposition holds while it is built and
/// verified: the cycles, their successor lists and the verification's arc marks.
pub const DECOMPOSITION_ENTRY_BYTES: f64 = 16.0;

/// The s-1 directed Hamiltonian cycles of K*_s, each as the node sequence of the cycle
/// (the arc from the last node back to the first closes it). Verified before it is returned.
pub fn hamiltonian_cycles(s: usize) -> Result<Vec<Vec<u32>>, DecompositionError> {
    build_verified(s).map(|built| built.cycles)
}

/// One successor permutation per rail: rail t sends node u to succ[t][u] (the arc u -> succ[t][u],
/// i.e. the circuit u+ <-> succ[t][u]-). For s not in {4,6} these are the cycles of
/// `hamiltonian_cycles`, in the same order. For s in {4,6} with `allow_matching_rail` true, the §6
/// fallback: the first s-2 rails are Hamiltonian, the last is the matching rail (an involution: pairs
/// joined both ways). With it false, s in {4,6} is Err(NoneExists). s=1 gives an empty Vec.
pub fn rail_successors(
    s: usize,
    allow_matching_rail: bool,
) -> Result<Vec<Vec<u32>>, DecompositionError> {
    if allow_matching_rail {
        if let Some(fallback) = matching_rail_fallback(s) {
            let invalid = |reason| DecompositionError::Invalid { s, reason };
            let rails = fallback.map_err(invalid)?;
            verify_rails(s, &rails, true).map_err(invalid)?;
            return Ok(rails);
        }
    }
    build_verified(s).map(|built| built.rails)
}

/// Checks that `rails` (successor permutations) use every ordered pair of distinct nodes of 0..s
/// exactly once, have no fixed points, and each is a single s-cycle, except that when `allow_matching_rail`
/// is true the last rail may be a fixed-point-free involution (only for s = 4 or 6). Returns a one-line reason on failure.
pub fn verify_rails(s: usize, rails: &[Vec<u32>], allow_matching_rail: bool) -> Result<(), String> {
    let expected = s.saturating_sub(1);
    if rails.len() != expected {
        return Err(format!(
            "expected {expected} rails for {s} nodes, got {}",
            rails.len()
        ));
    }
    // Lengths first: once they hold, the rails themselves occupy s(s-1) words of memory, so the
    // s² bits of the arc table below are affordable.
    if let Some((t, rail)) = rails.iter().enumerate().find(|(_, rail)| rail.len() != s) {
        return Err(format!(
            "rail {t} has {} entries, expected one successor for each of the {s} nodes",
            rail.len()
        ));
    }
    let matching_allowed = allow_matching_rail && matches!(s, 4 | 6);
    let mut used = ArcSet::new(s)?;
    for (t, rail) in rails.iter().enumerate() {
        let may_be_matching = matching_allowed && t + 1 == rails.len();
        if !(may_be_matching && is_matching(rail)) {
            check_single_cycle(rail).map_err(|e| {
                let alternative = if may_be_matching {
                    " (nor a fixed-point-free involution)"
                } else {
                    ""
                };
                format!("rail {t}: {e}{alternative}")
            })?;
        }
        // Both shapes above are permutations of 0..s, so every v indexes a node.
        for (u, &v) in rail.iter().enumerate() {
            if !used.insert(u, v as usize) {
                let first = rails[..t].iter().position(|earlier| earlier[u] == v);
                let first =
                    first.map_or_else(|| "an earlier rail".to_string(), |r| format!("rail {r}"));
                return Err(format!("arc {u}->{v} is used by both {first} and rail {t}"));
            }
        }
    }
    // s-1 fixed-point-free rails carry s(s-1) arcs, all distinct and none a loop: that is every
    // ordered pair of distinct nodes, so no separate coverage check is needed.
    Ok(())
}

/// True when rail_successors(s, false) succeeds (s != 4 && s != 6).
pub fn has_decomposition(s: usize) -> bool {
    s != 4 && s != 6
}

/// Rails of one copy of a single-link all-to-all on `s` nodes: `s / 2` (= ceil((s-1)/2)).
pub fn single_link_rail_count(s: usize) -> usize {
    s / 2
}

/// The rails of a single-link all-to-all on `s` nodes (RailX paper A.1): a decomposition of the
/// undirected K_s, each rail given as its circuits `(u, v)` (u+ <-> v-).
///
/// * Odd s = 2h+1: the h undirected Walecki cycles (`C_t`, t < h; `C_{t+h}` is the same cycle
///   reversed), each one ring through all s nodes in one orientation.
/// * Even s = 2h+2: the h Walecki cycles of K_{2h+1} with a new node `Z = 2h+1` spliced into each
///   cycle's antipodal edge {a, a+h} (the zig-zag's step of length h); those h edges are pairwise
///   disjoint and cover Z_2h, so they and {A, Z} form a perfect matching, the last rail. It holds
///   s/2 circuits, one per pair, and leaves the other port of each node on that rail idle.
///
/// Every unordered pair of nodes is joined by exactly one circuit. Verified before it is returned.
pub fn single_link_rails(s: usize) -> Result<Vec<Vec<(u32, u32)>>, DecompositionError> {
    if !fits_u32_ids(s) {
        return Err(DecompositionError::Invalid {
            s,
            reason: "node ids are u32, so at most 2^32 nodes are supported".to_string(),
        });
    }
    let rails = if s % 2 == 1 {
        let h = s / 2;
        (0..h).map(|t| cycle_arcs(&walecki_cycle(h, t))).collect()
    } else {
        spliced_walecki_rails(s.saturating_sub(2) / 2)
    };
    verify_single_link_rails(s, &rails)
        .map_err(|reason| DecompositionError::Invalid { s, reason })?;
    Ok(rails)
}

/// Checks that `rails` are a single-link all-to-all on `s` nodes: `s / 2` rails, each a single
/// s-cycle (one circuit per + port and per - port) except, for even s, the last, which is a
/// perfect matching of s/2 circuits; and every unordered pair of distinct nodes joined exactly
/// once. Returns a one-line reason on failure.
pub fn verify_single_link_rails(s: usize, rails: &[Vec<(u32, u32)>]) -> Result<(), String> {
    let expected = single_link_rail_count(s);
    if rails.len() != expected {
        return Err(format!(
            "expected {expected} rails for {s} nodes, got {}",
            rails.len()
        ));
    }
    let mut used = ArcSet::new(s)?;
    for (t, rail) in rails.iter().enumerate() {
        let matching = s.is_multiple_of(2) && t + 1 == rails.len();
        let shape = if matching {
            check_matching_arcs(s, rail)
        } else {
            arcs_successors(s, rail).and_then(|succ| check_single_cycle(&succ))
        };
        shape.map_err(|e| format!("rail {t}: {e}"))?;
        for &(u, v) in rail {
            let (a, b) = (u.min(v) as usize, u.max(v) as usize);
            if !used.insert(a, b) {
                return Err(format!("rail {t}: nodes {a} and {b} are already joined"));
            }
        }
    }
    // s(s-1)/2 distinct unordered pairs in all (s/2 rings of s when s is odd; (s-2)/2 rings of s
    // plus s/2 matching circuits when s is even): that is every pair, so coverage follows.
    Ok(())
}

/// The rainbow path `R` used to build K*_{2h+2} (§3): a Hamiltonian path on `0..=2h` with one
/// arc in every cycle `C_t` of K*_{2h+1}. `None` for `h < 3`, where none exists.
#[doc(hidden)]
pub fn rainbow_path(h: usize) -> Option<Vec<u32>> {
    rainbow(h).ok()
}

/// A checked decomposition in both forms, so that each public entry point can hand out its own.
struct Verified {
    cycles: Vec<Vec<u32>>,
    rails: Vec<Vec<u32>>,
}

/// Builds the cycles for `s` and checks them through their successor permutations.
fn build_verified(s: usize) -> Result<Verified, DecompositionError> {
    let invalid = |reason| DecompositionError::Invalid { s, reason };
    let cycles = construct(s)?;
    let rails = cycles
        .iter()
        .enumerate()
        .map(|(t, cycle)| cycle_successors(s, cycle).map_err(|e| format!("cycle {t}: {e}")))
        .collect::<Result<Vec<_>, _>>()
        .map_err(invalid)?;
    verify_rails(s, &rails, false).map_err(invalid)?;
    Ok(Verified { cycles, rails })
}

/// The §5 recipe, unverified.
fn construct(s: usize) -> Result<Vec<Vec<u32>>, DecompositionError> {
    if !fits_u32_ids(s) {
        return Err(DecompositionError::Invalid {
            s,
            reason: "node ids are u32, so at most 2^32 nodes are supported".to_string(),
        });
    }
    match s {
        0 => Ok(Vec::new()),
        // The one cycle of K*_2 is the 2-cycle; Walecki needs an odd order.
        2 => Ok(vec![vec![0, 1]]),
        4 | 6 => Err(DecompositionError::NoneExists { s }),
        // Covers s = 1 (no cycles) and s = 3 ([2,0,1], [2,1,0]) as well.
        _ if s % 2 == 1 => Ok(walecki_cycles(s / 2)),
        _ => {
            let h = (s - 2) / 2;
            rainbow(h)
                .and_then(|r| insert_node(h, &r))
                .map_err(|reason| DecompositionError::Invalid { s, reason })
        }
    }
}

/// Whether every node of 0..s has a `u32` id.
fn fits_u32_ids(s: usize) -> bool {
    u32::try_from(s.saturating_sub(1)).is_ok()
}

// ---------------------------------------------------------------------------------------------
// §2: odd order 2h+1, nodes Z_2h plus A = 2h.
// ---------------------------------------------------------------------------------------------

/// The 2h Walecki cycles `C_0 … C_{2h-1}` of K*_{2h+1}.
fn walecki_cycles(h: usize) -> Vec<Vec<u32>> {
    (0..2 * h).map(|t| walecki_cycle(h, t)).collect()
}

/// `C_t = [A, t, t+1, t-1, t+2, t-2, …, t+h-1, t-h+1, t+h]` (mod 2h).
fn walecki_cycle(h: usize, t: usize) -> Vec<u32> {
    let n = 2 * h;
    // Every entry is at most 2h < s, which `construct` checked fits u32. Group nodes are taken
    // mod n from operands below 2n, so one conditional subtraction replaces a (slower) `%`.
    let group = |x: usize| (if x >= n { x - n } else { x }) as u32;
    // One spare slot: the even construction splices one more node into every cycle.
    let mut cycle = Vec::with_capacity(n + 2);
    cycle.push(n as u32);
    cycle.push(group(t));
    cycle.extend((1..h).flat_map(|j| [group(t + j), group(t + n - j)]));
    cycle.push(group(t + h));
    cycle
}

/// Whether `x→y` is a *local* arc: odd-sum arcs going up, even-sum arcs going down (§2, §4).
fn is_local(x: usize, y: usize) -> bool {
    ((x + y) % 2 == 1) == (y > x)
}

/// Index `t` of the Walecki cycle `C_t` of K*_{2h+1} holding the arc `x→y` (§2, line form).
/// Local arcs lie in the cycle of their midpoint, the others half-way round.
fn cycle_of_arc(h: usize, x: usize, y: usize) -> usize {
    let n = 2 * h;
    if x == n {
        y
    } else if y == n {
        (x + h) % n
    } else {
        let mid = (x + y) / 2;
        if is_local(x, y) {
            mid
        } else {
            (mid + h) % n
        }
    }
}

/// Index of node `u` in `C_t` (§5 step 5): the zig-zag puts `t+b` at `2b` and `t-b` at `2b+1`.
fn position_in_cycle(h: usize, t: usize, u: usize) -> usize {
    let n = 2 * h;
    if u == n {
        return 0;
    }
    match (u + n - t) % n {
        0 => 1,
        b if b <= h => 2 * b,
        b => 2 * (n - b) + 1,
    }
}

// ---------------------------------------------------------------------------------------------
// §3: even order 2h+2 by splicing Z = 2h+1 into the odd decomposition along a rainbow path.
// ---------------------------------------------------------------------------------------------

/// The 2h+1 cycles of K*_{2h+2}: every `C_t` with `Z` spliced into its rainbow arc, then `[Z]+R`.
fn insert_node(h: usize, rainbow: &[u32]) -> Result<Vec<Vec<u32>>, String> {
    let z = (2 * h + 1) as u32;
    let mut cycles = walecki_cycles(h);
    let arc_cycles = rainbow_arc_cycles(h, rainbow)?;
    for (arc, &t) in rainbow.windows(2).zip(&arc_cycles) {
        let (u, v) = (arc[0], arc[1]);
        let cycle = &mut cycles[t];
        let at = position_in_cycle(h, t, u as usize);
        // The arc rule and the position formula are two readings of the same zig-zag; if they
        // ever disagree, splicing here would silently corrupt the cycle.
        let next = cycle.get(at + 1).or(cycle.first());
        if cycle.get(at) != Some(&u) || next != Some(&v) {
            return Err(format!("arc {u}->{v} is not at position {at} of C_{t}"));
        }
        cycle.insert(at + 1, z);
    }
    cycles.push(std::iter::once(z).chain(rainbow.iter().copied()).collect());
    Ok(cycles)
}

/// For a rainbow path `R` of K*_{2h+1}, the cycle index of each of its arcs; an error unless `R`
/// is a Hamiltonian path on `0..=2h` whose arcs lie in pairwise distinct cycles.
fn rainbow_arc_cycles(h: usize, rainbow: &[u32]) -> Result<Vec<usize>, String> {
    let nodes = 2 * h + 1;
    check_hamiltonian_path(nodes, rainbow).map_err(|e| format!("rainbow path: {e}"))?;
    let mut hit = vec![false; 2 * h];
    let mut arc_cycles = Vec::with_capacity(2 * h);
    for arc in rainbow.windows(2) {
        let t = cycle_of_arc(h, arc[0] as usize, arc[1] as usize);
        if std::mem::replace(&mut hit[t], true) {
            return Err(format!(
                "rainbow path uses C_{t} twice (second time by arc {}->{})",
                arc[0], arc[1]
            ));
        }
        arc_cycles.push(t);
    }
    Ok(arc_cycles)
}

/// Rainbow paths for the `h` without a local path `F(h)` (§7), nodes `0..=2h` with `A = 2h`.
#[rustfmt::skip] // one row per h, as in the note's table
const STORED_RAINBOWS: [(usize, &[u32]); 6] = [
    (3, &[0, 1, 6, 5, 4, 2, 3]),
    (4, &[0, 1, 3, 4, 6, 8, 5, 2, 7]),
    (7, &[0, 1, 2, 3, 4, 5, 14, 13, 12, 10, 6, 7, 8, 11, 9]),
    (8, &[0, 1, 2, 3, 4, 5, 6, 9, 7, 16, 14, 10, 8, 13, 15, 11, 12]),
    (9, &[0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 18, 16, 12, 15, 17, 13, 11, 9, 14]),
    (10, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 20, 19, 18, 16, 17, 13, 14, 15, 9, 10, 11, 12]),
];

/// The rainbow path for K*_{2h+2} (§3, §5 step 4): stored, or `F(h)` lifted onto `[h-1, 2h-2]`
/// followed by the run `0 … h-2` and then `A, 2h-1`, whose arcs take the remaining cycles.
/// Not checked here: [`rainbow_arc_cycles`] checks it where it is used.
fn rainbow(h: usize) -> Result<Vec<u32>, String> {
    if let Some((_, stored)) = STORED_RAINBOWS.iter().find(|(g, _)| *g == h) {
        return Ok(stored.to_vec());
    }
    if h < 3 {
        return Err(format!(
            "K*_{} has no rainbow path (h = {h} < 3)",
            2 * h + 1
        ));
    }
    let nodes = h.checked_mul(2).and_then(|n| n.checked_add(2));
    if !nodes.is_some_and(fits_u32_ids) {
        return Err(format!("h = {h} needs node ids beyond u32"));
    }
    let f = local_path_f(h)?;
    let lift = (h - 1) as u32;
    let (a, top) = ((2 * h) as u32, (2 * h - 1) as u32);
    Ok(f.iter()
        .map(|&x| x + lift)
        .chain(0..lift)
        .chain([a, top])
        .collect())
}

// ---------------------------------------------------------------------------------------------
// §4: local paths, staircase blocks and the stacking program for F(M).
// ---------------------------------------------------------------------------------------------

/// `F(M)` ends at `M-3`, i.e. its top block has threshold `M-1-(M-3)`.
const F_THRESHOLD: usize = 2;

/// Extra local-path blocks of §7 (threshold, start, path). The last five are primitive `F(M)`.
#[rustfmt::skip] // one row per block, as in the note's table
const STORED_BLOCKS: [StoredBlock; 11] = [
    StoredBlock::new(2, 4, &[4, 0, 1, 2, 5, 3]),
    StoredBlock::new(3, 6, &[6, 4, 0, 1, 2, 5, 3]),
    StoredBlock::new(4, 7, &[7, 8, 9, 3, 6, 4, 0, 1, 2, 5]),
    StoredBlock::new(5, 8, &[8, 9, 10, 11, 3, 4, 0, 1, 2, 7, 5, 6]),
    StoredBlock::new(5, 9, &[9, 10, 11, 12, 4, 0, 1, 2, 5, 3, 8, 6, 7]),
    StoredBlock::new(4, 12, &[12, 10, 11, 7, 8, 9, 3, 6, 4, 0, 1, 2, 5, 20, 21, 22, 16, 19, 17, 13, 14, 15, 18]),
    StoredBlock::new(2, 8, &[8, 6, 11, 7, 5, 3, 4, 0, 1, 2, 9, 12, 10]),
    StoredBlock::new(2, 9, &[9, 7, 12, 8, 6, 4, 0, 1, 2, 5, 3, 10, 13, 11]),
    StoredBlock::new(2, 10, &[10, 8, 6, 11, 12, 15, 13, 7, 5, 3, 4, 0, 1, 2, 9, 16, 14]),
    StoredBlock::new(2, 11, &[11, 9, 7, 12, 13, 16, 14, 8, 6, 4, 0, 1, 2, 5, 3, 10, 17, 15]),
    StoredBlock::new(2, 12, &[12, 10, 8, 6, 11, 14, 17, 15, 13, 7, 5, 3, 4, 0, 1, 2, 9, 18, 16]),
];

/// A stored block as the note states it; [`Block::stored`] checks the statement.
struct StoredBlock {
    threshold: usize,
    start: usize,
    path: &'static [u32],
}

impl StoredBlock {
    const fn new(threshold: usize, start: usize, path: &'static [u32]) -> Self {
        StoredBlock {
            threshold,
            start,
            path,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Δ(ℓ, m): `runs` ascending runs of lengths ℓ … ℓ+m-1, shortest on top, visited top-down.
    Staircase { shortest: usize, runs: usize },
    /// A checked entry of [`STORED_BLOCKS`].
    Stored(&'static [u32]),
}

/// A local path on `0..len` together with the two ends that matter for stacking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    shape: Shape,
    len: usize,
    /// `len - 1 - end`: where the block above must start (stacking lemma).
    threshold: usize,
    start: usize,
}

impl Block {
    /// Δ(ℓ, m) with the given threshold and `m = runs`, if one exists. Its threshold is
    /// `q(m-1)/2` with `q = 2ℓ + m - 2`, so `q` must be a whole number `≥ m` of `m`'s parity.
    fn staircase(threshold: usize, runs: usize) -> Option<Block> {
        let twice = 2 * threshold;
        if runs < 2 || !twice.is_multiple_of(runs - 1) {
            return None;
        }
        let q = twice / (runs - 1);
        if q < runs || !(q - runs).is_multiple_of(2) {
            return None;
        }
        let shortest = (q - runs + 2) / 2;
        let len = runs * (q + 1) / 2;
        Some(Block {
            shape: Shape::Staircase { shortest, runs },
            len,
            threshold,
            start: len - shortest,
        })
    }

    /// All staircases with this threshold; `q ≥ m` bounds `m(m-1) ≤ 2·threshold`.
    fn staircases(threshold: usize) -> impl Iterator<Item = Block> {
        (2..)
            .take_while(move |&m: &usize| m * (m - 1) <= 2 * threshold)
            .filter_map(move |m| Block::staircase(threshold, m))
    }

    /// A stored block, after checking that it is a local path with the stated ends.
    fn stored(entry: &StoredBlock) -> Result<Block, String> {
        let (start, threshold) = local_path_ends(entry.path)?;
        if (start, threshold) != (entry.start, entry.threshold) {
            return Err(format!(
                "stored block {:?} has threshold {threshold} and start {start}, not {} and {} as stated",
                entry.path, entry.threshold, entry.start
            ));
        }
        Ok(Block {
            shape: Shape::Stored(entry.path),
            len: entry.path.len(),
            threshold,
            start,
        })
    }

    /// Appends the block's path shifted up by `offset`.
    fn append_path(&self, offset: usize, out: &mut Vec<u32>) {
        match self.shape {
            Shape::Staircase { shortest, runs } => {
                let mut top = offset + self.len;
                for run in shortest..shortest + runs {
                    let bottom = top - run;
                    out.extend((bottom..top).map(|x| x as u32));
                    top = bottom;
                }
            }
            Shape::Stored(path) => out.extend(path.iter().map(|&x| x + offset as u32)),
        }
    }
}

/// All stored blocks, each checked before it is trusted.
fn stored_blocks() -> Result<Vec<Block>, String> {
    STORED_BLOCKS.iter().map(Block::stored).collect()
}

/// `F(len)`: a local path on `0..len` ending at `len - 3`, from staircases alone if possible and
/// otherwise with the stored blocks too (§4). Checked before it is returned.
fn local_path_f(len: usize) -> Result<Vec<u32>, String> {
    let stack = match stack_blocks(len, &[]) {
        Some(stack) => stack,
        None => stack_blocks(len, &stored_blocks()?)
            .ok_or_else(|| format!("no stack of local-path blocks has length {len}"))?,
    };
    let mut path = Vec::with_capacity(len);
    for block in &stack {
        block.append_path(path.len(), &mut path);
    }
    match local_path_ends(&path)? {
        (_, F_THRESHOLD) => Ok(path),
        (_, t) => Err(format!(
            "F({len}) was assembled with threshold {t}, not {F_THRESHOLD}"
        )),
    }
}

/// Blocks, bottom first, whose stack is a local path of length `target` with threshold
/// [`F_THRESHOLD`], using staircases and `extra`; `None` if there is none.
///
/// Forward dynamic program over (length stacked, threshold the next block must have). The stack
/// grows downwards from its top block: by the stacking lemma a block fits under the stack iff its
/// threshold equals the stack's current bottom start, which becomes the block's own start.
/// Lengths only grow, so states are settled in order of length, the first way of reaching a state
/// is kept, and the program stops the moment it first reaches `target`.
fn stack_blocks(target: usize, extra: &[Block]) -> Option<Vec<Block>> {
    // reached[len][threshold] = the block whose addition first reached that state; `None`
    // marks the empty starting stack.
    let mut reached: Vec<BTreeMap<usize, Option<Block>>> = vec![BTreeMap::new(); target + 1];
    reached[0].insert(F_THRESHOLD, None);
    for len in 0..target {
        let thresholds: Vec<usize> = reached[len].keys().copied().collect();
        for threshold in thresholds {
            let fitting_extra = extra.iter().filter(|b| b.threshold == threshold).copied();
            for block in Block::staircases(threshold).chain(fitting_extra) {
                let next = len + block.len;
                if next > target {
                    continue;
                }
                reached[next].entry(block.start).or_insert(Some(block));
                if next == target {
                    return Some(read_back(&reached, target, block.start));
                }
            }
        }
    }
    None
}

/// The blocks that led to state (`len`, `threshold`), bottom first: walking back from a state
/// visits the last block added, which is the bottom one, first.
fn read_back(
    reached: &[BTreeMap<usize, Option<Block>>],
    mut len: usize,
    mut threshold: usize,
) -> Vec<Block> {
    let mut stack = Vec::new();
    while let Some(Some(block)) = reached.get(len).and_then(|states| states.get(&threshold)) {
        stack.push(*block);
        len -= block.len;
        threshold = block.threshold;
    }
    stack
}

/// `(start, threshold)` of a local path on `0..path.len()` (§4), or why it is not one: it must
/// visit every node once, move only along local arcs, and have pairwise distinct midpoints.
fn local_path_ends(path: &[u32]) -> Result<(usize, usize), String> {
    let len = path.len();
    check_hamiltonian_path(len, path)?;
    let mut midpoints = vec![false; len];
    for arc in path.windows(2) {
        let (x, y) = (arc[0] as usize, arc[1] as usize);
        if !is_local(x, y) {
            return Err(format!(
                "arc {x}->{y} is not local (odd sums must go up, even sums down)"
            ));
        }
        if std::mem::replace(&mut midpoints[(x + y) / 2], true) {
            return Err(format!("arc {x}->{y} repeats midpoint {}", (x + y) / 2));
        }
    }
    match (path.first(), path.last()) {
        (Some(&first), Some(&last)) => Ok((first as usize, len - 1 - last as usize)),
        _ => Err("a local path needs at least one node".to_string()),
    }
}

/// Error unless `path` visits each of `0..nodes` exactly once.
fn check_hamiltonian_path(nodes: usize, path: &[u32]) -> Result<(), String> {
    if path.len() != nodes {
        return Err(format!("has {} nodes, expected {nodes}", path.len()));
    }
    let mut seen = vec![false; nodes];
    for &x in path {
        match seen.get_mut(x as usize) {
            None => return Err(format!("node {x} is outside 0..{nodes}")),
            Some(true) => return Err(format!("node {x} appears twice")),
            Some(slot) => *slot = true,
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Undirected K_s (single-link all-to-all, RailX paper A.1).
// ---------------------------------------------------------------------------------------------

/// The h spliced Walecki rings and the matching rail of K_{2h+2} (see [`single_link_rails`]).
fn spliced_walecki_rails(h: usize) -> Vec<Vec<(u32, u32)>> {
    let (a, z) = ((2 * h) as u32, (2 * h + 1) as u32);
    let mut matching = Vec::with_capacity(h + 1);
    let mut rails: Vec<Vec<(u32, u32)>> = (0..h)
        .map(|t| {
            let mut cycle = walecki_cycle(h, t);
            // The one step of length h of the zig-zag joins two antipodal nodes of Z_2h.
            let antipodal = (1..cycle.len() - 1).find(|&i| {
                let (x, y) = (cycle[i] as usize, cycle[i + 1] as usize);
                (x + 2 * h - y) % (2 * h) == h
            });
            if let Some(i) = antipodal {
                matching.push((cycle[i], cycle[i + 1]));
                cycle.insert(i + 1, z);
            }
            cycle_arcs(&cycle)
        })
        .collect();
    matching.push((a, z));
    rails.push(matching);
    rails
}

/// The arcs `u -> next` of a cycle given as its node sequence (closing arc last).
fn cycle_arcs(cycle: &[u32]) -> Vec<(u32, u32)> {
    let next = cycle.iter().cycle().skip(1);
    cycle.iter().copied().zip(next.copied()).collect()
}

/// The successor permutation of a rail given as arcs; an error unless every node of `0..s` has
/// exactly one out-arc (its + port in one circuit).
fn arcs_successors(s: usize, arcs: &[(u32, u32)]) -> Result<Vec<u32>, String> {
    let mut succ = vec![u32::MAX; s];
    for &(u, v) in arcs {
        match succ.get_mut(u as usize) {
            None => return Err(format!("arc {u}->{v} leaves 0..{s}")),
            Some(slot) if *slot != u32::MAX => {
                return Err(format!("node {u}'s + port is in two circuits"))
            }
            Some(slot) => *slot = v,
        }
    }
    if let Some(u) = succ.iter().position(|&v| v == u32::MAX) {
        return Err(format!("node {u}'s + port is in no circuit"));
    }
    Ok(succ)
}

/// Error unless `arcs` pair up all of `0..s`: s/2 circuits, every node in exactly one.
fn check_matching_arcs(s: usize, arcs: &[(u32, u32)]) -> Result<(), String> {
    let mut seen = vec![false; s];
    for &(u, v) in arcs {
        for node in [u, v] {
            match seen.get_mut(node as usize) {
                None => return Err(format!("arc {u}->{v} leaves 0..{s}")),
                Some(true) => {
                    return Err(format!("node {node} is in two circuits of the matching"))
                }
                Some(slot) => *slot = true,
            }
        }
    }
    match seen.iter().position(|&hit| !hit) {
        Some(node) => Err(format!("node {node} is in no circuit of the matching")),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// §6: the fallback for s = 4 and 6.
// ---------------------------------------------------------------------------------------------

/// Rails of the §6 fallback for `s` in {4, 6} (each undirected ring in both directions, then
/// the matching rail), or `None` for any other `s`.
fn matching_rail_fallback(s: usize) -> Option<Result<Vec<Vec<u32>>, String>> {
    let (rings, matching): (&[&[u32]], &[(u32, u32)]) = match s {
        4 => (&[&[0, 1, 2, 3]], &[(0, 2), (1, 3)]),
        6 => (
            &[&[0, 1, 2, 3, 4, 5], &[0, 2, 4, 1, 5, 3]],
            &[(0, 4), (1, 3), (2, 5)],
        ),
        _ => return None,
    };
    let mut rails = Vec::with_capacity(s - 1);
    for ring in rings {
        let reversed: Vec<u32> = ring.iter().rev().copied().collect();
        for cycle in [ring.to_vec(), reversed] {
            match cycle_successors(s, &cycle) {
                Ok(rail) => rails.push(rail),
                Err(e) => return Some(Err(format!("fallback ring {cycle:?}: {e}"))),
            }
        }
    }
    let mut last = vec![0; s];
    for &(a, b) in matching {
        last[a as usize] = b;
        last[b as usize] = a;
    }
    rails.push(last);
    Some(Ok(rails))
}

// ---------------------------------------------------------------------------------------------
// Verification helpers.
// ---------------------------------------------------------------------------------------------

/// The successor permutation of a cycle given as its node sequence; an error unless the cycle
/// visits each of `0..s` exactly once.
fn cycle_successors(s: usize, cycle: &[u32]) -> Result<Vec<u32>, String> {
    check_hamiltonian_path(s, cycle)?;
    let mut succ = vec![0; s];
    // Starting from the last node makes the closing arc the first one written.
    let mut prev = cycle.last().copied().unwrap_or_default();
    for &u in cycle {
        succ[prev as usize] = u;
        prev = u;
    }
    Ok(succ)
}

/// Error unless `rail` is one cycle through all of `0..rail.len()`.
///
/// Walking from node 0 suffices: a first return after exactly `len` steps means `len` distinct
/// nodes were visited (a repeat would trap the walk in a loop without 0), so the map is that one
/// cycle. Only a failing rail is examined further, to name its first defect.
fn check_single_cycle(rail: &[u32]) -> Result<(), String> {
    let s = rail.len();
    match steps_back_to_start(rail) {
        Some(steps) if steps == s => Ok(()),
        back => {
            check_permutation(rail)?;
            Err(match back {
                Some(steps) => {
                    format!("not a single {s}-cycle: node 0 is back after {steps} steps")
                }
                None => format!("not a single {s}-cycle: node 0 never comes back"),
            })
        }
    }
}

/// Number of steps the walk from node 0 takes to first return to it, if it does within
/// `rail.len()` steps without leaving `0..rail.len()`.
fn steps_back_to_start(rail: &[u32]) -> Option<usize> {
    let mut node = 0;
    for steps in 1..=rail.len() {
        node = *rail.get(node)? as usize;
        if node == 0 {
            return Some(steps);
        }
    }
    None
}

/// Error unless `rail` is a fixed-point-free permutation of `0..rail.len()`.
fn check_permutation(rail: &[u32]) -> Result<(), String> {
    let s = rail.len();
    let mut has_predecessor = vec![false; s];
    for (u, &v) in rail.iter().enumerate() {
        if v as usize == u {
            return Err(format!("node {u} is its own successor"));
        }
        match has_predecessor.get_mut(v as usize) {
            None => return Err(format!("node {u} has successor {v}, outside 0..{s}")),
            Some(true) => return Err(format!("node {v} is the successor of two nodes")),
            Some(slot) => *slot = true,
        }
    }
    Ok(())
}

/// Whether `rail` pairs up all of `0..rail.len()`: a fixed-point-free involution.
fn is_matching(rail: &[u32]) -> bool {
    rail.iter()
        .enumerate()
        .all(|(u, &v)| v as usize != u && rail.get(v as usize).is_some_and(|&w| w as usize == u))
}

/// The ordered pairs of `0..s` seen so far, one bit each.
struct ArcSet {
    s: usize,
    bits: Vec<u64>,
}

impl ArcSet {
    fn new(s: usize) -> Result<Self, String> {
        let words = s
            .checked_mul(s)
            .map(|arcs| arcs.div_ceil(64))
            .ok_or_else(|| format!("{s} nodes are too many to track every ordered pair"))?;
        Ok(ArcSet {
            s,
            bits: vec![0; words],
        })
    }

    /// Records `u→v` (both `< s`); false if it was already recorded.
    fn insert(&mut self, u: usize, v: usize) -> bool {
        let index = u * self.s + v;
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        let fresh = self.bits[word] & bit == 0;
        self.bits[word] |= bit;
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe(block: &Block) -> String {
        match block.shape {
            Shape::Staircase { shortest, runs: 2 } => format!("W_{}", shortest + 1),
            Shape::Staircase { shortest, runs } => format!("Δ({shortest},{runs})"),
            Shape::Stored(path) => format!("stored{path:?}"),
        }
    }

    fn staircase_path(block: &Block) -> Vec<u32> {
        let mut path = Vec::new();
        block.append_path(0, &mut path);
        path
    }

    #[test]
    fn stored_blocks_are_local_paths_with_stated_ends() {
        for entry in &STORED_BLOCKS {
            let block = Block::stored(entry).unwrap();
            assert_eq!(block.len, entry.path.len());
        }
        let f_lengths: Vec<usize> = STORED_BLOCKS
            .iter()
            .filter(|b| b.threshold == F_THRESHOLD && b.path.len() > 6)
            .map(|b| b.path.len())
            .collect();
        assert_eq!(f_lengths, [13, 14, 17, 18, 19]);
    }

    #[test]
    fn stored_block_with_wrong_statement_is_rejected() {
        let wrong_start = StoredBlock::new(2, 5, &[4, 0, 1, 2, 5, 3]);
        assert!(Block::stored(&wrong_start)
            .unwrap_err()
            .contains("not 2 and 5"));
        let not_local = StoredBlock::new(2, 4, &[4, 0, 2, 1, 5, 3]);
        assert!(Block::stored(&not_local).unwrap_err().contains("not local"));
    }

    #[test]
    fn staircases_match_the_note_examples() {
        let path = |t, m| staircase_path(&Block::staircase(t, m).unwrap());
        assert_eq!(path(1, 2), [2, 0, 1]); // Δ(1,2)
        assert_eq!(path(2, 2), [3, 4, 0, 1, 2]); // Δ(2,2) = W_3
        assert_eq!(path(3, 3), [5, 3, 4, 0, 1, 2]); // Δ(1,3)
        assert_eq!(path(4, 2), [5, 6, 7, 8, 0, 1, 2, 3, 4]); // W_5
        assert_eq!(Block::staircase(2, 3), None);
    }

    #[test]
    fn every_staircase_is_a_local_path_with_its_stated_ends() {
        for threshold in 1..=300 {
            for block in Block::staircases(threshold) {
                let path = staircase_path(&block);
                assert_eq!(path.len(), block.len);
                assert_eq!(
                    local_path_ends(&path).unwrap(),
                    (block.start, block.threshold),
                    "{}",
                    describe(&block)
                );
            }
        }
    }

    #[test]
    fn arc_rule_and_positions_match_the_walecki_cycles() {
        for h in 1..=40 {
            let n = 2 * h;
            for (t, cycle) in walecki_cycles(h).iter().enumerate() {
                for (i, &u) in cycle.iter().enumerate() {
                    let v = cycle[(i + 1) % cycle.len()] as usize;
                    assert_eq!(cycle_of_arc(h, u as usize, v), t, "h={h} arc {u}->{v}");
                    assert_eq!(
                        position_in_cycle(h, t, u as usize),
                        i,
                        "h={h} C_{t} node {u}"
                    );
                }
                assert_eq!(cycle.len(), n + 1);
            }
        }
    }

    #[test]
    fn stacks_match_the_note_examples() {
        let names = |h: usize| -> Vec<String> {
            stack_blocks(h, &[]).unwrap().iter().map(describe).collect()
        };
        assert_eq!(names(5), ["W_3"]);
        assert_eq!(names(11), ["Δ(1,3)", "W_3"]);
        assert_eq!(names(12), ["W_4", "W_3"]);
        assert_eq!(names(20), ["Δ(2,3)", "Δ(1,3)", "W_3"]);
        assert_eq!(
            names(105),
            ["W_16", "Δ(3,4)", "Δ(2,4)", "Δ(3,3)", "Δ(2,3)", "W_5", "W_4", "W_3"]
        );
        assert_eq!(
            names(129),
            ["W_16", "Δ(3,4)", "W_12", "Δ(4,3)", "Δ(3,3)", "Δ(2,3)", "W_5", "W_4", "W_3"]
        );
    }

    #[test]
    fn f_is_built_for_every_length_but_7_to_10() {
        for len in 5..=600 {
            let f = local_path_f(len);
            if (7..=10).contains(&len) {
                assert!(f.is_err(), "F({len}) should not exist");
            } else {
                let f = f.unwrap_or_else(|e| panic!("F({len}): {e}"));
                assert_eq!(local_path_ends(&f).unwrap().1, F_THRESHOLD);
            }
        }
    }

    #[test]
    fn staircases_alone_reach_every_length_from_105() {
        assert!(stack_blocks(104, &[]).is_none());
        for len in 105..=600 {
            assert!(stack_blocks(len, &[]).is_some(), "F({len}) from staircases");
        }
    }

    #[test]
    fn stored_rainbows_are_rainbow_paths() {
        for (h, r) in STORED_RAINBOWS {
            let cycles = rainbow_arc_cycles(h, r).unwrap();
            assert_eq!(cycles.len(), 2 * h);
        }
    }

    #[test]
    fn rainbow_check_rejects_a_repeated_cycle() {
        // For h = 3 the run 0→…→5 takes C_0 … C_4, and then 5→A lies in C_{5+3} = C_2 again.
        let err = rainbow_arc_cycles(3, &[0, 1, 2, 3, 4, 5, 6]).unwrap_err();
        assert!(err.contains("twice"), "{err}");
    }
}

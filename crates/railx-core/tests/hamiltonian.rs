//! Tests of the Hamiltonian decompositions of K*_s against the note
//! `notes/hamiltonian-decomposition.md`. The checks here are written independently of the
//! library's own verification (`verify_rails`), which is tested separately.

use proptest::prelude::*;
use railx_core::hamiltonian::{
    hamiltonian_cycles, has_decomposition, rail_successors, rainbow_path, verify_rails,
    DecompositionError,
};

/// `h` for which the note stores the rainbow path, with the stored path (§7).
#[rustfmt::skip] // one row per h, as in the note's table
const STORED_RAINBOWS: [(usize, &[u32]); 6] = [
    (3, &[0, 1, 6, 5, 4, 2, 3]),
    (4, &[0, 1, 3, 4, 6, 8, 5, 2, 7]),
    (7, &[0, 1, 2, 3, 4, 5, 14, 13, 12, 10, 6, 7, 8, 11, 9]),
    (8, &[0, 1, 2, 3, 4, 5, 6, 9, 7, 16, 14, 10, 8, 13, 15, 11, 12]),
    (9, &[0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 18, 16, 12, 15, 17, 13, 11, 9, 14]),
    (10, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 20, 19, 18, 16, 17, 13, 14, 15, 9, 10, 11, 12]),
];

/// Panics unless `cycles` are s-1 node sequences, each a permutation of 0..s, whose s(s-1)
/// arcs (closing arc included) are pairwise distinct.
fn assert_decomposition(s: usize, cycles: &[Vec<u32>]) {
    assert_eq!(cycles.len(), s.saturating_sub(1), "s={s}: number of cycles");
    let mut used = vec![false; s * s];
    for (t, cycle) in cycles.iter().enumerate() {
        let mut sorted = cycle.clone();
        sorted.sort_unstable();
        assert!(
            sorted.iter().copied().eq(0..s as u32),
            "s={s}: cycle {t} is not a permutation of 0..{s}"
        );
        for (i, &u) in cycle.iter().enumerate() {
            let v = cycle[(i + 1) % s];
            let slot = &mut used[u as usize * s + v as usize];
            assert!(!*slot, "s={s}: arc {u}->{v} repeated (cycle {t})");
            *slot = true;
        }
    }
}

/// The successor permutation of a cycle given as a node sequence.
fn successors(cycle: &[u32]) -> Vec<u32> {
    let mut succ = vec![0; cycle.len()];
    for (i, &u) in cycle.iter().enumerate() {
        succ[u as usize] = cycle[(i + 1) % cycle.len()];
    }
    succ
}

/// Panics unless `rails` are exactly the successor permutations of `cycles`, in order.
fn assert_rails_follow_cycles(rails: &[Vec<u32>], cycles: &[Vec<u32>]) {
    let expected: Vec<Vec<u32>> = cycles.iter().map(|c| successors(c)).collect();
    assert_eq!(rails, expected);
}

/// Checks the full contract for one s with a decomposition.
fn assert_size_works(s: usize) {
    let cycles = hamiltonian_cycles(s).unwrap_or_else(|e| panic!("s={s}: {e}"));
    assert_decomposition(s, &cycles);
    let rails = rail_successors(s, false).unwrap_or_else(|e| panic!("s={s}: {e}"));
    assert_eq!(verify_rails(s, &rails, false), Ok(()), "s={s}");
    assert_rails_follow_cycles(&rails, &cycles);
    assert_eq!(
        rail_successors(s, true),
        Ok(rails),
        "s={s}: opt-in changes nothing"
    );
    assert!(has_decomposition(s));
}

/// For each cycle index t of K*_s, the cycle holding each arc: `owner[u * s + v] = t`.
fn arc_owners(s: usize, cycles: &[Vec<u32>]) -> Vec<usize> {
    let mut owner = vec![usize::MAX; s * s];
    for (t, cycle) in cycles.iter().enumerate() {
        for (i, &u) in cycle.iter().enumerate() {
            owner[u as usize * s + cycle[(i + 1) % s] as usize] = t;
        }
    }
    owner
}

/// The cycle of K*_{2h+1} holding x→y by the "d" form of the rule in §2 (the library uses the
/// "line" form, so the two are checked against each other through the constructed cycles).
fn cycle_by_difference(h: usize, x: usize, y: usize) -> usize {
    let n = 2 * h;
    if x == n {
        return y;
    }
    if y == n {
        return (x + h) % n;
    }
    let d = (y + n - x) % n;
    if d % 2 == 1 {
        (x + (d - 1) / 2) % n
    } else {
        (x + d / 2 + h) % n
    }
}

/// The cycle of K*_{2h+1} holding x→y by the "line" form of the rule in §2.
fn cycle_by_line(h: usize, x: usize, y: usize) -> usize {
    let n = 2 * h;
    if x == n {
        return y;
    }
    if y == n {
        return (x + h) % n;
    }
    let m = (x + y) / 2;
    let odd = (x + y) % 2 == 1;
    if (odd && y > x) || (!odd && y < x) {
        m
    } else {
        (m + h) % n
    }
}

/// Panics unless `r` is a Hamiltonian path on 0..=2h using one arc of every C_t, judged by `rule`.
fn assert_rainbow(h: usize, r: &[u32], rule: impl Fn(usize, usize) -> usize) {
    let mut sorted = r.to_vec();
    sorted.sort_unstable();
    assert!(
        sorted.iter().copied().eq(0..=2 * h as u32),
        "h={h}: not Hamiltonian"
    );
    let mut hits: Vec<usize> = r
        .windows(2)
        .map(|a| rule(a[0] as usize, a[1] as usize))
        .collect();
    hits.sort_unstable();
    assert_eq!(hits, (0..2 * h).collect::<Vec<_>>(), "h={h}: not rainbow");
}

#[test]
fn every_size_up_to_256_decomposes() {
    for s in (1..=256).filter(|&s| s != 4 && s != 6) {
        assert_size_works(s);
    }
}

#[test]
fn larger_sizes_decompose() {
    for s in [257, 258, 300, 511, 512, 1000, 1024, 1199, 1200] {
        assert_size_works(s);
    }
}

#[test]
fn smallest_sizes_are_as_specified() {
    assert_eq!(hamiltonian_cycles(0), Ok(vec![]));
    assert_eq!(hamiltonian_cycles(1), Ok(vec![]));
    assert_eq!(rail_successors(1, false), Ok(vec![]));
    assert_eq!(hamiltonian_cycles(2), Ok(vec![vec![0, 1]]));
    assert_eq!(
        hamiltonian_cycles(3),
        Ok(vec![vec![2, 0, 1], vec![2, 1, 0]])
    );
    assert_eq!(
        rail_successors(3, false),
        Ok(vec![vec![1, 2, 0], vec![2, 0, 1]])
    );
}

#[test]
fn worked_example_k8_matches_the_note() {
    let printed: [[u32; 8]; 7] = [
        [6, 0, 7, 1, 5, 2, 4, 3],
        [6, 1, 2, 0, 3, 5, 7, 4],
        [6, 2, 7, 3, 1, 4, 0, 5],
        [6, 3, 4, 7, 2, 5, 1, 0],
        [6, 4, 5, 3, 0, 2, 1, 7],
        [6, 7, 5, 0, 4, 1, 3, 2],
        [7, 0, 1, 6, 5, 4, 2, 3],
    ];
    let cycles = hamiltonian_cycles(8).unwrap();
    // The construction starts every cycle where the note prints it, so compare literally (which
    // implies equality as cyclic sequences).
    assert_eq!(cycles, printed.map(|row| row.to_vec()));
    assert_decomposition(8, &cycles);
}

#[test]
fn worked_example_k26_rainbow_path() {
    let r = rainbow_path(12).unwrap();
    let expected: Vec<u32> = [15, 16, 17, 11, 12, 13, 14, 21, 22, 18, 19, 20]
        .into_iter()
        .chain(0..=10)
        .chain([24, 23])
        .collect();
    assert_eq!(r, expected);

    let owners = arc_owners(25, &hamiltonian_cycles(25).unwrap());
    let hits: Vec<usize> = r
        .windows(2)
        .map(|a| owners[a[0] as usize * 25 + a[1] as usize])
        .collect();
    let noted: Vec<usize> = [15, 16, 14, 11, 12, 13, 17, 21, 20, 18, 19, 10]
        .into_iter()
        .chain(0..=9)
        .chain([22, 23])
        .collect();
    assert_eq!(hits, noted);
    assert_rainbow(12, &r, |x, y| owners[x * 25 + y]);

    let cycles = hamiltonian_cycles(26).unwrap();
    let last: Vec<u32> = std::iter::once(25).chain(r).collect();
    assert_eq!(cycles.last(), Some(&last));
}

#[test]
fn stored_rainbow_paths_are_used_and_valid() {
    for (h, stored) in STORED_RAINBOWS {
        let r = rainbow_path(h).unwrap();
        assert_eq!(r, stored, "h={h}");
        let s = 2 * h + 1;
        let owners = arc_owners(s, &hamiltonian_cycles(s).unwrap());
        assert_rainbow(h, &r, |x, y| owners[x * s + y]);
    }
}

#[test]
fn rainbow_paths_exist_for_every_h_from_3_to_600() {
    for h in 3..=600 {
        let r = rainbow_path(h).unwrap_or_else(|| panic!("no rainbow path for h={h}"));
        assert_rainbow(h, &r, |x, y| cycle_by_difference(h, x, y));
    }
    for h in 0..3 {
        assert_eq!(rainbow_path(h), None, "h={h}");
    }
}

#[test]
fn odd_arc_rule_matches_the_constructed_cycles() {
    for s in (3..=81).step_by(2) {
        let h = (s - 1) / 2;
        let owners = arc_owners(s, &hamiltonian_cycles(s).unwrap());
        for x in 0..s {
            for y in (0..s).filter(|&y| y != x) {
                let t = owners[x * s + y];
                assert_eq!(cycle_by_difference(h, x, y), t, "s={s} arc {x}->{y}");
                assert_eq!(cycle_by_line(h, x, y), t, "s={s} arc {x}->{y}");
            }
        }
    }
}

#[test]
fn four_and_six_need_the_opt_in() {
    for s in [4, 6] {
        assert_eq!(
            hamiltonian_cycles(s),
            Err(DecompositionError::NoneExists { s })
        );
        assert_eq!(
            rail_successors(s, false),
            Err(DecompositionError::NoneExists { s })
        );
        assert!(!has_decomposition(s));
    }
    assert_eq!(
        DecompositionError::NoneExists { s: 4 }.to_string(),
        "K*_4 has no decomposition into 3 directed Hamiltonian cycles (none exists for 4 or 6 nodes)"
    );
}

#[test]
fn fallback_for_four_is_exactly_the_note_s() {
    let rails = rail_successors(4, true).unwrap();
    // 0→1→2→3→0, its reverse, then the pairs (0,2), (1,3).
    assert_eq!(rails, [[1, 2, 3, 0], [3, 0, 1, 2], [2, 3, 0, 1]]);
    assert_eq!(verify_rails(4, &rails, true), Ok(()));
    let err = verify_rails(4, &rails, false).unwrap_err();
    assert!(
        err.contains("rail 2") && err.contains("single 4-cycle"),
        "{err}"
    );
}

#[test]
fn fallback_for_six_is_exactly_the_note_s() {
    let rails = rail_successors(6, true).unwrap();
    let expected = [
        [1, 2, 3, 4, 5, 0], // 0-1-2-3-4-5
        [5, 0, 1, 2, 3, 4], // its reverse
        [2, 5, 4, 0, 1, 3], // 0-2-4-1-5-3
        [3, 4, 0, 5, 2, 1], // its reverse
        [4, 3, 5, 1, 0, 2], // pairs (0,4), (1,3), (2,5)
    ];
    assert_eq!(rails, expected);
    assert_eq!(verify_rails(6, &rails, true), Ok(()));
    assert!(verify_rails(6, &rails, false).is_err());
}

#[test]
fn matching_rail_must_be_last_and_only_for_four_or_six() {
    let mut rails = rail_successors(6, true).unwrap();
    rails.swap(0, 4);
    let err = verify_rails(6, &rails, true).unwrap_err();
    assert!(
        err.contains("rail 0") && err.contains("single 6-cycle"),
        "{err}"
    );

    // For s = 2 the only rail is both a 2-cycle and an involution; the flag is irrelevant.
    assert_eq!(verify_rails(2, &[vec![1, 0]], true), Ok(()));
    // For s = 8 the flag does not admit an involution as the last rail.
    let mut rails = rail_successors(8, false).unwrap();
    let last = rails.len() - 1;
    rails[last] = vec![1, 0, 3, 2, 5, 4, 7, 6];
    let err = verify_rails(8, &rails, true).unwrap_err();
    assert!(
        err.contains("rail 6") && err.contains("single 8-cycle"),
        "{err}"
    );
}

#[test]
fn verify_rejects_bad_inputs_with_reasons() {
    let good = rail_successors(8, false).unwrap();
    let reject = |rails: &[Vec<u32>]| verify_rails(8, rails, false).unwrap_err();

    let err = reject(&good[..6]);
    assert_eq!(err, "expected 7 rails for 8 nodes, got 6");

    let mut short = good.clone();
    short[2].pop();
    assert!(
        reject(&short).contains("rail 2 has 7 entries"),
        "{}",
        reject(&short)
    );

    let mut repeated = good.clone();
    repeated[3] = repeated[1].clone();
    let err = reject(&repeated);
    assert!(err.contains("used by both rail 1 and rail 3"), "{err}");

    let mut split = good.clone();
    split[0] = vec![1, 2, 3, 0, 5, 6, 7, 4]; // two 4-cycles
    let err = reject(&split);
    assert!(err.contains("rail 0: not a single 8-cycle"), "{err}");

    let mut fixed = good.clone();
    fixed[5][3] = 3;
    assert!(reject(&fixed).contains("rail 5: node 3 is its own successor"));

    let mut outside = good.clone();
    outside[4][0] = 8;
    assert!(reject(&outside).contains("rail 4: node 0 has successor 8, outside 0..8"));

    let mut not_permutation = good.clone();
    let target = not_permutation[1][0];
    // Point a second node (not `target` itself, which would be a fixed point) at `target`.
    let other = (1..8).find(|&u| u as u32 != target).unwrap();
    not_permutation[1][other] = target;
    assert!(reject(&not_permutation).contains("successor of two nodes"));

    assert!(verify_rails(9, &good, false)
        .unwrap_err()
        .contains("expected 8 rails"));
    assert_eq!(verify_rails(0, &[], false), Ok(()));
    assert_eq!(verify_rails(1, &[], false), Ok(()));
}

#[test]
fn absurd_sizes_are_errors_not_panics() {
    assert!(matches!(
        hamiltonian_cycles(usize::MAX),
        Err(DecompositionError::Invalid { .. })
    ));
    assert!(rail_successors(usize::MAX, true).is_err());
    assert!(verify_rails(usize::MAX, &[], true).is_err());
    assert_eq!(rainbow_path(usize::MAX), None);
    assert_eq!(rainbow_path(usize::MAX / 2), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A random rail of a random K*_s is one s-cycle, and around a random node the rails'
    /// out-arcs and in-arcs each reach every other node exactly once.
    #[test]
    fn random_rail_is_a_ring_and_arcs_partition(
        s in (2usize..600).prop_filter("no decomposition", |&s| s != 4 && s != 6),
        rail_pick in any::<prop::sample::Index>(),
        node_pick in any::<prop::sample::Index>(),
    ) {
        let rails = rail_successors(s, false).unwrap();
        let rail = &rails[rail_pick.index(rails.len())];
        let mut node = 0usize;
        for step in 1..=s {
            node = rail[node] as usize;
            prop_assert!(node != 0 || step == s, "s={} returns to 0 after {} steps", s, step);
        }
        prop_assert_eq!(node, 0);

        let u = node_pick.index(s);
        let others: Vec<u32> = (0..s as u32).filter(|&v| v as usize != u).collect();
        let mut outs: Vec<u32> = rails.iter().map(|r| r[u]).collect();
        outs.sort_unstable();
        prop_assert_eq!(&outs, &others);
        let mut ins: Vec<u32> = rails
            .iter()
            .map(|r| r.iter().position(|&v| v as usize == u).unwrap() as u32)
            .collect();
        ins.sort_unstable();
        prop_assert_eq!(&ins, &others);
    }
}

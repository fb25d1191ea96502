//! SiPCO / Flex-SiPCO all-reduce on SiPAC (paper 003 §4) and the multicast flows it needs: the
//! schedules are correct as data movement for any job mapping, a multicast loads the tree of its
//! routes (each link once), and on a contention-free system the flow level takes exactly
//! (L + 1)(alpha + (r - 1) n / (r L) beta).

use proptest::prelude::*;
use railx_core::collectives::check::check;
use railx_core::collectives::group::SipacShape;
use railx_core::collectives::sipco::spanned_levels;
use railx_core::collectives::{build, Algo, DimKind, Group, Op};
use railx_core::network::Network;
use railx_core::peers::PeerSpec;
use railx_core::routing::peer::for_peer;
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flit_collective::simulate_collective_flit;
use railx_core::sim::flow::collective::{simulate_collective, CollectiveSpec};
use railx_core::sim::flow::paths::PathSet;
use railx_core::sim::flow::simulate;
use serde_json::json;

const RATE_BPS: f64 = 4e9;
const HOP_S: f64 = 300e-9;

fn spec(radix: u32, levels: u32, wavelengths: u32) -> PeerSpec {
    serde_json::from_value(json!({
        "family": "sipac", "radix": radix, "levels": levels,
        "wavelengths": wavelengths, "wavelength_rate_Bps": RATE_BPS, "link_latency_s": HOP_S,
    }))
    .unwrap()
}

fn all_reduce(algo: Algo, size_bytes: u64) -> CollectiveSpec {
    CollectiveSpec {
        op: Op::AllReduce,
        algo,
        size_bytes,
        chunks: 1,
        reduce_s_per_byte: 0.0,
    }
}

/// The contention-free SiPCO time: l̂ + 1 steps, each a lightpath (two fibre hops) and r - 1
/// chunks of n / (r l̂) bytes through one port of `port_Bps`.
#[allow(non_snake_case)]
fn sipco_time_s(r: u32, lh: u32, n: f64, port_Bps: f64) -> f64 {
    (lh + 1) as f64 * (2.0 * HOP_S + (r - 1) as f64 * n / (r * lh) as f64 / port_Bps)
}

/// The box's radix on each level the job spans: the number of digit values its CUs use there.
fn box_radices(r: u32, l: u32, job: &[u32]) -> Vec<u32> {
    spanned_levels(
        SipacShape {
            radix: r,
            levels: l,
        },
        job,
    )
    .into_iter()
    .map(|level| {
        let digits: std::collections::BTreeSet<u32> =
            job.iter().map(|&cu| cu / r.pow(level) % r).collect();
        digits.len() as u32
    })
    .collect()
}

/// A SiPAC of r^L <= 64 CUs (the checker's limit) and a job: a non-empty subset, in any order.
fn system_and_job() -> impl Strategy<Value = (u32, u32, Vec<u32>)> {
    (2u32..=4, 1u32..=3)
        .prop_filter("at most 64 CUs", |(r, l)| r.pow(*l) <= 64)
        .prop_flat_map(|(r, l)| {
            let n = r.pow(l);
            let job = prop::sample::subsequence((0..n).collect::<Vec<_>>(), 2..=n as usize)
                .prop_shuffle();
            (Just(r), Just(l), job)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Flex-SiPCO on any job mapping: correct as data movement (every CU ends with the full
    /// reduction under every execution order) when the job has the r^(l̂-1) CUs its stand-ins
    /// need, else refused in one line.
    #[test]
    fn flex_sipco_is_correct_for_random_job_mappings((r, l, job) in system_and_job(), chunks in 1u32..=2) {
        let peer = spec(r, l, l);
        let group = peer.job_group(job.clone(), r.pow(l)).unwrap();
        let radices = box_radices(r, l, &job);
        let positions: u32 = radices.iter().product();
        let fits = radices.iter().all(|&rk| job.len() as u32 >= positions / rk);
        match build(Op::AllReduce, Algo::FlexSipco, &group, 1 << 16, chunks) {
            Ok(s) => {
                prop_assert!(fits);
                check(&s).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert!(radices.iter().all(|&rk| rk >= 2 && rk <= r));
                if radices.iter().all(|&rk| rk == radices[0]) {
                    // Equal radices: the paper's r l̂ equal chunks.
                    prop_assert_eq!(s.units, (radices[0] * radices.len() as u32 * chunks) as u64);
                }
            }
            Err(e) => {
                prop_assert!(!fits, "{}", e);
                let msg = e.to_string();
                prop_assert!(msg.starts_with("cus = ") && !msg.contains('\n'), "{}", msg);
                prop_assert!(msg.contains("use --algo direct"), "{}", msg);
            }
        }
        // Mesh (direct) all-reduce runs on the same CUs.
        let s = build(Op::AllReduce, Algo::Direct, &group, 1 << 16, chunks).unwrap();
        check(&s).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    /// A multicast loads the union of its destinations' routes with each link once (coefficient
    /// 1 on a deterministic route), and takes the farthest destination's latency; on one
    /// destination it is the unicast path.
    #[test]
    fn a_multicast_tree_counts_each_link_once(r in 2u32..=4, l in 1u32..=3, src in 0u32..64, dsts in prop::collection::btree_set(0u32..64, 1..6)) {
        let peer = spec(r, l, l);
        let net = peer.network().unwrap();
        let n = net.chips();
        let src = src % n;
        let dsts: Vec<u32> = dsts.into_iter().map(|d| d % n).filter(|&d| d != src).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        prop_assume!(!dsts.is_empty());
        let routing = for_peer(&peer, &net, None).unwrap();
        let identity: Vec<u32> = (0..net.links() as u32).collect();
        let tree = PathSet::route_trees(routing.as_ref(), &net.latency_s, &identity, &[(src, &dsts)]).unwrap();
        let pairs: Vec<(u32, u32)> = dsts.iter().map(|&d| (src, d)).collect();
        let unicast = PathSet::route_all(routing.as_ref(), &net.latency_s, &identity, &pairs).unwrap();
        let mut union = std::collections::BTreeSet::new();
        let mut latency: f64 = 0.0;
        for i in 0..pairs.len() as u32 {
            union.extend(unicast.path(i).0.iter().copied());
            latency = latency.max(unicast.latency_s(i));
        }
        let (links, coeff) = tree.path(0);
        prop_assert_eq!(links.to_vec(), union.into_iter().collect::<Vec<_>>());
        prop_assert!(coeff.iter().all(|&a| a == 1.0));
        prop_assert_eq!(tree.latency_s(0), latency);
        let one = PathSet::route_trees(routing.as_ref(), &net.latency_s, &identity, &[(src, &dsts[..1])]).unwrap();
        prop_assert_eq!(one.path(0), unicast.path(0));
    }

    /// At flow level a multicast to one destination is the unicast message.
    #[test]
    fn a_multicast_to_one_destination_is_the_unicast_flow(r in 2u32..=4, src in 0u32..16, dst in 0u32..16, bytes in 1u64..1_000_000) {
        let peer = spec(r, 2, 2);
        let net = peer.network().unwrap();
        let (src, dst) = (src % net.chips(), dst % net.chips());
        prop_assume!(src != dst);
        let routing = for_peer(&peer, &net, None).unwrap();
        let mut uni = MessageDag::new();
        uni.push(src, dst, bytes, 0.0, &[]).unwrap();
        let mut multi = MessageDag::new();
        multi.push_multicast(src, &[dst], bytes, 0.0, &[]).unwrap();
        prop_assert_eq!(uni.clone(), multi.clone());
        let a = simulate(&net, routing.as_ref(), &uni, 0).unwrap();
        let b = simulate(&net, routing.as_ref(), &multi, 0).unwrap();
        prop_assert_eq!(a, b);
    }
}

/// One transmission to the r - 1 other CUs of a WSS takes one message's time (the source's
/// uplink carries it once); the same data as r - 1 unicasts shares that uplink r - 1 ways.
#[test]
fn a_wss_multicast_costs_one_transmission() {
    let (r, bytes) = (4u32, 4_000_000u64);
    let peer = spec(r, 2, 2);
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let port_bps = RATE_BPS; // 2 wavelengths over 2 levels: one per port
    let mut multi = MessageDag::new();
    multi
        .push_multicast(0, &[1, 2, 3], bytes, 0.0, &[])
        .unwrap();
    let t = simulate(&net, routing.as_ref(), &multi, 0)
        .unwrap()
        .completion_s;
    let one = 2.0 * HOP_S + bytes as f64 / port_bps;
    assert!((t - one).abs() < 1e-12 * one, "{t} vs {one}");
    let copies = multi.unicast_copies();
    assert_eq!(copies.len(), 3);
    let t = simulate(&net, routing.as_ref(), &copies, 0)
        .unwrap()
        .completion_s;
    let shared = 2.0 * HOP_S + 3.0 * bytes as f64 / port_bps;
    assert!((t - shared).abs() < 1e-12 * shared, "{t} vs {shared}");
}

fn run_flow(peer: &PeerSpec, net: &Network, cus: Vec<u32>, algo: Algo, size: u64) -> f64 {
    let routing = for_peer(peer, net, None).unwrap();
    let group = peer.job_group(cus, net.chips()).unwrap();
    simulate_collective(net, routing.as_ref(), &group, &all_reduce(algo, size))
        .unwrap()
        .report
        .completion_s
}

/// SiPCO over every CU with the even wavelength spread: every level carries one group per step
/// and no two flows share a bottleneck beyond a CU's r - 1, so the flow level is the closed form
/// exactly; a job filling a sub-SiPAC (l̂ < L) likewise, with its l̂ levels.
#[test]
fn flow_level_equals_the_closed_form_when_contention_free() {
    for (r, l, w) in [(2u32, 3u32, 3u32), (4, 2, 8), (4, 3, 12), (8, 2, 16)] {
        let peer = spec(r, l, w);
        let net = peer.network().unwrap();
        let n = (r * l) as u64 * 1_000_000;
        let port = w as f64 / l as f64 * RATE_BPS;
        let all: Vec<u32> = (0..net.chips()).collect();
        for algo in [Algo::Sipco, Algo::FlexSipco] {
            let t = run_flow(&peer, &net, all.clone(), algo, n);
            let want = sipco_time_s(r, l, n as f64, port);
            assert!(
                (t - want).abs() <= 1e-9 * want,
                "{r} {l} {algo:?}: {t} vs {want}"
            );
        }
        if l > 1 {
            // The first r^(L-1) CUs: a SiPAC(r, L-1) on levels 0 .. L-2.
            let sub: Vec<u32> = (0..r.pow(l - 1)).collect();
            let t = run_flow(&peer, &net, sub, Algo::FlexSipco, n);
            let nn = n as f64;
            let want = sipco_time_s(r, l - 1, nn, port);
            assert!(
                (t - want).abs() <= 1e-9 * want,
                "{r} {l} sub: {t} vs {want}"
            );
        }
    }
}

/// SiPCO beats the direct all-reduce of the same CUs (relayed over L levels) on bandwidth.
#[test]
fn sipco_is_faster_than_direct_at_large_sizes() {
    let peer = spec(4, 3, 12);
    let net = peer.network().unwrap();
    let all: Vec<u32> = (0..64).collect();
    let n = 12 << 20;
    let sipco = run_flow(&peer, &net, all.clone(), Algo::Sipco, n);
    let direct = run_flow(&peer, &net, all, Algo::Direct, n);
    assert!(sipco < direct, "{sipco} vs {direct}");
}

/// At flit level (multicasts lowered to unicast copies; SiPCO's bottleneck is the receivers'
/// links, which the copies do not change) SiPCO runs at the flow level's time: every position
/// addresses its WSS peers in rotated order, so the sources' first messages do not all go to the
/// same peer (in ascending digit order the flit level took 2.27x the flow time on SiPAC(4, 2) at
/// 1 MiB, its links half idle; docs/flex-sipac.md). Measured: 1.00x at 1 MiB.
#[test]
fn flit_level_runs_sipco_at_the_flow_levels_time() {
    let peer = spec(4, 2, 4);
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let group = peer.collective_group(16).unwrap();
    let spec = all_reduce(Algo::Sipco, 1 << 18);
    let flow = simulate_collective(&net, routing.as_ref(), &group, &spec)
        .unwrap()
        .report
        .completion_s;
    let flit = simulate_collective_flit(&net, routing.as_ref(), &group, &spec, 256).unwrap();
    assert!(flit.report.completed);
    let ratio = flit.time_s / flow;
    assert!(
        (0.99..1.03).contains(&ratio),
        "flit {} vs flow {flow}",
        flit.time_s
    );
}

/// Why Flex-SiPCO is slow on sparse placements (docs/collectives.md): a job of k CUs in a box
/// of P positions keeps P / k positions' chunks per CU, each reduced by multicast with its r - 1
/// WSS peers at every step. The diagonal {0, 5, 10, 15} of SiPAC(4, 2) has one CU on every WSS:
/// each CU stands in for every digit (P / k = r = 4), so the reduce-scatter and all-gather steps
/// are local and each CU receives, in the l-hat - 1 multicast steps of the l-hat groups, r
/// positions x (r - 1) chunks of n / (r l-hat): (l-hat - 1)(r - 1) n = 3n, against the
/// 2 (k - 1) / k n = 1.5n direct receives. Both are bandwidth bound on the receivers' links.
#[test]
fn flex_sipco_on_a_sparse_box_moves_positions_per_cu_times_the_data() {
    let peer = spec(4, 2, 4);
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let n = 3u64 << 20;
    let group = peer.job_group(vec![0, 5, 10, 15], 16).unwrap();
    let received = |algo: Algo| {
        let dag = build(Op::AllReduce, algo, &group, n, 1)
            .unwrap()
            .to_dag(0.0)
            .unwrap();
        let mut into = [0u64; 16];
        for id in 0..dag.len() {
            for &d in dag.dsts(id) {
                into[d as usize] += dag.bytes(id);
            }
        }
        (into[0] as f64 / n as f64, dag)
    };
    let (sipco_in, sipco_dag) = received(Algo::FlexSipco);
    let (direct_in, _) = received(Algo::Direct);
    assert!((sipco_in - 3.0).abs() < 1e-9, "{sipco_in}");
    assert!((direct_in - 1.5).abs() < 1e-9, "{direct_in}");
    // The run is bound by that volume through the receivers' ports (2 wavelengths of 4e9 B/s).
    let t = simulate(&net, routing.as_ref(), &sipco_dag, 0)
        .unwrap()
        .completion_s;
    let volume_s = sipco_in * n as f64 / (2.0 * RATE_BPS);
    assert!(t >= volume_s && t < 1.05 * volume_s, "{t} vs {volume_s}");
}

#[test]
fn bad_uses_are_one_line_errors() {
    let peer = spec(4, 2, 2);
    let part = peer.job_group((0..8).collect(), 16).unwrap();
    let err = build(Op::AllReduce, Algo::Sipco, &part, 1024, 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("use --algo flex-sipco"), "{err}");
    let whole = peer.collective_group(16).unwrap();
    let err = build(Op::AllGather, Algo::Sipco, &whole, 1024, 1)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("op = all-gather"), "{err}");
    // A group without SiPAC addresses (any other family's).
    let plain = Group::line((0..8).collect(), DimKind::AllToAll, 8).unwrap();
    let err = build(Op::AllReduce, Algo::FlexSipco, &plain, 1024, 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("SiPAC"), "{err}");
    let err = peer.job_group(vec![3, 3], 16).unwrap_err().to_string();
    assert!(err.contains("each chip holds one rank"), "{err}");
    let err = peer.job_group(vec![3, 16], 16).unwrap_err().to_string();
    assert!(err.contains("the network has 16 chips"), "{err}");
}

/// SiPCO's bottleneck is each CU's incoming link (r - 1 chunks in per step, one out), so the
/// flit level's lowering of multicasts to unicast copies keeps its flow-level time.
#[test]
fn unicast_copies_keep_sipcos_flow_time() {
    let peer = spec(4, 2, 4);
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let group = peer.job_group((0..16).collect(), 16).unwrap();
    let dag = build(Op::AllReduce, Algo::Sipco, &group, 1 << 20, 1)
        .unwrap()
        .to_dag(0.0)
        .unwrap();
    let multicast = simulate(&net, routing.as_ref(), &dag, 0)
        .unwrap()
        .completion_s;
    let copies = simulate(&net, routing.as_ref(), &dag.unicast_copies(), 0)
        .unwrap()
        .completion_s;
    assert!(
        (multicast - copies).abs() <= 1e-12 * multicast,
        "{multicast} vs {copies}"
    );
}

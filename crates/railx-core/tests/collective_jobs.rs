//! Several jobs' collectives in one flow-level run (`simulate_collectives`): one job is the
//! single-collective run; jobs on disjoint parts of a SiPAC finish as each would alone (they
//! share no link); the union of DAGs keeps each job's dependencies; CUs in two jobs are refused.

use railx_core::collectives::check::check;
use railx_core::collectives::{build, Algo, Op};
use railx_core::peers::PeerSpec;
use railx_core::routing::peer::for_peer;
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flow::collective::{
    simulate_collective, simulate_collectives, CollectiveJob, CollectiveSpec,
};
use serde_json::json;

fn sipac(radix: u32, levels: u32, wavelengths: u32, cu_split: Option<Vec<Vec<u32>>>) -> PeerSpec {
    let mut v = json!({
        "family": "sipac", "radix": radix, "levels": levels,
        "wavelengths": wavelengths, "wavelength_rate_Bps": 4e9, "link_latency_s": 300e-9,
    });
    if let Some(split) = cu_split {
        v["cu_level_wavelengths"] = json!(split);
    }
    serde_json::from_value(v).unwrap()
}

fn job(peer: &PeerSpec, chips: u32, cus: Vec<u32>, algo: Algo, size_bytes: u64) -> CollectiveJob {
    CollectiveJob {
        group: peer.job_group(cus, chips).unwrap(),
        spec: CollectiveSpec {
            op: Op::AllReduce,
            algo,
            size_bytes,
            chunks: 1,
            reduce_s_per_byte: 0.0,
        },
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn one_job_is_the_single_collective_run() {
    let peer = sipac(4, 3, 12, None);
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    for (cus, algo) in [
        ((0..64).collect::<Vec<u32>>(), Algo::Sipco),
        ((16..48).collect(), Algo::FlexSipco),
        (vec![3, 9, 17, 40, 41], Algo::Direct),
    ] {
        let j = job(&peer, net.chips(), cus, algo, 1 << 20);
        let one = simulate_collective(&net, routing.as_ref(), &j.group, &j.spec).unwrap();
        let jobs = simulate_collectives(&net, routing.as_ref(), &[j], None).unwrap();
        assert_eq!(one, jobs);
        assert_eq!(jobs.job_completion_s, vec![jobs.report.completion_s]);
    }
}

/// Jobs on disjoint sub-SiPACs (CUs 0-15 and 16-31 of SiPAC(4, 3): levels 0 and 1, digit 2
/// fixed) and on two level-0 WSS of a third block: no link is shared, so together each takes
/// exactly its time alone, and the run's completion is the slowest job's.
#[test]
fn disjoint_sub_boxes_finish_as_each_alone() {
    let peer = sipac(4, 3, 12, None);
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let jobs = vec![
        job(
            &peer,
            net.chips(),
            (0..16).collect(),
            Algo::FlexSipco,
            3 << 20,
        ),
        job(
            &peer,
            net.chips(),
            (16..32).collect(),
            Algo::FlexSipco,
            1 << 20,
        ),
        job(
            &peer,
            net.chips(),
            (32..36).collect(),
            Algo::Direct,
            1 << 20,
        ),
        job(
            &peer,
            net.chips(),
            (36..40).collect(),
            Algo::FlexSipco,
            2 << 20,
        ),
    ];
    let together = simulate_collectives(&net, routing.as_ref(), &jobs, None).unwrap();
    assert_eq!(together.job_completion_s.len(), jobs.len());
    for (j, &t) in jobs.iter().zip(&together.job_completion_s) {
        let alone = simulate_collective(&net, routing.as_ref(), &j.group, &j.spec).unwrap();
        assert!(
            close(t, alone.report.completion_s),
            "{t} vs {}",
            alone.report.completion_s
        );
        // Every job's schedule still moves its data correctly.
        let s = build(j.spec.op, j.spec.algo, &j.group, j.spec.size_bytes, 1).unwrap();
        check(&s).unwrap();
    }
    let slowest = together
        .job_completion_s
        .iter()
        .cloned()
        .fold(0.0, f64::max);
    assert_eq!(together.report.completion_s, slowest);
    let messages: u64 = jobs
        .iter()
        .map(|j| {
            build(j.spec.op, j.spec.algo, &j.group, j.spec.size_bytes, 1)
                .unwrap()
                .len() as u64
        })
        .sum();
    assert_eq!(together.report.messages, messages);
}

/// Two jobs whose routes cross each other's CUs contend: together, neither is faster than
/// alone. (Interleaved CUs 0, 2, 4, .. and 1, 3, 5, .. of SiPAC(4, 2): a direct pair that
/// differs in both digits is relayed through a CU of the other job.)
#[test]
fn jobs_sharing_a_level_are_not_faster() {
    let peer = sipac(4, 2, 8, None);
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let evens: Vec<u32> = (0..16).step_by(2).collect();
    let odds: Vec<u32> = (1..16).step_by(2).collect();
    let jobs = vec![
        job(&peer, net.chips(), evens, Algo::Direct, 1 << 20),
        job(&peer, net.chips(), odds, Algo::Direct, 1 << 20),
    ];
    let together = simulate_collectives(&net, routing.as_ref(), &jobs, None).unwrap();
    for (j, &t) in jobs.iter().zip(&together.job_completion_s) {
        let alone = simulate_collective(&net, routing.as_ref(), &j.group, &j.spec).unwrap();
        assert!(t >= alone.report.completion_s * (1.0 - 1e-12));
    }
}

#[test]
fn overlapping_jobs_are_refused_in_one_line() {
    let peer = sipac(4, 2, 8, None);
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let jobs = vec![
        job(&peer, net.chips(), (0..8).collect(), Algo::Direct, 1024),
        job(&peer, net.chips(), (6..12).collect(), Algo::Direct, 1024),
    ];
    let e = simulate_collectives(&net, routing.as_ref(), &jobs, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("jobs[1].cus") && e.contains("also in jobs[0]"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    let e = simulate_collectives(&net, routing.as_ref(), &[], None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("jobs") && e.contains("at least one job"), "{e}");
}

#[test]
fn append_renumbers_dependencies() {
    let mut a = MessageDag::new();
    let a0 = a.push(0, 1, 10, 0.0, &[]).unwrap();
    a.push_multicast(1, &[2, 3], 20, 0.0, &[a0]).unwrap();
    let mut b = MessageDag::new();
    let b0 = b.push(4, 5, 30, 0.0, &[]).unwrap();
    b.push(5, 6, 40, 1e-6, &[b0]).unwrap();
    let ids = a.append(&b);
    assert_eq!(ids, 2..4);
    assert_eq!(a.after(3), &[2]);
    assert_eq!(a.after(1), &[0]);
    assert_eq!(a.dsts(1), &[2, 3]);
    assert_eq!(
        (a.src(3), a.dst(3), a.bytes(3), a.delay_s(3)),
        (5, 6, 40, 1e-6)
    );
}

/// A per-CU split leaves a CU's other ports dark: its job, placed on the levels it keeps,
/// runs at the concentrated port's bandwidth (CUs 0-3 of SiPAC(4, 2) on one level-0 WSS, every
/// wavelength on level 0: twice the even split's port, so the bandwidth term halves).
#[test]
fn per_cu_split_concentrates_a_job_on_its_level() {
    let even = sipac(4, 2, 8, None);
    let split: Vec<Vec<u32>> = (0..16)
        .map(|cu| if cu < 4 { vec![8, 0] } else { vec![4, 4] })
        .collect();
    let flex = sipac(4, 2, 8, Some(split));
    let size = 12 << 20;
    let time = |peer: &PeerSpec| {
        let net = peer.network().unwrap();
        let routing = for_peer(peer, &net, None).unwrap();
        let j = job(peer, net.chips(), (0..4).collect(), Algo::FlexSipco, size);
        simulate_collectives(&net, routing.as_ref(), &[j], None)
            .unwrap()
            .report
            .completion_s
    };
    // Two steps (l-hat = 1) of one lightpath and r - 1 chunks of n / r through a port.
    let expect = |port_bps: f64| 2.0 * (600e-9 + 3.0 * (size as f64 / 4.0) / port_bps);
    assert!(close(time(&even), expect(4.0 * 4e9)));
    assert!(close(time(&flex), expect(8.0 * 4e9)));
    let bad = serde_json::from_value::<PeerSpec>(json!({
        "family": "sipac", "radix": 4, "levels": 2, "wavelengths": 8, "wavelength_rate_Bps": 4e9,
        "cu_level_wavelengths": [[8, 1]],
    }))
    .map_err(|e| e.to_string())
    .and_then(|p| p.network().map(|_| ()).map_err(|e| e.to_string()))
    .unwrap_err();
    assert!(bad.contains("cu_level_wavelengths"), "{bad}");
}

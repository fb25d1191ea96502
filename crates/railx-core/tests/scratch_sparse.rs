use railx_core::collectives::{build, Algo, Op};
use railx_core::peers::PeerSpec;
use railx_core::routing::peer::for_peer;
use railx_core::sim::flow::simulate;
use serde_json::json;

#[test]
fn scratch() {
    let peer: PeerSpec = serde_json::from_value(json!({
        "family": "sipac", "radix": 8, "levels": 3, "wavelengths": 60, "wavelength_rate_Bps": 4e9, "link_latency_s": 300e-9,
    })).unwrap();
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let jobs: Vec<(&str, Vec<u32>)> = vec![
        ("0-63", (0..64).collect()),
        ("0-99", (0..100).collect()),
        ("rand64", std::env::var("R64").unwrap().split(',').map(|x| x.parse().unwrap()).collect()),
        ("rand128", std::env::var("R128").unwrap().split(',').map(|x| x.parse().unwrap()).collect()),
    ];
    let n = 6u64 << 20;
    for (name, cus) in jobs {
        for algo in [Algo::FlexSipco, Algo::Direct] {
            let group = peer.job_group(cus.clone(), net.chips()).unwrap();
            let s = build(Op::AllReduce, algo, &group, n, 1).unwrap();
            let dag = s.to_dag(0.0).unwrap();
            let mut sent = vec![0u64; 512];
            let mut recv = vec![0u64; 512];
            let mut stages = std::collections::BTreeMap::new();
            for id in 0..dag.len() {
                sent[dag.src(id) as usize] += dag.bytes(id);
                for &d in dag.dsts(id) { recv[d as usize] += dag.bytes(id); }
                *stages.entry(s.stage_of(id)).or_insert(0u64) += dag.bytes(id) * dag.dsts(id).len() as u64;
            }
            let r = simulate(&net, routing.as_ref(), &dag, 1).unwrap();
            let t = r.timeline.as_ref().unwrap();
            let mut loads: Vec<f64> = t.mean.iter().zip(&r.resource_capacity_Bps).map(|(m, c)| m * c * r.completion_s).collect();
            let bound = t.mean.iter().zip(&r.resource_capacity_Bps).map(|(m, c)| m * c * r.completion_s / c).fold(0.0, f64::max);
            loads.sort_by(|a, b| b.partial_cmp(a).unwrap());
            let total: f64 = loads.iter().sum();
            println!("{name} {:?}: {:.1} us, msgs {}, max sent {:.2} n, max recv {:.2} n, mean recv {:.2} n, busiest link {:.2} n, bytes on links {:.1} n/CU, bottleneck bound {:.1} us, stage bytes/CU (n) {:?}",
                algo, r.completion_s*1e6, dag.len(),
                *sent.iter().max().unwrap() as f64 / n as f64,
                *recv.iter().max().unwrap() as f64 / n as f64,
                cus.iter().map(|&c| recv[c as usize]).sum::<u64>() as f64 / cus.len() as f64 / n as f64,
                loads[0] / n as f64, total / cus.len() as f64 / n as f64, bound * 1e6,
                stages.iter().map(|(k, v)| (*k, format!("{:.2}", *v as f64 / cus.len() as f64 / n as f64))).collect::<Vec<_>>());
        }
    }
}

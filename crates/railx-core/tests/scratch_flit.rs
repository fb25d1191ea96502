use railx_core::collectives::{build, Algo, Op};
use railx_core::peers::PeerSpec;
use railx_core::routing::peer::for_peer;
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flit::{simulate as flit, Traffic};
use railx_core::sim::flit_collective::flit_config;
use railx_core::sim::flow::simulate;
use serde_json::json;

#[test]
fn scratch() {
    let peer: PeerSpec = serde_json::from_value(json!({
        "family": "sipac", "radix": 4, "levels": 2, "wavelengths": 4, "wavelength_rate_Bps": 4e9, "link_latency_s": 300e-9,
    })).unwrap();
    let net = peer.network().unwrap();
    let routing = for_peer(&peer, &net, None).unwrap();
    let n = 1u64 << 20;
    for algo in [Algo::Sipco, Algo::Direct] {
        let group = if algo == Algo::Sipco { peer.collective_group(16).unwrap() } else { peer.job_group((0..16).collect(), 16).unwrap() };
        let s = build(Op::AllReduce, algo, &group, n, 1).unwrap();
        let full = s.to_dag(0.0).unwrap();
        let stages: std::collections::BTreeSet<u16> = (0..s.len()).map(|i| s.stage_of(i)).collect();
        let mut parts: Vec<(String, MessageDag)> = vec![("full".into(), full.clone())];
        for &st in &stages {
            let mut d = MessageDag::new();
            for id in 0..full.len() {
                if s.stage_of(id) == st {
                    d.push_multicast(full.src(id), full.dsts(id), full.bytes(id), 0.0, &[]).unwrap();
                }
            }
            parts.push((format!("stage {st}"), d));
        }
        for (name, d) in parts {
            let flow_m = simulate(&net, routing.as_ref(), &d, 0).unwrap().completion_s;
            let lowered = d.unicast_copies();
            let flow_u = simulate(&net, routing.as_ref(), &lowered, 0).unwrap().completion_s;
            let base = flit_config(&net, 256, routing.vcs()).unwrap();
            let mut line = format!("{algo:?} {name}: msgs {} flow(mcast) {:.1} us flow(copies) {:.1} us", d.len(), flow_m*1e6, flow_u*1e6);
            for (label, cfg) in [
                ("flit", base.clone()),
                ("speedup2", { let mut c = base.clone(); c.switch_speedup = 2; c.output_buffer_flits = 64; c }),
                ("iters4", { let mut c = base.clone(); c.alloc_iterations = 4; c }),
            ] {
                let r = flit(&net, routing.as_ref(), &cfg, &Traffic::Dag(lowered.clone())).unwrap();
                let t = r.completion_cycles.unwrap() as f64 * r.cycle_s;
                line += &format!(" | {label} {:.1} us ({:.2}x) util mean {:.2} max {:.2}", t*1e6, t/flow_m, r.mean_link_utilisation, r.max_link_utilisation);
            }
            println!("{line}");
        }
    }
}

//! Builders shared by the integration tests.
#![allow(dead_code)]

use railx_core::network::Network;
use railx_core::routing::{Hop, LinkEnds, RouteState, Routing};
use railx_core::spec::{ConfigSpec, DimKind, DimSpec, Preset, SystemSpec, TopologySpec};
use std::collections::VecDeque;

pub fn system(m: u32, n: u32, radix: u32, grid: [u32; 2]) -> SystemSpec {
    SystemSpec {
        m,
        n,
        R: radix,
        grid: Some(grid),
        port_bw_Bps: 50e9,
        intra_bw_Bps: 100e9,
        alpha_out_s: 300e-9,
        alpha_in_s: 10e-9,
    }
}

pub fn preset(system: SystemSpec, preset: Preset) -> ConfigSpec {
    ConfigSpec {
        system,
        topology: Some(TopologySpec {
            preset: Some(preset),
            ..Default::default()
        }),
        jobs: vec![],
    }
}

pub fn dim(size: u32, kind: DimKind, rails: u32) -> DimSpec {
    DimSpec { size, kind, rails }
}

pub fn general(system: SystemSpec, x: Vec<DimSpec>, y: Vec<DimSpec>) -> ConfigSpec {
    ConfigSpec {
        system,
        topology: Some(TopologySpec {
            preset: None,
            x: Some(x),
            y: Some(y),
            allow_matching_rail: false,
        }),
        jobs: vec![],
    }
}

/// One VC for everything: on a torus the rings (on a Dragonfly the local-global chains) close
/// dependency cycles.
pub struct SingleVc<'a>(pub &'a dyn Routing);

impl Routing for SingleVc<'_> {
    fn name(&self) -> &'static str {
        "single-vc"
    }
    fn vcs(&self) -> u8 {
        1
    }
    fn chips(&self) -> &[u32] {
        self.0.chips()
    }
    fn destinations_per_group(&self) -> usize {
        self.0.destinations_per_group()
    }
    fn next_hops(&self, chip: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        let start = out.len();
        self.0.next_hops(chip, dst, state, out);
        for hop in &mut out[start..] {
            hop.vc = 0;
        }
    }
    fn links(&self) -> &LinkEnds {
        self.0.links()
    }
}

/// Fewest links from `src` to every vertex. Links are full duplex, so this is also the fewest
/// links from every vertex to `src`.
pub fn bfs(net: &Network, src: u32) -> Vec<u32> {
    let mut out = vec![Vec::new(); net.vertices() as usize];
    for l in 0..net.links() {
        out[net.src[l] as usize].push(net.dst[l]);
    }
    let mut dist = vec![u32::MAX; out.len()];
    dist[src as usize] = 0;
    let mut queue = VecDeque::from([src]);
    while let Some(v) = queue.pop_front() {
        for &w in &out[v as usize] {
            if dist[w as usize] == u32::MAX {
                dist[w as usize] = dist[v as usize] + 1;
                queue.push_back(w);
            }
        }
    }
    dist
}

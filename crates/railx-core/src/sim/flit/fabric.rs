//! The network as the simulator sees it: per router, its input ports (incoming links, then the
//! injection port of a chip) and output ports (outgoing links, then the ejection port), with each
//! port's rate in ticks per flit and its latency in cycles, all computed once.
//!
//! Time inside a cycle is counted in ticks (`TICKS` per cycle) so that links of any rate, k flits
//! per cycle included, serialize packets exactly in integer arithmetic. The slowest link of the
//! network runs at one flit per cycle (the paper's normalisation); the others at their bandwidth
//! ratio to it.

use super::config::FlitConfig;
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};

/// Ticks per cycle.
pub const TICKS: u64 = 1 << 16;

/// Marks the injection or ejection port (a port with no link).
pub const NO_LINK: u32 = u32::MAX;

/// A router port as the cycle loop reads it: one record, so that a grant touches a cache line per
/// port rather than one per attribute.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Port {
    /// Its link (`NO_LINK` for injection and ejection).
    pub link: u32,
    /// Latency of its link in cycles (0 for injection and ejection).
    pub latency: u32,
    pub ticks_per_flit: u64,
    /// The router at the link's other end, and this link's port there among that router's
    /// ports of the other kind (its input port for an output, its output port for an input);
    /// `NO_LINK` for injection and ejection.
    pub peer: u32,
    pub peer_port: u32,
}

pub(crate) struct Fabric {
    pub vertices: u32,
    /// Router `v`'s input ports are `in_start[v]..in_start[v + 1]` (global port ids).
    pub in_start: Vec<u32>,
    pub out_start: Vec<u32>,
    /// Every global input and output port.
    pub ins: Vec<Port>,
    pub outs: Vec<Port>,
    /// Global output port at the near end of each link.
    pub link_out_port: Vec<u32>,
    /// Flits per cycle of each link.
    pub link_flits_per_cycle: Vec<f64>,
    /// Largest ticks per flit of any port.
    pub slowest_ticks_per_flit: u64,
    pub longest_latency: u32,
}

impl Fabric {
    pub fn new(net: &Network, config: &FlitConfig, is_chip: &[bool]) -> Result<Fabric> {
        let vertices = net.vertices();
        let base = net
            .bandwidth_Bps
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        if net.links() == 0 || !(base.is_finite() && base > 0.0) {
            return Err(RailxError::invalid(
                "network",
                format!("{} links", net.links()),
                "the simulator needs links of positive bandwidth",
                "simulate a connected system",
            ));
        }
        let link_flits_per_cycle: Vec<f64> = net.bandwidth_Bps.iter().map(|b| b / base).collect();
        let latency = |class: LinkClass| match class {
            LinkClass::IntraNode => config.short_latency_cycles,
            _ => config.long_latency_cycles,
        };
        let ticks = |flits_per_cycle: f64| ((TICKS as f64 / flits_per_cycle).round() as u64).max(1);
        let host_ticks = ticks(config.injection_flits_per_cycle);
        let (mut in_by, mut out_by) = (
            vec![Vec::new(); vertices as usize],
            vec![Vec::new(); vertices as usize],
        );
        for link in 0..net.links() as u32 {
            in_by[net.dst[link as usize] as usize].push(link);
            out_by[net.src[link as usize] as usize].push(link);
        }
        let mut f = Fabric {
            vertices,
            in_start: vec![0],
            out_start: vec![0],
            ins: Vec::new(),
            outs: Vec::new(),
            link_out_port: vec![0; net.links()],
            link_flits_per_cycle,
            slowest_ticks_per_flit: host_ticks,
            longest_latency: 0,
        };
        // Global input port at the far end of each link (its peers are set from it below).
        let mut link_in_port = vec![0; net.links()];
        for v in 0..vertices as usize {
            for (links, ports, link_port, start) in [
                (&in_by[v], &mut f.ins, &mut link_in_port, &mut f.in_start),
                (
                    &out_by[v],
                    &mut f.outs,
                    &mut f.link_out_port,
                    &mut f.out_start,
                ),
            ] {
                for &link in links {
                    link_port[link as usize] = ports.len() as u32;
                    let ticks_per_flit = ticks(f.link_flits_per_cycle[link as usize]);
                    f.slowest_ticks_per_flit = f.slowest_ticks_per_flit.max(ticks_per_flit);
                    let latency = latency(net.class[link as usize]);
                    f.longest_latency = f.longest_latency.max(latency);
                    ports.push(Port {
                        link,
                        latency,
                        ticks_per_flit,
                        peer: NO_LINK,
                        peer_port: NO_LINK,
                    });
                }
                if is_chip[v] {
                    ports.push(Port {
                        link: NO_LINK,
                        latency: 0,
                        ticks_per_flit: host_ticks,
                        peer: NO_LINK,
                        peer_port: NO_LINK,
                    });
                }
                start.push(ports.len() as u32);
            }
        }
        // Each link's ends, now that every router's ports are numbered.
        for (link, &inp) in link_in_port.iter().enumerate() {
            let (src, dst) = (net.src[link], net.dst[link]);
            let out = f.link_out_port[link];
            f.outs[out as usize].peer = dst;
            f.outs[out as usize].peer_port = inp - f.in_start[dst as usize];
            f.ins[inp as usize].peer = src;
            f.ins[inp as usize].peer_port = out - f.out_start[src as usize];
        }
        Ok(f)
    }

    /// Cycles ahead of now that any event can be scheduled (sizes the timing wheels).
    pub fn horizon_cycles(&self, config: &FlitConfig) -> u64 {
        let queued = config.buffer_flits as u64 + config.output_queue_flits() as u64;
        let serialize = (queued * self.slowest_ticks_per_flit).div_ceil(TICKS);
        2 * serialize + 2 * self.longest_latency as u64 + config.router_delay_cycles as u64 + 4
    }
}

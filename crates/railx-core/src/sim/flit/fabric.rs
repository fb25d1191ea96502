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

pub(crate) struct Fabric {
    pub vertices: u32,
    /// Router `v`'s input ports are `in_start[v]..in_start[v + 1]` (global port ids).
    pub in_start: Vec<u32>,
    pub out_start: Vec<u32>,
    /// Link of a global input or output port (`NO_LINK` for injection and ejection).
    pub in_link: Vec<u32>,
    pub out_link: Vec<u32>,
    /// Global input port at the far end of each link, and output port at its near end.
    pub link_in_port: Vec<u32>,
    pub link_out_port: Vec<u32>,
    pub in_ticks_per_flit: Vec<u64>,
    pub out_ticks_per_flit: Vec<u64>,
    /// Latency of a port's link in cycles (0 for injection and ejection).
    pub in_latency: Vec<u32>,
    pub out_latency: Vec<u32>,
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
            .bandwidth_bps
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
        let link_flits_per_cycle: Vec<f64> = net.bandwidth_bps.iter().map(|b| b / base).collect();
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
            in_link: Vec::new(),
            out_link: Vec::new(),
            link_in_port: vec![0; net.links()],
            link_out_port: vec![0; net.links()],
            in_ticks_per_flit: Vec::new(),
            out_ticks_per_flit: Vec::new(),
            in_latency: Vec::new(),
            out_latency: Vec::new(),
            link_flits_per_cycle,
            slowest_ticks_per_flit: host_ticks,
            longest_latency: 0,
        };
        for v in 0..vertices as usize {
            for (links, port_link, port_ticks, port_latency, link_port, start) in [
                (
                    &in_by[v],
                    &mut f.in_link,
                    &mut f.in_ticks_per_flit,
                    &mut f.in_latency,
                    &mut f.link_in_port,
                    &mut f.in_start,
                ),
                (
                    &out_by[v],
                    &mut f.out_link,
                    &mut f.out_ticks_per_flit,
                    &mut f.out_latency,
                    &mut f.link_out_port,
                    &mut f.out_start,
                ),
            ] {
                for &link in links {
                    link_port[link as usize] = port_link.len() as u32;
                    port_link.push(link);
                    let t = ticks(f.link_flits_per_cycle[link as usize]);
                    f.slowest_ticks_per_flit = f.slowest_ticks_per_flit.max(t);
                    port_ticks.push(t);
                    let l = latency(net.class[link as usize]);
                    f.longest_latency = f.longest_latency.max(l);
                    port_latency.push(l);
                }
                if is_chip[v] {
                    port_link.push(NO_LINK);
                    port_ticks.push(host_ticks);
                    port_latency.push(0);
                }
                start.push(port_link.len() as u32);
            }
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

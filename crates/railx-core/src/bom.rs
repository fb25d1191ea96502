//! Bill of materials: what a network is built from, counted without materialising its graph,
//! plus the two figures of its global bandwidth that the cost model divides by.
//!
//! Counting rules (docs/cost.md states them for users):
//! - a packet switch is counted by radix; all its ports are installed whether used or not;
//! - an OCS is counted by radix; its ports carry no transceiver (light passes through);
//! - every optical link end at a chip or a packet switch carries one active optical
//!   transceiver (AOT): a chip-switch or switch-switch link has two, and so does a chip-chip
//!   optical link whether or not an OCS sits in its path;
//! - a passive copper cable (PCC) is one cable per chip-chip electrical link between boards;
//! - links on a board or inside a package (short-reach mesh, PCB traces) cost nothing here:
//!   they are part of the chip's price;
//! - a NIC is counted only where a system's ports sit on separate network cards;
//! - a wavelength-selective switch (WSS, Flex-SiPAC) is counted by radix; like an OCS its ports
//!   carry no transceiver; a chip reaches it over a fibre link from one of its ports, and drives
//!   all its ports from one comb-laser transceiver (counted per chip, not per link end).

use crate::plant::Plant;
use serde::Serialize;

/// A number of identical switches of one radix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SwitchCount {
    pub radix: u32,
    pub count: u64,
}

/// Global bandwidth of a system in units of one port's bandwidth (per direction).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct GlobalBandwidth {
    /// Port bandwidths crossing the worst balanced cut in one direction.
    pub bisection_ports: f64,
    /// Bisection ratio: `bisection_ports / (chips/2 * ports_per_chip)`; 1 means full bisection.
    pub bisection_frac: f64,
    /// Upper bound on uniform all-to-all throughput per chip, as a share of injection (capped
    /// at 1): the tightest of the bisection bound `4 * bisection_ports / chips` and the
    /// family's own bottleneck (uplinks of a subtree, ports of a board, hops per message).
    pub a2a_frac: f64,
}

impl GlobalBandwidth {
    /// Builds both figures from a one-direction bisection and a family bottleneck bound on
    /// all-to-all throughput per chip (in ports; `f64::INFINITY` when there is none).
    pub fn new(
        chips: u64,
        ports_per_chip: u32,
        bisection_ports: f64,
        bottleneck_ports: f64,
    ) -> Self {
        let inject = ports_per_chip as f64;
        let half = chips as f64 / 2.0;
        let bisection_bound = 4.0 * bisection_ports / chips as f64;
        GlobalBandwidth {
            bisection_ports,
            bisection_frac: (bisection_ports / (half * inject)).min(1.0),
            a2a_frac: (bisection_bound.min(bottleneck_ports) / inject).min(1.0),
        }
    }
}

/// Components of one system, and the injection and global bandwidth they buy. A component a
/// family does not have is left at its `Default` (none), so a literal names only what it counts.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct BillOfMaterials {
    /// Family of the system ("fat-tree", "railx", ...).
    pub family: &'static str,
    pub chips: u64,
    /// Network ports per chip (injection = ports_per_chip x port bandwidth).
    pub ports_per_chip: u32,
    pub packet_switches: Vec<SwitchCount>,
    /// Switches inside high-bandwidth domains (NVSwitch class), priced with the chips: free here.
    pub hb_switches: Vec<SwitchCount>,
    pub ocs: Vec<SwitchCount>,
    /// Passive copper cables.
    pub pcc: u64,
    /// Active optical transceivers.
    pub aot: u64,
    pub nics: u64,
    /// Wavelength-selective switches (Flex-SiPAC), by radix.
    pub wss: Vec<SwitchCount>,
    /// Comb-laser transceivers: one per chip, its wavelengths spread over its WSS ports.
    pub comb_transceivers: u64,
    /// Tiers of packet switches a packet climbs (the most of any tree; 1 for a flat switch
    /// layer such as HyperX or Dragonfly; 0 without packet switches).
    pub switch_tiers: u32,
    /// Links by kind, for cross-checks against a materialised graph (undirected, full duplex).
    pub chip_switch_links: u64,
    pub switch_switch_links: u64,
    pub chip_chip_optical_links: u64,
    /// Fibre links between a chip port and a WSS port.
    pub chip_wss_links: u64,
    /// On-board or in-package links (mesh, PCB traces, an HB domain's crossbar): free here.
    pub board_links: u64,
    pub global: GlobalBandwidth,
}

/// The shape of a packet-switched network, all a BillOfMaterials needs of it (an HB domain's
/// switches default to none).
#[derive(Default)]
pub struct Switched {
    pub family: &'static str,
    pub chips: u64,
    pub ports_per_chip: u32,
    pub packet_switches: Vec<SwitchCount>,
    /// An HB domain's switches (free, as its links).
    pub hb_switches: Vec<SwitchCount>,
    pub switch_tiers: u32,
    pub chip_switch_links: u64,
    pub switch_switch_links: u64,
    /// On-board links (free): an HB domain's crossbar, a board's mesh.
    pub board_links: u64,
    pub global: GlobalBandwidth,
}

impl BillOfMaterials {
    /// A network whose every off-board link has a packet switch at one end or both: optical,
    /// one transceiver per link end; no OCS, cables or NICs.
    pub fn switched(net: Switched) -> BillOfMaterials {
        BillOfMaterials {
            family: net.family,
            chips: net.chips,
            ports_per_chip: net.ports_per_chip,
            packet_switches: net.packet_switches,
            hb_switches: net.hb_switches,
            aot: 2 * (net.chip_switch_links + net.switch_switch_links),
            switch_tiers: net.switch_tiers,
            chip_switch_links: net.chip_switch_links,
            switch_switch_links: net.switch_switch_links,
            chip_chip_optical_links: 0,
            board_links: net.board_links,
            global: net.global,
            ..Default::default()
        }
    }

    /// Total packet switches of every radix.
    pub fn packet_switch_count(&self) -> u64 {
        self.packet_switches.iter().map(|s| s.count).sum()
    }

    /// Total HB-domain switches of every radix.
    pub fn hb_switch_count(&self) -> u64 {
        self.hb_switches.iter().map(|s| s.count).sum()
    }

    /// Total OCS of every radix.
    pub fn ocs_count(&self) -> u64 {
        self.ocs.iter().map(|s| s.count).sum()
    }

    /// Full-duplex links of every kind (a materialised graph has twice as many directed links).
    pub fn links(&self) -> u64 {
        self.chip_switch_links
            + self.switch_switch_links
            + self.chip_chip_optical_links
            + self.chip_wss_links
            + self.pcc
            + self.board_links
    }

    /// Installed packet-switch ports (for catalogs that price per port).
    pub fn packet_switch_ports(&self) -> u64 {
        self.packet_switches
            .iter()
            .map(|s| s.radix as u64 * s.count)
            .sum()
    }
}

/// Adds `count` switches of `radix` to a by-radix list, keeping it sorted and merged.
pub fn add_switches(list: &mut Vec<SwitchCount>, radix: u32, count: u64) {
    if count == 0 {
        return;
    }
    match list.iter_mut().find(|s| s.radix == radix) {
        Some(s) => s.count += count,
        None => {
            list.push(SwitchCount { radix, count });
            list.sort_by_key(|s| s.radix);
        }
    }
}

/// RailX's bill of materials from its plant alone: `r*(P+Q)` OCS of radix R (eq. 1), and one
/// transceiver on every external port of every node (`4*m*n` per node: r rails on each of the
/// two sides of each axis), installed whether or not a circuit uses it. The mesh (n lanes
/// between adjacent chips) is on the package and costs nothing here. Each chip has `4n` ports (n per edge); the global bandwidth
/// comes from the configured topology, so the caller supplies it (see [`railx_global`]).
pub fn railx_bom(plant: &Plant, global: GlobalBandwidth) -> BillOfMaterials {
    let mut ocs = Vec::new();
    add_switches(&mut ocs, plant.radix, plant.switches() as u64);
    let ports_per_node = 4 * plant.m as u64 * plant.n as u64;
    let circuits_max = ports_per_node * plant.nodes() as u64 / 2;
    BillOfMaterials {
        family: "railx",
        chips: plant.chips() as u64,
        ports_per_chip: 4 * plant.n,
        packet_switches: Vec::new(),
        ocs,
        aot: ports_per_node * plant.nodes() as u64,
        switch_tiers: 0,
        chip_switch_links: 0,
        switch_switch_links: 0,
        chip_chip_optical_links: circuits_max,
        // n lanes per pair of adjacent chips (crate::network::Network::from_ocs).
        board_links: plant.nodes() as u64
            * 2
            * plant.m as u64
            * (plant.m as u64 - 1)
            * plant.n as u64,
        global,
        ..Default::default()
    }
}

/// A resolved RailX system's bill of materials, its global bandwidth from its topology's closed
/// form at the worst region (nothing is synthesised or realized).
pub fn railx_system_bom(system: &crate::topology::System) -> BillOfMaterials {
    let plant = &system.plant;
    let forms: Vec<_> = system
        .regions
        .iter()
        .map(|r| crate::closed_form::region_closed_form(plant, r))
        .collect();
    let worst = |f: fn(&crate::closed_form::ClosedForm) -> f64| {
        forms.iter().map(f).fold(f64::INFINITY, f64::min)
    };
    let global = railx_global(
        plant,
        worst(|c| c.bisection_bw_per_chip),
        worst(|c| c.a2a_bound_per_chip),
    );
    railx_bom(plant, global)
}

/// RailX's global bandwidth from the closed form of its topology: `bisection_bw_per_chip` counts
/// directed optical links crossing the cut per chip, so the one-direction bisection is half of
/// it times the chips; `a2a_bound_per_chip` is already in ports per chip (paper eq. 2).
pub fn railx_global(
    plant: &Plant,
    bisection_bw_per_chip: f64,
    a2a_bound_per_chip: f64,
) -> GlobalBandwidth {
    let chips = plant.chips() as u64;
    GlobalBandwidth::new(
        chips,
        4 * plant.n,
        bisection_bw_per_chip * chips as f64 / 2.0,
        a2a_bound_per_chip,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SystemSpec;

    fn plant(m: u32, n: u32) -> Plant {
        Plant::from_spec(&SystemSpec {
            m,
            n,
            R: 128,
            grid: None,
            port_bw_Bps: 50e9,
            intra_bw_Bps: 100e9,
            alpha_out_s: 300e-9,
            alpha_in_s: 10e-9,
        })
        .unwrap()
    }

    #[test]
    fn railx_table6_counts() {
        let g = GlobalBandwidth::new(1, 1, 0.0, 0.0);
        let b = railx_bom(&plant(4, 9), g);
        assert_eq!((b.chips, b.ocs_count(), b.aot), (65_536, 4_608, 589_824));
        let b = railx_bom(&plant(7, 9), g);
        assert_eq!((b.chips, b.ocs_count(), b.aot), (200_704, 8_064, 1_032_192));
        assert_eq!(b.ports_per_chip, 36);
    }

    #[test]
    fn switch_lists_merge_by_radix() {
        let mut list = Vec::new();
        add_switches(&mut list, 64, 3);
        add_switches(&mut list, 32, 1);
        add_switches(&mut list, 64, 2);
        add_switches(&mut list, 16, 0);
        assert_eq!(
            list,
            vec![
                SwitchCount {
                    radix: 32,
                    count: 1
                },
                SwitchCount {
                    radix: 64,
                    count: 5
                }
            ]
        );
    }
}

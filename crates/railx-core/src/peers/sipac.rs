//! SiPAC / Flex-SiPAC (paper 003, §3.A; docs/sipac-topology.md): the BCube recursion built of
//! r-port wavelength-selective switches (WSS). SiPAC(r, L) has N = r^L compute units (CUs), each
//! with an address of L base-r digits (digit 0 least significant) and one optical port per level;
//! the level-l WSS joins the r CUs whose addresses differ only in digit l, so every level has
//! r^(L-1) of them. Each CU's comb transceiver drives `wavelengths` wavelengths, spread evenly over
//! its L ports unless `level_wavelengths` concentrates them. CUs relay (BCube's server-centric
//! forwarding): a route corrects one digit per level, each through that level's WSS, so the
//! diameter is L WSS hops.
//!
//! The model in the chip graph: one switch vertex per WSS, joined to each of its r CUs by one link
//! each way of (wavelengths on that level's port) x rate. A WSS routes any wavelength from any
//! input port to any output port, and an output port takes at most the wavelengths its CU's
//! receiver on that level listens to; any per-pair wavelength allocation whose row and column sums
//! fit a port's wavelengths exists (a bipartite multigraph of maximum degree D is D-edge-colourable,
//! König), so the switch vertex admits exactly the CU-to-CU rates that some allocation of the
//! level's wavelengths realises (up to whole wavelengths, and ignoring the time to retune): the
//! reconfigured Flex-SiPAC within each level. Static SiPAC (each pair held to its even share of
//! w / (L (r - 1)) wavelengths) is the special allocation of uniform traffic.

use super::{check_chips, positive, LinkSpec, PeerBuilder};
use crate::bom::{add_switches, BillOfMaterials, GlobalBandwidth};
use crate::collectives::group::SipacShape;
use crate::collectives::{DimKind, Group, GroupDim};
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::plant::Axis;
use serde::{Deserialize, Serialize};

/// The spec as written (`family = "sipac"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct SipacFields {
    /// WSS radix r: CUs per WSS, and the base of the CU addresses.
    pub radix: u32,
    /// Levels L: CUs = r^L, optical ports per CU = L.
    pub levels: u32,
    /// Wavelengths of each CU's comb transceiver (w), per direction.
    pub wavelengths: u32,
    /// Rate of one wavelength, bytes/s per direction (32 Gb/s = 4e9).
    pub wavelength_rate_Bps: f64,
    /// Wavelengths on each level's port, level 0 first, summing to `wavelengths`; empty: the
    /// paper's even spread, w / L each.
    #[serde(default)]
    pub level_wavelengths: Vec<u32>,
    /// Per CU (in address order), wavelengths on each level's port, level 0 first, summing to
    /// `wavelengths`; 0 leaves that port dark (no link). Empty: every CU as `level_wavelengths`.
    /// Flex-SiPAC's reconfiguration of each CU's transceiver, e.g. a job's CUs moving all their
    /// wavelengths onto the levels the job spans.
    #[serde(default)]
    pub cu_level_wavelengths: Vec<Vec<u32>>,
    /// Latency of one CU-WSS fibre hop (a lightpath between two CUs is two), seconds.
    #[serde(default = "default_latency")]
    pub link_latency_s: f64,
}

fn default_latency() -> f64 {
    LinkSpec::default().long_latency_s
}

/// SiPAC(r, L) as the builder uses it: the written fields and the link figures derived from them
/// (a port's mean bandwidth, the fibre hop's latency).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "SipacFields", into = "SipacFields")]
pub struct SipacSpec {
    pub fields: SipacFields,
    link: LinkSpec,
}

impl From<SipacFields> for SipacSpec {
    #[allow(non_snake_case)]
    fn from(fields: SipacFields) -> SipacSpec {
        let port_bw_Bps =
            fields.wavelengths as f64 * fields.wavelength_rate_Bps / fields.levels.max(1) as f64;
        let link = LinkSpec {
            port_bw_Bps,
            long_latency_s: fields.link_latency_s,
            ..LinkSpec::default()
        };
        SipacSpec { fields, link }
    }
}

impl From<SipacSpec> for SipacFields {
    fn from(spec: SipacSpec) -> SipacFields {
        spec.fields
    }
}

/// Full-duplex CU-WSS links of SiPAC(r, L): every CU has one port per level.
pub fn links(radix: u32, levels: u32) -> u64 {
    cus(radix, levels) * levels as u64
}

/// CUs of SiPAC(r, L): r^L.
pub fn cus(radix: u32, levels: u32) -> u64 {
    (radix as u64).saturating_pow(levels)
}

/// WSS on each level of SiPAC(r, L): r^(L-1).
pub fn wss_per_level(radix: u32, levels: u32) -> u64 {
    (radix as u64).saturating_pow(levels.saturating_sub(1))
}

impl SipacSpec {
    pub fn radix(&self) -> u32 {
        self.fields.radix
    }

    pub fn levels(&self) -> u32 {
        self.fields.levels
    }

    /// The address geometry collective schedules use.
    pub fn shape(&self) -> SipacShape {
        SipacShape {
            radix: self.radix(),
            levels: self.levels(),
        }
    }

    /// Wavelengths on each level's port, level 0 first (validated).
    pub fn split(&self) -> Result<Vec<u32>> {
        let f = &self.fields;
        if f.radix < 2 {
            return Err(RailxError::invalid(
                "sipac.radix",
                f.radix,
                "a WSS joins at least 2 CUs",
                "e.g. radix = 8",
            ));
        }
        positive("sipac.levels", f.levels, "e.g. levels = 3")?;
        if !(f.wavelength_rate_Bps.is_finite() && f.wavelength_rate_Bps > 0.0) {
            return Err(RailxError::invalid(
                "sipac.wavelength_rate_Bps",
                f.wavelength_rate_Bps,
                "must be a finite number > 0",
                "e.g. 4e9 (32 Gb/s)",
            ));
        }
        if !(f.link_latency_s.is_finite() && f.link_latency_s > 0.0) {
            return Err(RailxError::invalid(
                "sipac.link_latency_s",
                f.link_latency_s,
                "must be a finite number > 0",
                "e.g. 300e-9",
            ));
        }
        if f.levels > 31 || cus(f.radix, f.levels) > u32::MAX as u64 {
            return Err(RailxError::invalid(
                "sipac.levels",
                f.levels,
                format!(
                    "radix^levels CUs must fit 32-bit chip ids (radix = {})",
                    f.radix
                ),
                "use fewer levels or a smaller radix",
            ));
        }
        check_chips(cus(f.radix, f.levels))?;
        let (w, l) = (f.wavelengths, f.levels);
        self.check_cu_splits()?;
        if f.level_wavelengths.is_empty() {
            if w < l || !w.is_multiple_of(l) {
                return Err(RailxError::invalid(
                    "sipac.wavelengths",
                    w,
                    format!("the even spread gives each of the {l} ports w / L wavelengths, so w must be a positive multiple of L"),
                    format!("use wavelengths = {}, or list level_wavelengths", l * (w / l).max(1)),
                ));
            }
            return Ok(vec![w / l; l as usize]);
        }
        let split = &f.level_wavelengths;
        if split.len() != l as usize || split.contains(&0) || split.iter().sum::<u32>() != w {
            return Err(RailxError::invalid(
                "sipac.level_wavelengths",
                format!("{split:?}"),
                format!("needs one positive count per level ({l}) summing to wavelengths = {w}"),
                format!("e.g. level_wavelengths = {:?}", even_or_front(w, l)),
            ));
        }
        Ok(split.clone())
    }

    /// The per-CU splits, when given: one per CU, one count per level, summing to w.
    fn check_cu_splits(&self) -> Result<()> {
        let f = &self.fields;
        let (w, l) = (f.wavelengths, f.levels);
        if f.cu_level_wavelengths.is_empty() {
            return Ok(());
        }
        let n = cus(f.radix, l);
        if f.cu_level_wavelengths.len() as u64 != n {
            return Err(RailxError::invalid(
                "sipac.cu_level_wavelengths",
                format!("{} CUs", f.cu_level_wavelengths.len()),
                format!("needs one split per CU ({n}), or none"),
                "list every CU's split in address order, or leave it out",
            ));
        }
        let bad = f
            .cu_level_wavelengths
            .iter()
            .position(|c| c.len() != l as usize || c.iter().sum::<u32>() != w);
        if let Some(cu) = bad {
            return Err(RailxError::invalid(
                format!("sipac.cu_level_wavelengths[{cu}]"),
                format!("{:?}", f.cu_level_wavelengths[cu]),
                format!("needs one count per level ({l}) summing to wavelengths = {w} (0 leaves a port dark)"),
                format!("e.g. {:?}", even_or_front(w, l)),
            ));
        }
        Ok(())
    }

    /// Wavelengths on CU `cu`'s port of `level`: its own split when given, else `split`'s.
    fn port_wavelengths(&self, split: &[u32], cu: u32, level: u32) -> u32 {
        match self.fields.cu_level_wavelengths.get(cu as usize) {
            Some(own) => own[level as usize],
            None => split[level as usize],
        }
    }

    /// Chip id of the CU on WSS (`level`, `index`) whose digit `level` is `digit`.
    pub fn cu_on(&self, level: u32, index: u32, digit: u32) -> u32 {
        let low = self.fields.radix.pow(level);
        index % low + digit * low + index / low * low * self.fields.radix
    }

    /// Index, within its level, of the level-`level` WSS that CU `cu` sits on (its address with
    /// digit `level` removed).
    pub fn wss_index(&self, cu: u32, level: u32) -> u32 {
        let low = self.fields.radix.pow(level);
        cu % low + cu / (low * self.fields.radix) * low
    }
}

/// A valid split for the error message: even, the remainder on level 0.
fn even_or_front(w: u32, l: u32) -> Vec<u32> {
    let mut split = vec![(w / l).max(1); l as usize];
    split[0] += w.saturating_sub(split.iter().sum());
    split
}

impl PeerBuilder for SipacSpec {
    fn bom(&self) -> Result<BillOfMaterials> {
        let split = self.split()?;
        let (r, l) = (self.radix(), self.levels());
        let chips = cus(r, l);
        let mut wss = Vec::new();
        add_switches(&mut wss, r, l as u64 * wss_per_level(r, l));
        // In units of the mean port (w / L wavelengths): level l's port is split[l] L / w ports.
        let w = self.fields.wavelengths as f64;
        let ports_of = |lambdas: u32| lambdas as f64 * l as f64 / w;
        // The top-digit cut (paper 003: every CU has one link to a top-level WSS across it): a
        // top-level WSS placed on one side has floor(r/2) of its CUs across.
        let bisection =
            (chips / r as u64 * (r / 2) as u64) as f64 * ports_of(split[l as usize - 1]);
        // Uniform traffic: a share 1 - 1/r of a CU's messages corrects digit l, each through
        // that level's port of the CU where it is corrected.
        let hop_bound = split
            .iter()
            .map(|&s| ports_of(s) * r as f64 / (r - 1) as f64)
            .fold(f64::INFINITY, f64::min);
        Ok(BillOfMaterials {
            family: "sipac",
            chips,
            ports_per_chip: l,
            packet_switches: Vec::new(),
            aot: 0,
            wss,
            comb_transceivers: chips,
            switch_tiers: 0,
            chip_switch_links: 0,
            switch_switch_links: 0,
            chip_chip_optical_links: 0,
            chip_wss_links: links(r, l),
            board_links: 0,
            global: GlobalBandwidth::new(chips, l, bisection, hop_bound),
            ..Default::default()
        })
    }

    fn build(&self) -> Result<Network> {
        let split = self.split()?;
        let (r, l) = (self.radix(), self.levels());
        let chips = cus(r, l) as u32;
        let per_level = wss_per_level(r, l) as u32;
        let mut net = Network::with_capacity(None, chips, 2 * links(r, l) as usize);
        for level in 0..l {
            let axis = if level == 0 { Axis::X } else { Axis::Y };
            for index in 0..per_level {
                let wss = net.add_switch(r);
                for digit in 0..r {
                    let cu = self.cu_on(level, index, digit);
                    let lambdas = self.port_wavelengths(&split, cu, level);
                    if lambdas == 0 {
                        continue; // a dark port: the CU moved its wavelengths elsewhere
                    }
                    let bw = lambdas as f64 * self.fields.wavelength_rate_Bps;
                    self.link
                        .duplex_bw(&mut net, cu, wss, LinkClass::Switch, axis, level, bw);
                }
            }
        }
        Ok(net)
    }

    fn link(&self) -> &LinkSpec {
        &self.link
    }

    /// L all-to-all dimensions of r ranks, level 0 innermost (rank = chip id = CU address); no
    /// high-bandwidth domain: a CU's only links are its WSS ports.
    fn collective_group(&self, chips: u32) -> Result<Group> {
        let dims = (0..self.levels())
            .map(|level| {
                let axis = if level == 0 { Axis::X } else { Axis::Y };
                GroupDim::new(self.radix(), DimKind::AllToAll, axis)
            })
            .collect();
        Ok(Group::numbered(dims, chips)?.on_sipac(self.shape()))
    }

    /// A job's CUs as a process group (rank i on `cus[i]`), one fully connected dimension.
    fn job_group(&self, cus: Vec<u32>, chips: u32) -> Result<Group> {
        Ok(Group::line(cus, DimKind::AllToAll, chips)?.on_sipac(self.shape()))
    }
}

//! A high-bandwidth (HB) domain of K chips (Rail-only paper 002 §II-A: NVLink, Infinity
//! Fabric), shared by the Rail-only and rail-optimised peers. Two models of its interconnect:
//!
//! - `full-mesh` (the default, the earlier model): every pair of chips joined by a link of
//!   `1/(K-1)` of a chip's HB bandwidth (AMD MI300X's Infinity Fabric style);
//! - `switch`: one non-blocking switch per domain (NVSwitch, DGX GH200's NVLink switch system),
//!   one link per chip each way of the chip's whole HB bandwidth, so any pair talks at the full
//!   per-chip rate (two HB hops instead of one).
//!
//! Either way the HB interconnect is priced with the chips: its links are board links and its
//! switches [`BillOfMaterials::hb_switches`](crate::bom::BillOfMaterials), both free in the cost
//! model. A switch model's switches are the vertices right after the chips, domain d at
//! `chips + d`, so routing finds them without a search.

use super::LinkSpec;
use crate::error::{RailxError, Result};
use crate::network::{LinkClass, Network};
use crate::plant::Axis;
use serde::{Deserialize, Serialize};

/// How the chips of an HB domain are joined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HbModel {
    #[default]
    FullMesh,
    Switch,
}

/// By name, an unknown one refused in one line naming the field (serde's own message for an
/// unknown variant does not name it).
impl<'de> Deserialize<'de> for HbModel {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        match name.as_str() {
            "full-mesh" => Ok(HbModel::FullMesh),
            "switch" => Ok(HbModel::Switch),
            _ => Err(serde::de::Error::custom(RailxError::invalid(
                "hb_model",
                format!("{name:?}"),
                "an HB domain is a full mesh or a switch",
                "use hb_model = \"switch\" (NVSwitch) or \"full-mesh\"",
            ))),
        }
    }
}

/// A spec's default HB domain size: one chip, i.e. no HB domain.
pub(crate) fn one_chip() -> u32 {
    1
}

/// The HB domains of a peer: `k` chips each (1 = none), `ports_per_chip` HB bandwidth per chip
/// in network ports (per direction), joined as `model` says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HbDomain {
    pub k: u32,
    pub model: HbModel,
    pub ports_per_chip: f64,
}

impl HbDomain {
    /// Refuses a domain of several chips without a positive bandwidth; `family` prefixes fields.
    pub fn validate(&self, family: &str) -> Result<()> {
        super::positive(&format!("{family}.hb_domain"), self.k, "e.g. hb_domain = 8")?;
        if self.k > 1 && !(self.ports_per_chip.is_finite() && self.ports_per_chip > 0.0) {
            return Err(RailxError::invalid(
                format!("{family}.hb_ports_per_chip"),
                self.ports_per_chip,
                "an HB domain of more than one chip needs its bandwidth per chip, in network ports",
                "e.g. hb_ports_per_chip = 9 (3.6 Tb/s over 400 Gb/s ports)",
            ));
        }
        Ok(())
    }

    fn domains(&self, chips: u64) -> u64 {
        chips / self.k as u64
    }

    /// Free (on-board) links: a full mesh's K(K-1)/2 per domain, or one per chip to its switch.
    pub fn board_links(&self, chips: u64) -> u64 {
        let k = self.k as u64;
        match self.model {
            _ if k == 1 => 0,
            HbModel::FullMesh => self.domains(chips) * k * (k - 1) / 2,
            HbModel::Switch => chips,
        }
    }

    /// HB switches (one of radix K per domain in the switch model; none otherwise).
    pub fn switches(&self, chips: u64) -> u64 {
        if self.k > 1 && self.model == HbModel::Switch {
            self.domains(chips)
        } else {
            0
        }
    }

    /// One-direction capacity, in ports, of a cut halving every domain: a full mesh's
    /// floor(K/2) ceil(K/2) pair links of hb/(K-1) each, a switch's floor(K/2) chip links.
    pub fn bisection_ports(&self, chips: u64) -> f64 {
        let k = self.k as u64;
        let per_domain = match self.model {
            HbModel::FullMesh => (k / 2 * k.div_ceil(2)) as f64 / (k - 1) as f64,
            HbModel::Switch => (k / 2) as f64,
        };
        self.domains(chips) as f64 * per_domain * self.ports_per_chip
    }

    /// All-to-all bound per chip, in ports, when every message to another local rank crosses
    /// the domain (Rail-only's forwarding): a share 1 - 1/K of a chip's traffic leaves through
    /// its HB bandwidth (and as much arrives), in either model.
    pub fn forwarding_bottleneck_ports(&self) -> f64 {
        self.ports_per_chip / (1.0 - 1.0 / self.k as f64)
    }

    /// Adds the domains of `chips` chips (domain d = chips dK..dK+K-1) to `net`, which holds
    /// only the chips so far: the switch model's switches become vertices `chips + d`.
    #[allow(non_snake_case)]
    pub fn build(&self, net: &mut Network, chips: u32, link: &LinkSpec) {
        let k = self.k;
        if k == 1 {
            return;
        }
        let hb_Bps = self.ports_per_chip * link.port_bw_Bps;
        let duplex = |net: &mut Network, a: u32, b: u32, bw: f64| {
            link.duplex_bw(net, a, b, LinkClass::IntraNode, Axis::X, u32::MAX, bw)
        };
        for domain in 0..chips / k {
            let first = domain * k;
            match self.model {
                HbModel::FullMesh => {
                    for a in first..first + k {
                        for b in a + 1..first + k {
                            duplex(net, a, b, hb_Bps / (k - 1) as f64);
                        }
                    }
                }
                HbModel::Switch => {
                    let switch = net.add_switch(k);
                    debug_assert_eq!(switch, chips + domain);
                    for chip in first..first + k {
                        duplex(net, chip, switch, hb_Bps);
                    }
                }
            }
        }
    }
}

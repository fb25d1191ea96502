//! The input specification as it crosses into the core: plain serde data, one-to-one with the TOML
//! configuration after the Python layer has applied units and defaults (README.md, Configuration).
//! Unknown keys are errors. Rules that relate several fields live in `topology::resolve`.

use serde::{Deserialize, Serialize};

/// A RailX system: the physical parameters (RailX paper §3.2), in SI units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct SystemSpec {
    pub m: u32,
    pub n: u32,
    pub R: u32,
    /// Node grid `[P, Q]`; `None` means the full `[R/2, R/2]`.
    #[serde(default)]
    pub grid: Option<[u32; 2]>,
    pub port_bw_Bps: f64,
    pub intra_bw_Bps: f64,
    pub alpha_out_s: f64,
    pub alpha_in_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    Torus,
    Hyperx,
    Dragonfly,
}

/// How one logical dimension joins the nodes that differ only in its coordinate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DimKind {
    /// Every rail of the group is a ring in index order.
    Ring,
    /// Rail-ring all-to-all: each group of s-1 rails realises a Hamiltonian decomposition of K*_s.
    AllToAll,
    /// Single-link all-to-all (RailX paper A.1): each group of ceil((s-1)/2) rails realises a
    /// Hamiltonian decomposition of the undirected K_s, each undirected Walecki cycle one rail ring
    /// (for even s the last rail is the perfect matching left over), so every unordered pair of
    /// nodes is joined by exactly one full-duplex link per copy.
    SingleLinkAllToAll,
    /// Dragonfly's global dimension: the s-1 Hamiltonian cycles of K*_s are spread over the lines
    /// of the other axis (`rails` per line), so each ordered pair is joined once in the whole axis.
    GlobalAllToAll,
}

/// One logical dimension of a physical axis: `size` nodes, joined as `kind`, using `rails` rails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DimSpec {
    pub size: u32,
    pub kind: DimKind,
    pub rails: u32,
}

/// A logical topology: a preset, or the general per-axis form (innermost logical dimension first).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    #[serde(default)]
    pub preset: Option<Preset>,
    #[serde(default)]
    pub x: Option<Vec<DimSpec>>,
    #[serde(default)]
    pub y: Option<Vec<DimSpec>>,
    /// Opt-in: all-to-all dimensions of 4 or 6 nodes use s-2 rings plus one matching rail.
    #[serde(default)]
    pub allow_matching_rail: bool,
}

/// A job: the nodes it occupies (X coordinates x Y coordinates, in logical order) and its topology.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    pub name: String,
    pub xs: Vec<u32>,
    pub ys: Vec<u32>,
    pub topology: TopologySpec,
}

/// A whole configuration: a system with one topology over its grid, or with jobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigSpec {
    pub system: SystemSpec,
    #[serde(default)]
    pub topology: Option<TopologySpec>,
    #[serde(default)]
    pub jobs: Vec<JobSpec>,
}

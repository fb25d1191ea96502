//! The whole pipeline for one configuration: validate, synthesise the OCS tables, realize the
//! network from them, and measure it beside the closed forms.

use crate::closed_form::{max_scale, region_closed_form, ClosedForm, MaxScale};
use crate::error::Result;
use crate::metrics::{region_metrics, Hops, RegionMetrics};
use crate::network::Network;
use crate::ocs::{synthesize, OcsConfig};
use crate::spec::ConfigSpec;
use crate::topology::{resolve, System};
use serde::Serialize;

/// A configuration realized: its validated system, OCS tables and chip-level network.
pub struct Realized {
    pub system: System,
    pub ocs: OcsConfig,
    pub network: Network,
}

/// Validates a configuration, synthesises its circuits and realizes the network from them.
pub fn realize(spec: &ConfigSpec) -> Result<Realized> {
    let system = resolve(spec)?;
    let ocs = synthesize(&system)?;
    let network = Network::from_ocs(&system.plant, &ocs)?;
    Ok(Realized {
        system,
        ocs,
        network,
    })
}

/// One region's realized metrics beside its closed forms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegionPlan {
    #[serde(flatten)]
    pub metrics: RegionMetrics,
    pub closed_form: ClosedForm,
}

/// The plant summary and metrics of a configuration. With several jobs, the top-level metrics
/// are the worst over jobs (largest diameters, smallest bandwidths); `regions` has each one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub railx_version: &'static str,
    pub m: u32,
    pub n: u32,
    #[serde(rename = "R")]
    pub radix: u32,
    pub grid: [u32; 2],
    pub chips: u32,
    pub nodes: u32,
    pub switches: u32,
    pub rails_per_dim: u32,
    pub circuits: usize,
    pub switch_ports_used: u64,
    pub diameter_inter_node: Option<u32>,
    pub diameter_hops: Hops,
    pub max_route_latency_s: f64,
    pub bisection_bw_per_chip: f64,
    pub a2a_bound_per_chip: f64,
    pub closed_form: ClosedForm,
    pub regions: Vec<RegionPlan>,
    pub max_scale: Vec<MaxScale>,
}

pub fn plan(realized: &Realized) -> Result<Plan> {
    let plant = &realized.system.plant;
    let regions = realized
        .system
        .regions
        .iter()
        .map(|region| {
            Ok(RegionPlan {
                metrics: region_metrics(&realized.network, region)?,
                closed_form: region_closed_form(plant, region),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let worst_min = |f: fn(&RegionPlan) -> f64| regions.iter().map(f).fold(f64::INFINITY, f64::min);
    let worst_max = |f: fn(&RegionPlan) -> u32| regions.iter().map(f).max().unwrap_or(0);
    let diameter_inter_node = regions
        .iter()
        .map(|r| r.metrics.diameter_inter_node)
        .try_fold(0, |acc, d| d.map(|d| acc.max(d)));
    let mut closed_form = regions[0].closed_form.clone();
    closed_form.chips = plant.chips() as u64;
    closed_form.nodes = plant.nodes() as u64;
    closed_form.diameter_inter_node = worst_max(|r| r.closed_form.diameter_inter_node);
    closed_form.diameter_hops = Hops {
        Ho: worst_max(|r| r.closed_form.diameter_hops.Ho),
        Hi: worst_max(|r| r.closed_form.diameter_hops.Hi),
    };
    closed_form.bisection_bw_per_chip = worst_min(|r| r.closed_form.bisection_bw_per_chip);
    closed_form.a2a_bound_per_chip = worst_min(|r| r.closed_form.a2a_bound_per_chip);
    closed_form.approximate = regions
        .iter()
        .flat_map(|r| r.closed_form.approximate.clone())
        .collect();
    closed_form.approximate.sort();
    closed_form.approximate.dedup();
    Ok(Plan {
        railx_version: env!("CARGO_PKG_VERSION"),
        m: plant.m,
        n: plant.n,
        radix: plant.radix,
        grid: [plant.p, plant.q],
        chips: plant.chips(),
        nodes: plant.nodes(),
        switches: plant.switches(),
        rails_per_dim: plant.r(),
        circuits: realized.ocs.circuit_count(),
        switch_ports_used: 2 * realized.ocs.circuit_count() as u64,
        diameter_inter_node,
        diameter_hops: Hops {
            Ho: worst_max(|r| r.metrics.diameter_hops.Ho),
            Hi: worst_max(|r| r.metrics.diameter_hops.Hi),
        },
        max_route_latency_s: regions
            .iter()
            .map(|r| r.metrics.max_route_latency_s)
            .fold(0.0, f64::max),
        bisection_bw_per_chip: worst_min(|r| r.metrics.bisection_bw_per_chip),
        a2a_bound_per_chip: worst_min(|r| r.metrics.a2a_bound_per_chip),
        closed_form,
        regions,
        max_scale: max_scale(plant.m, plant.n, plant.radix),
    })
}

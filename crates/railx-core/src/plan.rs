//! The whole pipeline for one configuration: validate, synthesise the OCS tables, realize the
//! network from them, and measure it beside the closed forms.

use crate::closed_form::{max_scale, region_closed_form, ClosedForm, MaxScale};
use crate::error::Result;
use crate::metrics::{region_metrics, Hops, RegionMetrics};
use crate::network::{Network, LINK_BYTES};
use crate::ocs::{synthesize, OcsConfig};
use crate::plant::Plant;
use crate::progress::{Observer, Part, Silent};
use crate::resources::{require, Driver, Estimate};
use crate::spec::{ConfigSpec, DimKind};
use crate::topology::{resolve, System};
use serde::Serialize;

/// A configuration realized: its validated system, OCS tables and chip-level network.
pub struct Realized {
    pub system: System,
    pub ocs: OcsConfig,
    pub network: Network,
}

/// Bytes a RailX build holds per circuit beyond its two links: the synthesised arcs (20), the
/// switch tables (8) and the arcs checked back from them (20). Vectors grown by doubling
/// reserve more address space than this, but touch (hold in memory) only what they keep.
const CIRCUIT_BYTES: f64 = 48.0;

/// Bytes per optical switch, every one listed whether a circuit uses it or not: its table while
/// synthesising (24) and its entry in the configuration, with its id (80).
const SWITCH_BYTES: f64 = 104.0;

/// Bytes per entry of an all-to-all dimension's rails: the decomposition's cycles and successor
/// lists (4 each) and the arcs of one line (8).
const RAIL_ENTRY_BYTES: f64 = 16.0;

/// Validates a configuration, synthesises its circuits and realizes the network from them,
/// after checking the build fits the resource budget ([`realize_estimate`]).
pub fn realize(spec: &ConfigSpec) -> Result<Realized> {
    let system = resolve(spec)?;
    require_realize(&system, spec.system.grid.is_some())?;
    let ocs = synthesize(&system)?;
    let network = Network::from_ocs(&system.plant, &ocs)?;
    Ok(Realized {
        system,
        ocs,
        network,
    })
}

/// The largest all-to-all line of any region (its decomposition is held while synthesising).
pub fn largest_all_to_all(system: &System) -> u64 {
    system
        .regions
        .iter()
        .flat_map(|r| [&r.x, &r.y])
        .flat_map(|layout| &layout.dims)
        .filter(|d| d.kind != DimKind::Ring)
        .map(|d| d.size as u64)
        .max()
        .unwrap_or(0)
}

/// Circuits of a resolved system: one per node and rail its topology uses (the rail's + port).
pub fn circuit_count(system: &System) -> u64 {
    system
        .regions
        .iter()
        .map(|r| r.nodes() as u64 * (r.x.rails_used() + r.y.rails_used()) as u64)
        .sum()
}

/// Memory of realizing `plant` with `circuits` circuits and an all-to-all line of `line` nodes
/// at most.
pub fn realize_estimate(plant: &Plant, circuits: f64, line: u64) -> Estimate {
    let links = Network::railx_link_count(plant, circuits as u64) as f64;
    let line = line.min(plant.p.max(plant.q) as u64) as f64;
    Estimate::memory(
        links * LINK_BYTES
            + circuits * CIRCUIT_BYTES
            + plant.switches() as f64 * SWITCH_BYTES
            + line * line * RAIL_ENTRY_BYTES,
    )
}

/// Refuses a build beyond the budget, naming m, n, and the grid (or R when the grid is R/2 x R/2).
fn require_realize(system: &System, grid_given: bool) -> Result<Estimate> {
    let plant = &system.plant;
    let line = largest_all_to_all(system);
    let circuits = circuit_count(system) as f64;
    let (m, n) = (plant.m as u64, plant.n as u64);
    let mut drivers = vec![Driver::new("system.m", m, 1), Driver::new("system.n", n, 1)];
    if grid_given {
        drivers.push(Driver::new("system.grid[0] (P)", plant.p as u64, 1));
        drivers.push(Driver::new("system.grid[1] (Q)", plant.q as u64, 1));
    } else {
        drivers.push(Driver::new("system.R", plant.radix as u64, 2).in_steps_of(2));
    }
    require("realizing this RailX network", &drivers, |v| {
        let mut trial = plant.clone();
        trial.m = v[0] as u32;
        trial.n = v[1] as u32;
        (trial.p, trial.q) = match v {
            [_, _, p, q] => (*p as u32, *q as u32),
            _ => (v[2] as u32 / 2, v[2] as u32 / 2),
        };
        // Circuits scale with the rails (m n) and the nodes.
        let share =
            (trial.r() as f64 / plant.r() as f64) * (trial.nodes() as f64 / plant.nodes() as f64);
        realize_estimate(&trial, circuits * share, line)
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

/// Steps per (source node, destination node) pair of the metrics' route walk, beside the 4 per
/// chip of the frontier it carries (a vector built, sorted and deduplicated per hop).
const PAIR_STEPS: f64 = 50.0;

/// Memory and work of the metrics of a region of `nodes` nodes of m x m chips on `plant`: the
/// nearest-link table (4 bytes per chip of every node and distinct neighbour) and the worst
/// route from every node to every node.
pub fn metrics_estimate(plant: &Plant, nodes: u64) -> Estimate {
    let (nodes, chips_per_node) = (nodes as f64, plant.chips_per_node() as f64);
    let neighbours = (4.0 * plant.r() as f64).min((nodes - 1.0).max(0.0));
    Estimate::new(
        nodes * neighbours * chips_per_node * 4.0,
        nodes * nodes * (PAIR_STEPS + 4.0 * chips_per_node),
    )
}

/// Plant summary and metrics, after checking the largest region's metrics fit the budget.
pub fn plan(realized: &Realized) -> Result<Plan> {
    plan_observed(realized, &mut Silent)
}

/// [`plan`], telling `observer` how many source nodes of all regions the metrics have walked.
pub fn plan_observed(realized: &Realized, observer: &mut dyn Observer) -> Result<Plan> {
    let plant = &realized.system.plant;
    let largest = realized
        .system
        .regions
        .iter()
        .map(|r| r.nodes())
        .max()
        .unwrap_or(0) as u64;
    let drivers = [
        Driver::new("system.m", plant.m as u64, 1),
        Driver::new("system.grid[0] (P)", plant.p as u64, 1),
        Driver::new("system.grid[1] (Q)", plant.q as u64, 1),
    ];
    require("the metrics of this RailX network", &drivers, |v| {
        let mut trial = plant.clone();
        trial.m = v[0] as u32;
        // A region shrinks with the grid it lies in.
        let share = v[1] * v[2] / plant.nodes() as f64;
        metrics_estimate(&trial, (largest as f64 * share).ceil() as u64)
    })?;
    let whole: u64 = realized
        .system
        .regions
        .iter()
        .map(|r| r.nodes() as u64)
        .sum();
    let mut before = 0;
    let mut regions = Vec::with_capacity(realized.system.regions.len());
    for region in &realized.system.regions {
        let mut part = Part {
            inner: &mut *observer,
            before,
            whole: Some(whole),
        };
        regions.push(RegionPlan {
            metrics: region_metrics(&realized.network, region, &mut part)?,
            closed_form: region_closed_form(plant, region),
        });
        before += region.nodes() as u64;
    }
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
        max_scale: max_scale(plant.m, plant.n, plant.radix)?,
    })
}

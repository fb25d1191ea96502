//! Thin PyO3 binding over railx-core: it converts arguments and results, nothing else.
//! Structured results cross as JSON text (small) or NumPy arrays (large link lists).

mod collectives;
mod flow;
mod progress;
mod sim;

use numpy::{IntoPyArray, PyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use railx_core::bom::railx_system_bom;
use railx_core::closed_form::max_scale;
use railx_core::collectives::links::{self, LineSpec};
use railx_core::collectives::plan::LineAlgo;
use railx_core::hamiltonian::{rail_successors, DECOMPOSITION_ENTRY_BYTES};
use railx_core::ocs::{synthesize_jobs, OcsConfig};
use railx_core::peers::{scalability, PeerSpec};
use railx_core::plan::plan_observed;
use railx_core::plant::{Axis, Plant};
use railx_core::resources::{require, Driver, Estimate};
use railx_core::routing::{analysis, deadlock, Routing};
use railx_core::sim::dag::MessageDag;
use railx_core::spec::ConfigSpec;
use railx_core::system::{RoutingOptions, System as CoreSystem, SystemSpec};
use railx_core::topology::resolve;
use railx_core::verify::{verify, verify_ports};
use railx_core::RailxError as CoreError;
use std::fs::File;
use std::io::{BufWriter, Write};

create_exception!(
    _core,
    RailxError,
    PyException,
    "Base of railx's errors; each message is one line."
);
create_exception!(
    _core,
    ConfigError,
    RailxError,
    "Invalid input: the message names the field, the rule and a valid alternative."
);
create_exception!(
    _core,
    VerificationError,
    RailxError,
    "A verification failed, e.g. an OCS file that does not realise its topology."
);
create_exception!(
    _core,
    Cancelled,
    RailxError,
    "A long run stopped because its progress callback returned False."
);
create_exception!(
    _core,
    InternalError,
    RailxError,
    "An invariant broke inside railx: a bug, not the input's fault."
);

fn err(e: CoreError) -> PyErr {
    let message = e.to_string();
    match e {
        CoreError::Invalid { .. } | CoreError::Parse { .. } => ConfigError::new_err(message),
        CoreError::Verification { .. } => VerificationError::new_err(message),
        CoreError::Internal { .. } => InternalError::new_err(message),
        CoreError::Cancelled { .. } => Cancelled::new_err(message),
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A message DAG as NumPy columns: src, dst, bytes, delay_s, and the dependencies in compressed
/// rows (message i waits for deps[dep_start[i]..dep_start[i + 1]]).
fn dag_arrays<'py>(py: Python<'py>, dag: &MessageDag) -> PyResult<Bound<'py, PyDict>> {
    if dag.has_multicast() {
        return Err(err(CoreError::invalid(
            "dag",
            "multicast",
            "the array form has one destination per message",
            "simulate the collective in Rust (railx.flowsim.collective, --fidelity flow)",
        )));
    }
    let ids = 0..dag.len();
    let mut dep_start = Vec::with_capacity(dag.len() as usize + 1);
    let mut deps = Vec::new();
    dep_start.push(0u64);
    for i in ids.clone() {
        deps.extend_from_slice(dag.after(i));
        dep_start.push(deps.len() as u64);
    }
    let d = PyDict::new(py);
    d.set_item("src", column(py, ids.clone().map(|i| dag.src(i))))?;
    d.set_item("dst", column(py, ids.clone().map(|i| dag.dst(i))))?;
    d.set_item("bytes", column(py, ids.clone().map(|i| dag.bytes(i))))?;
    d.set_item("delay_s", column(py, ids.clone().map(|i| dag.delay_s(i))))?;
    d.set_item("dep_start", dep_start.into_pyarray(py))?;
    d.set_item("deps", deps.into_pyarray(py))?;
    Ok(d)
}

/// A NumPy array of `values`.
fn column<'py, T: numpy::Element>(
    py: Python<'py>,
    values: impl Iterator<Item = T>,
) -> Bound<'py, numpy::PyArray1<T>> {
    values.collect::<Vec<_>>().into_pyarray(py)
}

fn parse_config(config_json: &str) -> PyResult<ConfigSpec> {
    serde_json::from_str(config_json).map_err(|e| err(CoreError::parse("configuration", e)))
}

/// A system ready for every analysis: a RailX configuration realized from its OCS circuits, or
/// a peer built directly (`railx_core::system::System`).
#[pyclass(module = "railx._core", frozen)]
struct System {
    inner: CoreSystem,
}

#[pymethods]
impl System {
    /// Builds a system from JSON: a RailX configuration, or `{"peer": {...}}`.
    #[new]
    fn new(py: Python<'_>, spec_json: &str) -> PyResult<Self> {
        let spec = SystemSpec::from_json(spec_json).map_err(err)?;
        let inner = py.detach(|| CoreSystem::build(&spec)).map_err(err)?;
        Ok(System { inner })
    }

    /// `railx`, or a peer's family (`fat-tree`, `rail-only`, ...).
    #[getter]
    fn family(&self) -> &'static str {
        self.inner.family()
    }

    #[getter]
    fn chips(&self) -> u32 {
        self.inner.chips()
    }

    /// The chip id at RailX coordinates `(X, Y, x, y)`.
    fn railx_chip(&self, coords: [u32; 4]) -> PyResult<u32> {
        self.inner.railx_chip(coords).map_err(err)
    }

    /// The routing function names this system offers, its default first.
    fn routing_names(&self) -> Vec<&'static str> {
        self.inner.routing_names().to_vec()
    }

    /// The collective process group of every chip (or of a RailX job): per dimension its size,
    /// kind (`local`, `ring`, `all-to-all`) and axis, innermost first.
    #[pyo3(signature = (job=None))]
    fn group_dims(&self, job: Option<&str>) -> PyResult<Vec<(u32, &'static str, &'static str)>> {
        let group = self.inner.group(job).map_err(err)?;
        Ok(group
            .dims()
            .iter()
            .map(|d| (d.size, d.kind.name(), d.axis.name()))
            .collect())
    }

    /// Bill of materials and global bandwidth, as JSON.
    fn bom_json(&self) -> PyResult<String> {
        to_json(&self.inner.bom().map_err(err)?)
    }

    /// Plant summary, realized metrics and closed forms, as JSON (RailX). `progress` as in
    /// `deadlock_json`, counting the source nodes the metrics have walked.
    #[pyo3(signature = (progress=None))]
    fn plan_json(&self, py: Python<'_>, progress: Option<Bound<'_, PyAny>>) -> PyResult<String> {
        let realized = self.inner.railx("plan").map_err(err)?;
        to_json(&progress::observed(py, progress.as_ref(), |obs| {
            plan_observed(realized, obs)
        })?)
    }

    /// The whole system's `railx.ocs/v1` configuration, as JSON (RailX).
    fn ocs_json(&self) -> PyResult<String> {
        Ok(self.inner.railx("ocs").map_err(err)?.ocs.to_json())
    }

    /// One `railx.ocs/v1` configuration per job (empty without jobs), as (name, JSON) pairs.
    fn job_ocs_json(&self) -> PyResult<Vec<(String, String)>> {
        let realized = self.inner.railx("ocs").map_err(err)?;
        let configs = synthesize_jobs(&realized.system).map_err(err)?;
        Ok(configs
            .into_iter()
            .filter_map(|c| c.job.clone().map(|name| (name, c.to_json())))
            .collect())
    }

    /// Directed links as NumPy arrays: src, dst (vertex ids: chips, then a peer's switches),
    /// class (0 intra-node, 1 optical, 2 copper, 3 switch), bandwidth_Bps, latency_s, rail (-1
    /// for none), lane (a RailX mesh link's lane 0..n, -1 for any other link), and
    /// `switch_radix` (one per switch).
    fn links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let net = self.inner.network();
        let dict = PyDict::new(py);
        dict.set_item("chips", net.chips())?;
        dict.set_item("switch_radix", net.switch_radix.clone().into_pyarray(py))?;
        dict.set_item("src", net.src.clone().into_pyarray(py))?;
        dict.set_item("dst", net.dst.clone().into_pyarray(py))?;
        let class: Vec<u8> = net.class.iter().map(|c| *c as u8).collect();
        dict.set_item("class", class.into_pyarray(py))?;
        dict.set_item("bandwidth_Bps", net.bandwidth_Bps.clone().into_pyarray(py))?;
        dict.set_item("latency_s", net.latency_s.clone().into_pyarray(py))?;
        // The core keeps a mesh link's lane in `rail`; the arrays give it its own column.
        let rail: Vec<i64> = (0..net.links())
            .map(|l| match (net.lane(l), net.rail[l]) {
                (None, r) if r != u32::MAX => r as i64,
                _ => -1,
            })
            .collect();
        let lane: Vec<i64> = (0..net.links())
            .map(|l| net.lane(l).map_or(-1, i64::from))
            .collect();
        let rail: Bound<'py, PyArray1<i64>> = rail.into_pyarray(py);
        dict.set_item("rail", rail)?;
        let lane: Bound<'py, PyArray1<i64>> = lane.into_pyarray(py);
        dict.set_item("lane", lane)?;
        Ok(dict)
    }

    /// Writes the chip graph to `path` as "json" (railx.network/v1 edge list) or "graphml".
    fn write_network(&self, py: Python<'_>, path: &str, format: &str) -> PyResult<()> {
        let net = self.inner.network();
        if format != "json" && format != "graphml" {
            return Err(err(CoreError::invalid(
                "format",
                format,
                "unknown network format",
                "use json or graphml",
            )));
        }
        let file = File::create(path).map_err(|e| PyOSError::new_err(format!("{path}: {e}")))?;
        let mut out = BufWriter::new(file);
        py.detach(|| {
            if format == "json" {
                net.write_json(&mut out)
            } else {
                net.write_graphml(&mut out)
            }
            .and_then(|()| out.flush())
        })
        .map_err(|e| PyOSError::new_err(format!("{path}: {e}")))
    }

    /// The route between two chips under a routing function (`None`: the default), as JSON.
    #[pyo3(signature = (src, dst, routing=None, misroutes=None, job=None))]
    fn route_json(
        &self,
        src: u32,
        dst: u32,
        routing: Option<&str>,
        misroutes: Option<u8>,
        job: Option<&str>,
    ) -> PyResult<String> {
        let options = routing_options(misroutes, job);
        let report = self
            .inner
            .describe_route(routing, &options, src, dst)
            .map_err(err)?;
        to_json(&report)
    }

    /// The deadlock check of a routing function (exhaustive up to ~12K chips, else structural on
    /// `samples` seeded routes), as JSON; `vcs` is the hardware's VC budget, if any.
    /// `progress(done, total, unit)` is called at most 10 times a second (`False` stops the run).
    #[pyo3(signature = (routing=None, misroutes=None, job=None, samples=100_000, seed=0, vcs=None, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn deadlock_json(
        &self,
        py: Python<'_>,
        routing: Option<&str>,
        misroutes: Option<u8>,
        job: Option<&str>,
        samples: usize,
        seed: u64,
        vcs: Option<u8>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let r = self.routing(routing, misroutes, job)?;
        if let Some(budget) = vcs {
            self.inner.require_vcs(r.as_ref(), budget).map_err(err)?;
        }
        to_json(&progress::observed(py, progress.as_ref(), |obs| {
            deadlock::check_observed(r.as_ref(), samples, seed, obs)
        })?)
    }

    /// Hop statistics over all pairs (or `samples` seeded pairs when there are more), as JSON;
    /// `progress` as in `deadlock_json`.
    #[pyo3(signature = (routing=None, misroutes=None, job=None, samples=1_000_000, seed=0, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn route_stats_json(
        &self,
        py: Python<'_>,
        routing: Option<&str>,
        misroutes: Option<u8>,
        job: Option<&str>,
        samples: usize,
        seed: u64,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let r = self.routing(routing, misroutes, job)?;
        to_json(&progress::observed(py, progress.as_ref(), |obs| {
            analysis::route_stats_observed(r.as_ref(), samples, seed, obs)
        })?)
    }

    /// One step of each line measured on the routed network (`railx_core::collectives::links`),
    /// over a group of `sizes` ranks (mixed radix, innermost first) laid on chips 0.. in id
    /// order: each line is (name for errors, group dimensions it spans, `ring` / `bidir-ring` /
    /// `direct`); returns (alpha_s, bw_Bps) per line, bw_Bps per rank and direction as the
    /// alpha-beta stage formulas take it. `routing`: None for the family's default; `progress` as in
    /// `deadlock_json`, counting the lines measured.
    #[pyo3(signature = (sizes, lines, routing=None, progress=None))]
    fn measure_lines(
        &self,
        py: Python<'_>,
        sizes: Vec<u32>,
        lines: Vec<(String, Vec<usize>, String)>,
        routing: Option<&str>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Vec<(f64, f64)>> {
        let specs = lines
            .into_iter()
            .map(|(name, dims, algo)| {
                Ok(LineSpec {
                    name,
                    dims,
                    algo: LineAlgo::parse(&algo).map_err(err)?,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let r = self.routing(routing, None, None)?;
        let net = self.inner.network();
        let symmetry = self.inner.symmetry().map_err(err)?;
        let measured = progress::observed(py, progress.as_ref(), |obs| {
            links::measure_numbered(net, r.as_ref(), &sizes, &specs, symmetry.as_ref(), obs)
        })?;
        Ok(measured.iter().map(|l| (l.alpha_s, l.bw_Bps)).collect())
    }

    /// Per-link load under uniform all-to-all traffic (units of one chip's injection rate).
    #[pyo3(signature = (routing=None, misroutes=None, job=None))]
    fn link_load<'py>(
        &self,
        py: Python<'py>,
        routing: Option<&str>,
        misroutes: Option<u8>,
        job: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let r = self.routing(routing, misroutes, job)?;
        let links = self.inner.network().links();
        let load = py
            .detach(|| analysis::all_to_all_link_load(r.as_ref(), links))
            .map_err(err)?;
        Ok(load.into_pyarray(py))
    }
}

fn routing_options(misroutes: Option<u8>, job: Option<&str>) -> RoutingOptions {
    RoutingOptions {
        misroutes,
        job: job.map(str::to_string),
    }
}

impl System {
    fn routing(
        &self,
        routing: Option<&str>,
        misroutes: Option<u8>,
        job: Option<&str>,
    ) -> PyResult<Box<dyn Routing>> {
        self.inner
            .routing(routing, &routing_options(misroutes, job))
            .map_err(err)
    }
}

/// Checks that a configuration is valid without realizing it; raises RailxError if not.
#[pyfunction]
fn validate_config(config_json: &str) -> PyResult<()> {
    resolve(&parse_config(config_json)?)
        .map(|_| ())
        .map_err(err)
}

/// Verifies a `railx.ocs/v1` file's text: ports only, or (with a configuration) also that the
/// circuits rebuild the intended topology. Returns the report as JSON; raises RailxError if invalid.
#[pyfunction]
#[pyo3(signature = (ocs_json, config_json=None))]
fn verify_ocs(py: Python<'_>, ocs_json: &str, config_json: Option<&str>) -> PyResult<String> {
    let config = OcsConfig::from_json(ocs_json).map_err(err)?;
    let report = match config_json {
        Some(text) => {
            let system = resolve(&parse_config(text)?).map_err(err)?;
            py.detach(|| verify(&config, &system))
        }
        None => verify_ports(&config),
    }
    .map_err(err)?;
    to_json(&report)
}

/// The rails of a Hamiltonian decomposition of K*_s as successor lists (rail t: u -> succ[t][u]).
#[pyfunction]
#[pyo3(signature = (s, allow_matching_rail=false))]
fn hamiltonian_rails(s: usize, allow_matching_rail: bool) -> PyResult<Vec<Vec<u32>>> {
    // s - 1 rails of s entries: the core's decomposition with its verification, and a Python
    // int (28 bytes) and list slot (8) per entry.
    require(
        "the rails of a Hamiltonian decomposition",
        &[Driver::new("s", s as u64, 1)],
        |v| {
            let entries = v[0] * (v[0] - 1.0).max(0.0);
            Estimate::memory(entries * (DECOMPOSITION_ENTRY_BYTES + 36.0))
        },
    )
    .map_err(err)?;
    rail_successors(s, allow_matching_rail).map_err(|e| {
        ConfigError::new_err(format!(
            "s = {s}: {e}; use an all-to-all of 3, 5, 7 or 8+ nodes, or allow_matching_rail"
        ))
    })
}

/// The resource estimate of building a system (a RailX configuration or a `{"peer": ...}`
/// spec, as JSON): (bytes at its peak, steps of work), what the build checks against the budget.
#[pyfunction]
fn build_estimate(spec_json: &str) -> PyResult<(f64, f64)> {
    let spec = SystemSpec::from_json(spec_json).map_err(err)?;
    let e = railx_core::system::build_estimate(&spec).map_err(err)?;
    Ok((e.bytes, e.work))
}

/// Largest system per preset for (m, n, R), as JSON.
#[pyfunction]
#[pyo3(name = "max_scale")]
fn max_scale_json(m: u32, n: u32, radix: u32) -> PyResult<String> {
    to_json(&max_scale(m, n, radix).map_err(err)?)
}

fn parse_peer(spec_json: &str) -> PyResult<PeerSpec> {
    serde_json::from_str(spec_json).map_err(|e| err(CoreError::parse("peer topology", e)))
}

/// Bill of materials of a peer topology (JSON spec tagged by `family`), as JSON; no graph.
#[pyfunction]
fn peer_bom(spec_json: &str) -> PyResult<String> {
    to_json(&parse_peer(spec_json)?.bom().map_err(err)?)
}

/// Bill of materials of a RailX configuration from its plant, with the global bandwidth of its
/// topology's closed form (worst region), as JSON; nothing is synthesised or realized.
#[pyfunction]
fn railx_config_bom(config_json: &str) -> PyResult<String> {
    let system = resolve(&parse_config(config_json)?).map_err(err)?;
    to_json(&railx_system_bom(&system))
}

/// A RailX plant (the `[system]` table, in core units, as JSON) as the core resolves it:
/// `{m, n, R, grid, chips, nodes, switches, rails_per_axis}`, the grid's default applied.
#[pyfunction]
fn railx_plant_json(system_json: &str) -> PyResult<String> {
    let spec: railx_core::spec::SystemSpec =
        serde_json::from_str(system_json).map_err(|e| err(CoreError::parse("system", e)))?;
    let p = Plant::from_spec(&spec).map_err(err)?;
    to_json(&serde_json::json!({
        "m": p.m, "n": p.n, "R": p.radix, "grid": [p.p, p.q],
        "chips": p.chips(), "nodes": p.nodes(), "switches": p.switches(),
        "rails_per_axis": p.m * p.n,
    }))
}

/// A RailX configuration's plant parameters and the logical dimensions of each axis as the core
/// resolves them (`{m, n, grid, port_bw_Bps, intra_bw_Bps, alpha_out_s, alpha_in_s, x, y}`, each
/// axis a list of `{size, kind, rails}`), for the analytic models; nothing is synthesised. A
/// configuration with jobs is refused (the models take the whole system).
#[pyfunction]
fn railx_layout_json(config_json: &str) -> PyResult<String> {
    let system = resolve(&parse_config(config_json)?).map_err(err)?;
    let [region] = &system.regions[..] else {
        return Err(err(CoreError::invalid(
            "jobs",
            system.regions.len(),
            "the analytic models take the whole system",
            "use a configuration with one [topology]",
        )));
    };
    let axis = |a: Axis| -> Vec<serde_json::Value> {
        region
            .layout(a)
            .dims
            .iter()
            .map(|d| serde_json::json!({"size": d.size, "kind": d.kind, "rails": d.rails}))
            .collect()
    };
    let p = &system.plant;
    to_json(&serde_json::json!({
        "m": p.m, "n": p.n, "grid": [p.p, p.q],
        "port_bw_Bps": p.port_bw_Bps, "intra_bw_Bps": p.intra_bw_Bps,
        "alpha_out_s": p.alpha_out_s, "alpha_in_s": p.alpha_in_s,
        "x": axis(Axis::X), "y": axis(Axis::Y),
    }))
}

/// Largest system per family and variant for a switch radix, as JSON.
#[pyfunction]
#[pyo3(name = "scalability")]
fn scalability_json(radix: u32) -> PyResult<String> {
    to_json(&scalability(radix).map_err(err)?)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RailxError", m.py().get_type::<RailxError>())?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("VerificationError", m.py().get_type::<VerificationError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("Cancelled", m.py().get_type::<Cancelled>())?;
    m.add_class::<System>()?;
    flow::register(m)?;
    m.add_function(wrap_pyfunction!(validate_config, m)?)?;
    m.add_function(wrap_pyfunction!(verify_ocs, m)?)?;
    m.add_function(wrap_pyfunction!(hamiltonian_rails, m)?)?;
    m.add_function(wrap_pyfunction!(max_scale_json, m)?)?;
    m.add_function(wrap_pyfunction!(build_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(peer_bom, m)?)?;
    m.add_function(wrap_pyfunction!(railx_config_bom, m)?)?;
    m.add_function(wrap_pyfunction!(railx_layout_json, m)?)?;
    m.add_function(wrap_pyfunction!(railx_plant_json, m)?)?;
    m.add_function(wrap_pyfunction!(scalability_json, m)?)?;
    collectives::register(m)?;
    sim::register(m)
}

//! Thin PyO3 binding over railx-core: it converts arguments and results, nothing else.
//! Structured results cross as JSON text (small) or NumPy arrays (large link lists).

mod collectives;
mod flow;
mod peer_routing;
mod sim;

use numpy::{IntoPyArray, PyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use railx_core::bom::{railx_bom, railx_global};
use railx_core::closed_form::{max_scale, region_closed_form};
use railx_core::hamiltonian::rail_successors;
use railx_core::ocs::{synthesize_jobs, OcsConfig};
use railx_core::peers::{scalability, PeerSpec};
use railx_core::plan::{plan, realize, Realized};
use railx_core::routing::railx::{RailxRouting, Scheme};
use railx_core::routing::{analysis, deadlock};
use railx_core::sim::dag::MessageDag;
use railx_core::spec::ConfigSpec;
use railx_core::topology::resolve;
use railx_core::verify::{verify, verify_ports};
use railx_core::RailxError as CoreError;
use std::fs::File;
use std::io::{BufWriter, Write};

create_exception!(
    _core,
    RailxError,
    PyValueError,
    "Invalid railx input: the message names the field, the rule and a valid alternative."
);

fn err(e: CoreError) -> PyErr {
    RailxError::new_err(e.to_string())
}

fn to_json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A message DAG as NumPy columns: src, dst, bytes, delay_s, and the dependencies in compressed
/// rows (message i waits for deps[dep_start[i]..dep_start[i + 1]]).
fn dag_arrays<'py>(py: Python<'py>, dag: &MessageDag) -> PyResult<Bound<'py, PyDict>> {
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

/// A configuration realized: validated, its OCS tables synthesised, its chip graph built from them.
#[pyclass(module = "railx._core", frozen)]
struct RealizedNetwork {
    inner: Realized,
}

#[pymethods]
impl RealizedNetwork {
    #[new]
    fn new(py: Python<'_>, config_json: &str) -> PyResult<Self> {
        let spec = parse_config(config_json)?;
        let inner = py.detach(|| realize(&spec)).map_err(err)?;
        Ok(RealizedNetwork { inner })
    }

    /// Plant summary, realized metrics and closed forms, as JSON.
    fn plan_json(&self, py: Python<'_>) -> PyResult<String> {
        let report = py.detach(|| plan(&self.inner)).map_err(err)?;
        to_json(&report)
    }

    /// The whole system's `railx.ocs/v1` configuration, as JSON.
    fn ocs_json(&self) -> String {
        self.inner.ocs.to_json()
    }

    /// One `railx.ocs/v1` configuration per job (empty without jobs), as (name, JSON) pairs.
    fn job_ocs_json(&self) -> PyResult<Vec<(String, String)>> {
        let configs = synthesize_jobs(&self.inner.system).map_err(err)?;
        Ok(configs
            .into_iter()
            .filter_map(|c| c.job.clone().map(|name| (name, c.to_json())))
            .collect())
    }

    #[getter]
    fn chips(&self) -> u32 {
        self.inner.network.chips()
    }

    /// Directed links as NumPy arrays: src, dst (chip ids), class (0 intra-node, 1 optical),
    /// bandwidth_Bps, latency_s, rail (-1 for mesh links).
    fn links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let net = &self.inner.network;
        let dict = PyDict::new(py);
        dict.set_item("src", net.src.clone().into_pyarray(py))?;
        dict.set_item("dst", net.dst.clone().into_pyarray(py))?;
        let class: Vec<u8> = net.class.iter().map(|c| *c as u8).collect();
        dict.set_item("class", class.into_pyarray(py))?;
        dict.set_item("bandwidth_Bps", net.bandwidth_bps.clone().into_pyarray(py))?;
        dict.set_item("latency_s", net.latency_s.clone().into_pyarray(py))?;
        let rail: Vec<i64> = net
            .rail
            .iter()
            .map(|&r| if r == u32::MAX { -1 } else { r as i64 })
            .collect();
        let rail: Bound<'py, PyArray1<i64>> = rail.into_pyarray(py);
        dict.set_item("rail", rail)?;
        Ok(dict)
    }

    /// Writes the chip graph to `path` as "json" (railx.network/v1 edge list) or "graphml".
    fn write_network(&self, py: Python<'_>, path: &str, format: &str) -> PyResult<()> {
        let net = &self.inner.network;
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

    /// The route between two chips under a routing function, as JSON.
    #[pyo3(signature = (routing, src, dst, misroutes=1, job=None))]
    fn route_json(
        &self,
        routing: &str,
        src: u32,
        dst: u32,
        misroutes: u8,
        job: Option<&str>,
    ) -> PyResult<String> {
        let r = self.routing(routing, misroutes, job)?;
        to_json(&r.describe_route(src, dst).map_err(err)?)
    }

    /// The deadlock check of a routing function (exhaustive up to ~12K chips, else structural on
    /// `samples` seeded routes), as JSON; `vcs` is the hardware's VC budget, if any.
    #[pyo3(signature = (routing, misroutes=1, job=None, samples=100_000, seed=0, vcs=None))]
    #[allow(clippy::too_many_arguments)]
    fn deadlock_json(
        &self,
        py: Python<'_>,
        routing: &str,
        misroutes: u8,
        job: Option<&str>,
        samples: usize,
        seed: u64,
        vcs: Option<u8>,
    ) -> PyResult<String> {
        let r = self.routing(routing, misroutes, job)?;
        if let Some(budget) = vcs {
            r.require_vcs(budget).map_err(err)?;
        }
        to_json(
            &py.detach(|| deadlock::check(&r, samples, seed))
                .map_err(err)?,
        )
    }

    /// Hop statistics over all pairs (or `samples` seeded pairs when there are more), as JSON.
    #[pyo3(signature = (routing, misroutes=1, job=None, samples=1_000_000, seed=0))]
    fn route_stats_json(
        &self,
        py: Python<'_>,
        routing: &str,
        misroutes: u8,
        job: Option<&str>,
        samples: usize,
        seed: u64,
    ) -> PyResult<String> {
        let r = self.routing(routing, misroutes, job)?;
        to_json(
            &py.detach(|| analysis::route_stats(&r, samples, seed))
                .map_err(err)?,
        )
    }

    /// Per-link load under uniform all-to-all traffic (units of one chip's injection rate).
    #[pyo3(signature = (routing, misroutes=1, job=None))]
    fn link_load<'py>(
        &self,
        py: Python<'py>,
        routing: &str,
        misroutes: u8,
        job: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let r = self.routing(routing, misroutes, job)?;
        let links = self.inner.network.links();
        let load = py
            .detach(|| analysis::all_to_all_link_load(&r, links))
            .map_err(err)?;
        Ok(load.into_pyarray(py))
    }
}

impl RealizedNetwork {
    fn routing(&self, routing: &str, misroutes: u8, job: Option<&str>) -> PyResult<RailxRouting> {
        let scheme = Scheme::parse(routing, misroutes).map_err(err)?;
        RailxRouting::of_region(&self.inner, job, scheme).map_err(err)
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
    rail_successors(s, allow_matching_rail).map_err(|e| {
        RailxError::new_err(format!(
            "s = {s}: {e}; use an all-to-all of 3, 5, 7 or 8+ nodes, or allow_matching_rail"
        ))
    })
}

/// Largest system per preset for (m, n, R), as JSON.
#[pyfunction]
#[pyo3(name = "max_scale")]
fn max_scale_json(m: u32, n: u32, radix: u32) -> PyResult<String> {
    to_json(&max_scale(m, n, radix))
}

fn parse_peer(spec_json: &str) -> PyResult<PeerSpec> {
    serde_json::from_str(spec_json).map_err(|e| err(CoreError::parse("peer topology", e)))
}

/// Bill of materials of a peer topology (JSON spec tagged by `family`), as JSON; no graph.
#[pyfunction]
fn peer_bom(spec_json: &str) -> PyResult<String> {
    to_json(&parse_peer(spec_json)?.bom().map_err(err)?)
}

/// A peer topology's graph as NumPy arrays (src, dst, class, bandwidth_Bps, latency_s, rail)
/// plus `chips` and `switch_radix`; refused beyond the size guard.
#[pyfunction]
fn peer_network<'py>(py: Python<'py>, spec_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let spec = parse_peer(spec_json)?;
    let net = py.detach(|| spec.network()).map_err(err)?;
    let dict = PyDict::new(py);
    dict.set_item("chips", net.chips())?;
    dict.set_item("switch_radix", net.switch_radix.into_pyarray(py))?;
    dict.set_item("src", net.src.into_pyarray(py))?;
    dict.set_item("dst", net.dst.into_pyarray(py))?;
    let class: Vec<u8> = net.class.iter().map(|c| *c as u8).collect();
    dict.set_item("class", class.into_pyarray(py))?;
    dict.set_item("bandwidth_Bps", net.bandwidth_bps.into_pyarray(py))?;
    dict.set_item("latency_s", net.latency_s.into_pyarray(py))?;
    let rail: Vec<i64> = net
        .rail
        .iter()
        .map(|&r| if r == u32::MAX { -1 } else { r as i64 })
        .collect();
    dict.set_item("rail", rail.into_pyarray(py))?;
    Ok(dict)
}

/// Bill of materials of a RailX configuration from its plant, with the global bandwidth of its
/// topology's closed form (worst region), as JSON; nothing is synthesised or realized.
#[pyfunction]
fn railx_config_bom(config_json: &str) -> PyResult<String> {
    let system = resolve(&parse_config(config_json)?).map_err(err)?;
    let plant = &system.plant;
    let forms: Vec<_> = system
        .regions
        .iter()
        .map(|r| region_closed_form(plant, r))
        .collect();
    let worst = |f: fn(&railx_core::closed_form::ClosedForm) -> f64| {
        forms.iter().map(f).fold(f64::INFINITY, f64::min)
    };
    let global = railx_global(
        plant,
        worst(|c| c.bisection_bw_per_chip),
        worst(|c| c.a2a_bound_per_chip),
    );
    to_json(&railx_bom(plant, global))
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
    m.add_class::<RealizedNetwork>()?;
    flow::register(m)?;
    m.add_function(wrap_pyfunction!(validate_config, m)?)?;
    m.add_function(wrap_pyfunction!(verify_ocs, m)?)?;
    m.add_function(wrap_pyfunction!(hamiltonian_rails, m)?)?;
    m.add_function(wrap_pyfunction!(max_scale_json, m)?)?;
    m.add_function(wrap_pyfunction!(peer_bom, m)?)?;
    m.add_function(wrap_pyfunction!(peer_network, m)?)?;
    m.add_function(wrap_pyfunction!(railx_config_bom, m)?)?;
    m.add_function(wrap_pyfunction!(scalability_json, m)?)?;
    collectives::register(m)?;
    peer_routing::register(m)?;
    sim::register(m)
}

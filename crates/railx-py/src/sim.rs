//! Binding of the flit-level simulator: a system, a routing function by name, the simulator
//! settings and the traffic, both as JSON.

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use railx_core::sim::flit::{simulate_observed, sweep_observed, FlitConfig, Traffic, TrafficSpec};
use railx_core::RailxError as CoreError;

use crate::progress::observed;
use crate::{err, to_json, System};
use railx_core::sim::flit_collective::{flit_config, simulate_collective_flit_with};

fn parse<T: serde::de::DeserializeOwned>(what: &str, json: &str) -> PyResult<T> {
    serde_json::from_str(json).map_err(|e| err(CoreError::parse(what, e)))
}

/// One run: the report as JSON and the per-link utilisation (network link order) as NumPy.
/// `progress(done, total, unit)` is called at most 10 times a second (`False` stops the run).
#[pyfunction]
#[pyo3(signature = (system, config_json, traffic_json, routing=None, misroutes=None, job=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn flit_simulate<'py>(
    py: Python<'py>,
    system: &System,
    config_json: &str,
    traffic_json: &str,
    routing: Option<&str>,
    misroutes: Option<u8>,
    job: Option<&str>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let config: FlitConfig = parse("simulator settings", config_json)?;
    let traffic: Traffic = parse::<TrafficSpec>("traffic", traffic_json)?
        .resolve()
        .map_err(err)?;
    let r = system.routing(routing, misroutes, job)?;
    let net = system.inner.network();
    let report = observed(py, progress.as_ref(), |obs| {
        simulate_observed(net, r.as_ref(), &config, &traffic, obs)
    })?;
    let dict = PyDict::new(py);
    dict.set_item("report", to_json(&report)?)?;
    dict.set_item("link_utilisation", report.link_utilisation.into_pyarray(py))?;
    Ok(dict)
}

/// A load sweep of one rate pattern, as JSON (points, saturation_load, peak_accepted);
/// `progress` as in `flit_simulate`, counting the cycles of every point.
#[pyfunction]
#[pyo3(signature = (system, config_json, traffic_json, loads, routing=None, misroutes=None, job=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn flit_sweep(
    py: Python<'_>,
    system: &System,
    config_json: &str,
    traffic_json: &str,
    loads: Vec<f64>,
    routing: Option<&str>,
    misroutes: Option<u8>,
    job: Option<&str>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let config: FlitConfig = parse("simulator settings", config_json)?;
    let pattern = match parse::<TrafficSpec>("traffic", traffic_json)?
        .resolve()
        .map_err(err)?
    {
        Traffic::Rate { pattern, .. } => pattern,
        _ => {
            return Err(err(CoreError::invalid(
                "sweep",
                "a finite workload",
                "a load sweep runs a rate pattern",
                "drop the size to sweep the all-to-all as a rate",
            )))
        }
    };
    let r = system.routing(routing, misroutes, job)?;
    let net = system.inner.network();
    let report = observed(py, progress.as_ref(), |obs| {
        sweep_observed(net, r.as_ref(), &config, &pattern, &loads, obs)
    })?;
    to_json(&report)
}

/// Runs a collective over every chip of the system at flit level (flits of
/// `flit_bytes`, `railx_core::sim::flit_collective`). Returns time_s, cycles, cycle_s and the
/// simulator's counters (short/long latency cycles, flit hops), and the simulator settings used
/// (JSON). `settings_json`: settings (a JSON object of `FlitConfig` fields) replacing the ones
/// derived from the system. `progress` as in `flit_simulate`, counting messages delivered.
#[pyfunction]
#[pyo3(signature = (system, op, algo, size_bytes, chunks=1, reduce_s_per_byte=0.0, routing=None, misroutes=None, flit_bytes=256, cus=None, settings_json=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn flit_collective<'py>(
    py: Python<'py>,
    system: &System,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    reduce_s_per_byte: f64,
    routing: Option<&str>,
    misroutes: Option<u8>,
    flit_bytes: u32,
    cus: Option<Vec<u32>>,
    settings_json: Option<&str>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (spec, group) = crate::collectives::whole_system(
        system,
        op,
        algo,
        size_bytes,
        chunks,
        reduce_s_per_byte,
        cus,
    )?;
    let r = system.routing(routing, misroutes, None)?;
    let net = system.inner.network();
    let mut config = flit_config(net, flit_bytes, r.vcs()).map_err(err)?;
    if let Some(json) = settings_json {
        config = with_settings(&config, json)?;
    }
    let run = observed(py, progress.as_ref(), |obs| {
        simulate_collective_flit_with(net, r.as_ref(), &group, &spec, &config, obs)
    })?;
    let d = PyDict::new(py);
    d.set_item("time_s", run.time_s)?;
    d.set_item("cycles", run.cycles)?;
    d.set_item("cycle_s", run.cycle_s)?;
    d.set_item("flit_bytes", flit_bytes)?;
    d.set_item("flit_hops", run.report.flit_hops)?;
    d.set_item("settings", to_json(&config)?)?;
    Ok(d)
}

/// `config` with the fields of the JSON object `json` replaced.
fn with_settings(config: &FlitConfig, json: &str) -> PyResult<FlitConfig> {
    let changes: serde_json::Map<String, serde_json::Value> = parse("simulator settings", json)?;
    if let Some(bytes) = changes.get("flit_bytes") {
        // The cycle is derived from the flit size: it is the call's argument, not a setting.
        return Err(err(CoreError::invalid(
            "settings_json.flit_bytes",
            bytes,
            "the flit size sets the cycle and is not a replaceable setting",
            "pass flit_bytes as the argument of its own",
        )));
    }
    let mut merged =
        serde_json::to_value(config).map_err(|e| err(CoreError::parse("simulator settings", e)))?;
    if let serde_json::Value::Object(fields) = &mut merged {
        fields.extend(changes);
    }
    serde_json::from_value(merged).map_err(|e| err(CoreError::parse("simulator settings", e)))
}

/// The settings of a named simulator preset (`table5` or `cnsim`) as JSON.
#[pyfunction]
fn flit_preset(name: &str) -> PyResult<String> {
    to_json(&FlitConfig::preset(name).map_err(err)?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(flit_preset, m)?)?;
    m.add_function(wrap_pyfunction!(flit_collective, m)?)?;
    m.add_function(wrap_pyfunction!(flit_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(flit_sweep, m)?)
}

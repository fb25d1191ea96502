//! Collective schedules over a RailX configuration's chips: counts (any scale), the message DAG
//! as NumPy arrays (for the simulators), and the symbolic correctness check.

use crate::{err, parse_config, RealizedNetwork};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use railx_core::collectives::check::check;
use railx_core::collectives::{build, counts, Algo, Group, Op};
use railx_core::sim::flow::collective::CollectiveSpec;
use railx_core::topology::resolve;
use railx_core::RailxError as CoreError;

/// Most messages a schedule may have to cross into Python as arrays.
const MAX_MESSAGES: u64 = 50_000_000;

/// The group of every chip of the configuration's region (the system, or the job named `job`).
fn region_group(config_json: &str, job: Option<&str>) -> PyResult<Group> {
    let system = resolve(&parse_config(config_json)?).map_err(err)?;
    let region = system.region(job).map_err(err)?;
    Group::railx_region(&system.plant, region).map_err(err)
}

fn parse(op: &str, algo: &str) -> PyResult<(Op, Algo)> {
    Ok((Op::parse(op).map_err(err)?, Algo::parse(algo).map_err(err)?))
}

/// A collective over every chip of `network`'s system, which must have no jobs: what to run and
/// the group, for the flow- and flit-level bindings.
pub(crate) fn whole_system(
    network: &RealizedNetwork,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    reduce_s_per_byte: f64,
) -> PyResult<(CollectiveSpec, Group)> {
    let (op, algo) = parse(op, algo)?;
    let spec = CollectiveSpec {
        op,
        algo,
        size_bytes,
        chunks,
        reduce_s_per_byte,
    };
    let system = &network.inner.system;
    let [region] = &system.regions[..] else {
        return Err(err(CoreError::invalid(
            "jobs",
            system.regions.len(),
            "a collective runs over the whole system",
            "use a configuration without jobs",
        )));
    };
    let group = Group::railx_region(&system.plant, region).map_err(err)?;
    Ok((spec, group))
}

/// Messages, units and bytes of a schedule, from its plan (no message is generated).
#[pyfunction]
#[pyo3(signature = (config_json, op, algo, size_bytes, chunks = 1, job = None))]
fn collective_counts<'py>(
    py: Python<'py>,
    config_json: &str,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    job: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let (op, algo) = parse(op, algo)?;
    let group = region_group(config_json, job)?;
    let c = counts(op, algo, &group, size_bytes, chunks).map_err(err)?;
    let dict = PyDict::new(py);
    dict.set_item("ranks", group.ranks())?;
    dict.set_item("messages", c.messages)?;
    dict.set_item("units_moved", c.units_moved)?;
    dict.set_item("bytes", c.bytes)?;
    Ok(dict)
}

/// The schedule lowered to a message DAG, as NumPy arrays: src and dst chips, bytes, delay_s,
/// and the dependencies in compressed rows (message i waits for deps[dep_start[i]:dep_start[i+1]]).
#[pyfunction]
#[pyo3(signature = (config_json, op, algo, size_bytes, chunks = 1, reduce_s_per_byte = 0.0, job = None))]
#[allow(clippy::too_many_arguments)]
fn collective_dag<'py>(
    py: Python<'py>,
    config_json: &str,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    reduce_s_per_byte: f64,
    job: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let (op, algo) = parse(op, algo)?;
    let group = region_group(config_json, job)?;
    let c = counts(op, algo, &group, size_bytes, chunks).map_err(err)?;
    if c.messages > MAX_MESSAGES {
        return Err(err(CoreError::invalid(
            "schedule",
            format!("{} messages", c.messages),
            format!("at most {MAX_MESSAGES} messages cross into Python"),
            "use a smaller system, or run it in the Rust simulators directly",
        )));
    }
    let dag = py
        .detach(|| {
            build(op, algo, &group, size_bytes, chunks).and_then(|s| s.to_dag(reduce_s_per_byte))
        })
        .map_err(err)?;
    crate::dag_arrays(py, &dag)
}

/// Builds the schedule and executes it symbolically; raises with the first problem found.
#[pyfunction]
#[pyo3(signature = (config_json, op, algo, size_bytes, chunks = 1, job = None))]
fn collective_check(
    config_json: &str,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    job: Option<&str>,
) -> PyResult<()> {
    let (op, algo) = parse(op, algo)?;
    let group = region_group(config_json, job)?;
    let schedule = build(op, algo, &group, size_bytes, chunks).map_err(err)?;
    check(&schedule).map_err(err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(collective_counts, m)?)?;
    m.add_function(wrap_pyfunction!(collective_dag, m)?)?;
    m.add_function(wrap_pyfunction!(collective_check, m)?)?;
    Ok(())
}

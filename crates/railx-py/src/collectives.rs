//! Collective schedules over a system's chips (every chip, or a RailX job's): counts (any
//! scale), the message DAG as NumPy arrays (for the simulators), and the symbolic correctness
//! check.

use crate::{err, System};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use railx_core::collectives::check::check;
use railx_core::collectives::{build, counts, links, plan_for, Algo, Group, Op};
use railx_core::resources::{require, Driver, Estimate};
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flow::collective::CollectiveSpec;

/// Bytes per message of a schedule crossing into Python: the core's DAG and its NumPy arrays
/// (source, destination, bytes, delay, a dependency and its row start).
const MESSAGE_ARRAY_BYTES: f64 = MessageDag::BYTES_PER_MESSAGE + 40.0;

fn parse(op: &str, algo: &str) -> PyResult<(Op, Algo)> {
    Ok((Op::parse(op).map_err(err)?, Algo::parse(algo).map_err(err)?))
}

/// The process group of `job` (a RailX job's name) or `cus` (a peer's chips, rank i on
/// `cus[i]`), else every chip.
pub(crate) fn group_of(
    system: &System,
    job: Option<&str>,
    cus: Option<Vec<u32>>,
) -> PyResult<Group> {
    match cus {
        Some(cus) => system.inner.cu_group(&cus).map_err(err),
        None => system.inner.group(job).map_err(err),
    }
}

/// A collective over every chip of `system` (which must have no jobs) or over the chips `cus`:
/// what to run and the group, for the flow- and flit-level bindings.
#[allow(clippy::too_many_arguments)]
pub(crate) fn whole_system(
    system: &System,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    reduce_s_per_byte: f64,
    cus: Option<Vec<u32>>,
) -> PyResult<(CollectiveSpec, Group)> {
    let (op, algo) = parse(op, algo)?;
    let spec = CollectiveSpec {
        op,
        algo,
        size_bytes,
        chunks,
        reduce_s_per_byte,
    };
    let group = match cus {
        Some(cus) => system.inner.cu_group(&cus).map_err(err)?,
        None => system.inner.whole_group().map_err(err)?,
    };
    Ok((spec, group))
}

/// Messages, units and bytes of a schedule, from its plan (no message is generated).
#[pyfunction]
#[pyo3(signature = (system, op, algo, size_bytes, chunks = 1, job = None, cus = None))]
#[allow(clippy::too_many_arguments)]
fn collective_counts<'py>(
    py: Python<'py>,
    system: &System,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    job: Option<&str>,
    cus: Option<Vec<u32>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (op, algo) = parse(op, algo)?;
    let group = group_of(system, job, cus)?;
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
#[pyo3(signature = (system, op, algo, size_bytes, chunks = 1, reduce_s_per_byte = 0.0, job = None, cus = None))]
#[allow(clippy::too_many_arguments)]
fn collective_dag<'py>(
    py: Python<'py>,
    system: &System,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    reduce_s_per_byte: f64,
    job: Option<&str>,
    cus: Option<Vec<u32>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (op, algo) = parse(op, algo)?;
    let group = group_of(system, job, cus)?;
    require_schedule(op, algo, &group, size_bytes, chunks)?;
    let dag = py
        .detach(|| {
            build(op, algo, &group, size_bytes, chunks).and_then(|s| s.to_dag(reduce_s_per_byte))
        })
        .map_err(err)?;
    crate::dag_arrays(py, &dag)
}

/// Builds the schedule and executes it symbolically; raises with the first problem found.
#[pyfunction]
#[pyo3(signature = (system, op, algo, size_bytes, chunks = 1, job = None, cus = None))]
fn collective_check(
    system: &System,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    job: Option<&str>,
    cus: Option<Vec<u32>>,
) -> PyResult<()> {
    let (op, algo) = parse(op, algo)?;
    let group = group_of(system, job, cus)?;
    require_schedule(op, algo, &group, size_bytes, chunks)?;
    let schedule = build(op, algo, &group, size_bytes, chunks).map_err(err)?;
    check(&schedule).map_err(err)
}

/// Refuses building a schedule whose messages (counted from its plan, none built) would not fit
/// the memory budget: they grow with the chunks each message is cut into.
fn require_schedule(
    op: Op,
    algo: Algo,
    group: &Group,
    size_bytes: u64,
    chunks: u32,
) -> PyResult<()> {
    let c = counts(op, algo, group, size_bytes, chunks).map_err(err)?;
    require(
        "this schedule's messages",
        &[Driver::new("chunks", chunks as u64, 1)],
        |v| Estimate::memory(c.messages as f64 * v[0] / chunks as f64 * MESSAGE_ARRAY_BYTES),
    )
    .map_err(err)?;
    Ok(())
}

/// The shape of `algo` for `op` over the system's group (or a RailX job's), for the analytic
/// models: `ranks`; `dims` (size, kind, axis) of the group; `rails` per dimension (RailX: rails
/// behind each dimension, 0 for the mesh; empty for a peer); `lines`, each with the group
/// dimensions it spans, its size and primitive (`ring`, `bidir-ring`, `direct`) and, when
/// `measure`, `alpha_s` and `bw_Bps` of one step measured on the routed network
/// (`railx_core::collectives::links`); `parts`, per data part the order of lines.
#[pyfunction]
#[pyo3(signature = (system, op, algo, measure = false, routing = None, misroutes = None, job = None, cus = None))]
#[allow(clippy::too_many_arguments)]
fn collective_plan<'py>(
    py: Python<'py>,
    system: &System,
    op: &str,
    algo: &str,
    measure: bool,
    routing: Option<&str>,
    misroutes: Option<u8>,
    job: Option<&str>,
    cus: Option<Vec<u32>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (op, algo) = parse(op, algo)?;
    let group = group_of(system, job, cus)?;
    let plan = plan_for(op, algo, &group).map_err(err)?;
    let measured = if measure {
        let r = system.routing(routing, misroutes, job)?;
        let net = system.inner.network();
        let symmetry = system.inner.symmetry().map_err(err)?;
        Some(
            py.detach(|| links::measure(net, r.as_ref(), &group, &plan, symmetry.as_ref()))
                .map_err(err)?,
        )
    } else {
        None
    };
    let d = PyDict::new(py);
    d.set_item("ranks", group.ranks())?;
    let dims: Vec<(u32, &str, &str)> = group
        .dims()
        .iter()
        .map(|g| (g.size, g.kind.name(), g.axis.name()))
        .collect();
    d.set_item("dims", dims)?;
    let rails = match system.inner.family() {
        "railx" => system.inner.railx_dim_rails(job).map_err(err)?,
        _ => Vec::new(),
    };
    d.set_item("rails", rails)?;
    let lines = PyList::empty(py);
    for (i, line) in plan.lines.iter().enumerate() {
        let l = PyDict::new(py);
        l.set_item("dims", line.dims.clone())?;
        l.set_item("size", line.size())?;
        l.set_item("algo", line.algo.name())?;
        if let Some(m) = &measured {
            l.set_item("alpha_s", m[i].alpha_s)?;
            l.set_item("bw_Bps", m[i].bw_Bps)?;
        }
        lines.append(l)?;
    }
    d.set_item("lines", lines)?;
    d.set_item("parts", plan.parts.clone())?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(collective_plan, m)?)?;
    m.add_function(wrap_pyfunction!(collective_counts, m)?)?;
    m.add_function(wrap_pyfunction!(collective_dag, m)?)?;
    m.add_function(wrap_pyfunction!(collective_check, m)?)?;
    Ok(())
}

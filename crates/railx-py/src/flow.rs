//! Binding of the flow-level simulator: message DAGs cross as NumPy columns (src, dst, bytes,
//! delay_s, and dependencies in compressed rows `dep_start`, `deps`), results as a dict of
//! scalars and arrays.

use super::{err, System};
use crate::progress::observed;
use numpy::{IntoPyArray, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use railx_core::sim::dag::MessageDag;
use railx_core::sim::flow::collective::{simulate_collectives_observed, CollectiveJob};
use railx_core::sim::flow::{
    simulate_observed, simulate_symmetric_observed, traffic, FlowReport, SymmetricDag, Translations,
};
use railx_core::RailxError as CoreError;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(flow_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(flow_symmetric_traffic, m)?)?;
    m.add_function(wrap_pyfunction!(flow_collective, m)?)?;
    m.add_function(wrap_pyfunction!(flow_collectives, m)?)
}

/// Builds a DAG from its columns; lengths must agree.
fn dag_of(
    src: &[u32],
    dst: &[u32],
    bytes: &[u64],
    delay_s: &[f64],
    dep_start: &[u64],
    deps: &[u32],
) -> Result<MessageDag, CoreError> {
    let n = src.len();
    let ok = dst.len() == n
        && bytes.len() == n
        && delay_s.len() == n
        && dep_start.len() == n + 1
        && dep_start.first() == Some(&0)
        && dep_start.windows(2).all(|w| w[0] <= w[1])
        && dep_start[n] as usize == deps.len();
    if !ok {
        return Err(CoreError::invalid(
            "messages",
            format!("{n} sources"),
            "src, dst, bytes and delay_s need one entry per message, dep_start one more, starting at 0, rising, ending at len(deps)",
            "build the messages with railx.flowsim.Messages",
        ));
    }
    let mut dag = MessageDag::new();
    for i in 0..n {
        let after = &deps[dep_start[i] as usize..dep_start[i + 1] as usize];
        dag.push(src[i], dst[i], bytes[i], delay_s[i], after)?;
    }
    Ok(dag)
}

fn report_dict<'py>(py: Python<'py>, r: FlowReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("completion_s", r.completion_s)?;
    d.set_item("flows", r.flows)?;
    d.set_item("messages", r.messages)?;
    d.set_item("events", r.events)?;
    d.set_item("start_s", r.start_s.into_pyarray(py))?;
    d.set_item("arrival_s", r.arrival_s.into_pyarray(py))?;
    d.set_item("resource_of_link", r.resource_of_link.into_pyarray(py))?;
    d.set_item(
        "resource_capacity_Bps",
        r.resource_capacity_Bps.into_pyarray(py),
    )?;
    if let Some(t) = r.timeline {
        let resources = t.mean.len();
        let util = t
            .utilisation
            .into_pyarray(py)
            .reshape([resources, t.bins as usize])?;
        d.set_item("utilisation", util)?;
        d.set_item("mean_utilisation", t.mean.into_pyarray(py))?;
        d.set_item("bin_s", t.bin_s)?;
    }
    Ok(d)
}

/// Runs a message DAG at flow level; `symmetric`: the messages are the representatives of a
/// DAG invariant under the node translations (aggregated, exact). `progress(done, total, unit)`
/// is called at most 10 times a second with the messages arrived (`False` stops the run).
#[pyfunction]
#[pyo3(signature = (system, src, dst, bytes, delay_s, dep_start, deps, routing=None, misroutes=None, job=None, bins=0, symmetric=false, progress=None))]
#[allow(clippy::too_many_arguments)]
fn flow_simulate<'py>(
    py: Python<'py>,
    system: &System,
    src: PyReadonlyArray1<'py, u32>,
    dst: PyReadonlyArray1<'py, u32>,
    bytes: PyReadonlyArray1<'py, u64>,
    delay_s: PyReadonlyArray1<'py, f64>,
    dep_start: PyReadonlyArray1<'py, u64>,
    deps: PyReadonlyArray1<'py, u32>,
    routing: Option<&str>,
    misroutes: Option<u8>,
    job: Option<&str>,
    bins: u32,
    symmetric: bool,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let r = system.routing(routing, misroutes, job)?;
    let net = system.inner.network();
    let (src, dst, bytes, delay_s) = (
        src.as_slice()?,
        dst.as_slice()?,
        bytes.as_slice()?,
        delay_s.as_slice()?,
    );
    let (dep_start, deps) = (dep_start.as_slice()?, deps.as_slice()?);
    let report = observed(py, progress.as_ref(), |obs| {
        let dag = dag_of(src, dst, bytes, delay_s, dep_start, deps)?;
        if symmetric {
            let group = Translations::whole(net.railx_plant()?);
            let sym = SymmetricDag::new(dag, group);
            simulate_symmetric_observed(net, r.as_ref(), &sym, bins, obs)
        } else {
            simulate_observed(net, r.as_ref(), &dag, bins, obs)
        }
    })?;
    report_dict(py, report)
}

/// The representative messages of a translation-invariant workload on the network's node grid:
/// `all-to-all` (bytes per pair), as columns. (Collectives: `flow_collective`.)
#[pyfunction]
fn flow_symmetric_traffic<'py>(
    py: Python<'py>,
    system: &System,
    kind: &str,
    bytes: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let plant = &system
        .inner
        .railx("symmetric traffic")
        .map_err(err)?
        .system
        .plant;
    let sym = py
        .detach(|| match kind {
            "all-to-all" => traffic::all_to_all(plant, bytes),
            other => Err(CoreError::invalid(
                "traffic",
                other,
                "unknown symmetric traffic",
                "use all-to-all (collective schedules: railx.flowsim.collective)",
            )),
        })
        .map_err(err)?;
    crate::dag_arrays(py, &sym.representatives)
}

/// Runs a collective over every chip of the system at flow level: aggregated over the largest
/// subgroup of the system's symmetry group (RailX: node translations; a peer: its family's
/// declared symmetries) under which it is invariant, the full schedule otherwise. Returns
/// completion_s, job_completion_s, flows, messages, events, aggregated and orbit (messages per
/// flow). `cus`: a peer job's chips instead of every chip. `progress` as in `flow_simulate`,
/// counting flows.
#[pyfunction]
#[pyo3(signature = (system, op, algo, size_bytes, chunks=1, reduce_s_per_byte=0.0, routing=None, misroutes=None, cus=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn flow_collective<'py>(
    py: Python<'py>,
    system: &System,
    op: &str,
    algo: &str,
    size_bytes: u64,
    chunks: u32,
    reduce_s_per_byte: f64,
    routing: Option<&str>,
    misroutes: Option<u8>,
    cus: Option<Vec<u32>>,
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
    run_jobs(
        py,
        system,
        vec![CollectiveJob { group, spec }],
        routing,
        misroutes,
        progress,
    )
}

/// One job of `flow_collectives` from its dict: `op`, `algo`, `size_bytes`, `cus` and
/// optionally `chunks` (default 1); other keys are refused.
fn job_of(
    system: &System,
    i: usize,
    job: &Bound<'_, PyDict>,
    reduce_s_per_byte: f64,
) -> PyResult<CollectiveJob> {
    const KEYS: [&str; 5] = ["op", "algo", "size_bytes", "cus", "chunks"];
    for key in job.keys() {
        let key: String = key.extract()?;
        if !KEYS.contains(&key.as_str()) {
            return Err(err(CoreError::invalid(
                format!("jobs[{i}].{key}"),
                &key,
                "not a job field",
                "use op, algo, size_bytes, cus and optionally chunks",
            )));
        }
    }
    let field = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        job.get_item(key)?.ok_or_else(|| {
            err(CoreError::invalid(
                format!("jobs[{i}].{key}"),
                "missing",
                "every job names op, algo, size_bytes and cus",
                "e.g. {\"op\": \"all-reduce\", \"algo\": \"flex-sipco\", \"size_bytes\": 1048576, \"cus\": [0, 1]}",
            ))
        })
    };
    let op: String = field("op")?.extract()?;
    let algo: String = field("algo")?.extract()?;
    let size_bytes: u64 = field("size_bytes")?.extract()?;
    let cus: Vec<u32> = field("cus")?.extract()?;
    let chunks: u32 = match job.get_item("chunks")? {
        Some(c) => c.extract()?,
        None => 1,
    };
    let (spec, group) = crate::collectives::whole_system(
        system,
        &op,
        &algo,
        size_bytes,
        chunks,
        reduce_s_per_byte,
        Some(cus),
    )?;
    Ok(CollectiveJob { group, spec })
}

/// Runs several jobs' collectives at once on a peer system at flow level (the union of their
/// DAGs, sharing the network): `jobs`, one dict per job (`op`, `algo`, `size_bytes`, `cus`,
/// optional `chunks`), CUs disjoint. Returns what `flow_collective` does, `job_completion_s`
/// in the order of the jobs. `progress` as in `flow_collective`.
#[pyfunction]
#[pyo3(signature = (system, jobs, reduce_s_per_byte=0.0, routing=None, misroutes=None, progress=None))]
fn flow_collectives<'py>(
    py: Python<'py>,
    system: &System,
    jobs: Vec<Bound<'py, PyDict>>,
    reduce_s_per_byte: f64,
    routing: Option<&str>,
    misroutes: Option<u8>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let jobs = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| job_of(system, i, j, reduce_s_per_byte))
        .collect::<PyResult<Vec<_>>>()?;
    run_jobs(py, system, jobs, routing, misroutes, progress)
}

/// Runs `jobs` together (`simulate_collectives`) and reports the run as a dict.
fn run_jobs<'py>(
    py: Python<'py>,
    system: &System,
    jobs: Vec<CollectiveJob>,
    routing: Option<&str>,
    misroutes: Option<u8>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let r = system.routing(routing, misroutes, None)?;
    let net = system.inner.network();
    let symmetry = system.inner.symmetry().map_err(err)?;
    let run = observed(py, progress.as_ref(), |obs| {
        simulate_collectives_observed(net, r.as_ref(), &jobs, symmetry.as_ref(), obs)
    })?;
    let d = PyDict::new(py);
    d.set_item("completion_s", run.report.completion_s)?;
    d.set_item("job_completion_s", run.job_completion_s.into_pyarray(py))?;
    d.set_item("flows", run.report.flows)?;
    d.set_item("messages", run.report.messages)?;
    d.set_item("events", run.report.events)?;
    d.set_item("aggregated", run.aggregated)?;
    d.set_item("orbit", run.orbit)?;
    Ok(d)
}

//! Routing on peer networks: a peer spec (JSON, tagged by `family`) and a routing function name
//! (`None`: the family's default), the network built afresh on each call. Results are JSON.

use super::{err, parse_peer, to_json};
use pyo3::prelude::*;
use railx_core::routing::peer::{describe_route, for_peer, names, require_vcs};
use railx_core::routing::{analysis, deadlock, Routing};

/// Builds the peer's network and its routing function, then runs `job` on it without the GIL.
fn with_routing<T: Send>(
    py: Python<'_>,
    spec_json: &str,
    routing: Option<&str>,
    job: impl FnOnce(&dyn Routing) -> railx_core::Result<T> + Send,
) -> PyResult<T> {
    let spec = parse_peer(spec_json)?;
    py.detach(|| {
        let net = spec.network()?;
        job(for_peer(&spec, &net, routing)?.as_ref())
    })
    .map_err(err)
}

/// The routing function names a peer family offers, its default first.
#[pyfunction]
fn peer_routing_names(spec_json: &str) -> PyResult<Vec<&'static str>> {
    Ok(names(&parse_peer(spec_json)?).to_vec())
}

/// The route between two chips of a peer network, as JSON.
#[pyfunction]
#[pyo3(signature = (spec_json, src, dst, routing=None))]
fn peer_route_json(
    py: Python<'_>,
    spec_json: &str,
    src: u32,
    dst: u32,
    routing: Option<&str>,
) -> PyResult<String> {
    to_json(&with_routing(py, spec_json, routing, |r| {
        describe_route(r, src, dst)
    })?)
}

/// The deadlock check of a peer's routing function (exhaustive up to ~12K chips, else structural
/// on `samples` seeded routes), as JSON; `vcs` is the hardware's VC budget, if any.
#[pyfunction]
#[pyo3(signature = (spec_json, routing=None, samples=100_000, seed=0, vcs=None))]
fn peer_deadlock_json(
    py: Python<'_>,
    spec_json: &str,
    routing: Option<&str>,
    samples: usize,
    seed: u64,
    vcs: Option<u8>,
) -> PyResult<String> {
    to_json(&with_routing(py, spec_json, routing, |r| {
        if let Some(budget) = vcs {
            require_vcs(r, budget)?;
        }
        deadlock::check(r, samples, seed)
    })?)
}

/// Hop statistics of a peer's routing over all pairs (or `samples` seeded pairs), as JSON.
#[pyfunction]
#[pyo3(signature = (spec_json, routing=None, samples=1_000_000, seed=0))]
fn peer_route_stats_json(
    py: Python<'_>,
    spec_json: &str,
    routing: Option<&str>,
    samples: usize,
    seed: u64,
) -> PyResult<String> {
    to_json(&with_routing(py, spec_json, routing, |r| {
        analysis::route_stats(r, samples, seed)
    })?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(peer_routing_names, m)?)?;
    m.add_function(wrap_pyfunction!(peer_route_json, m)?)?;
    m.add_function(wrap_pyfunction!(peer_deadlock_json, m)?)?;
    m.add_function(wrap_pyfunction!(peer_route_stats_json, m)?)?;
    Ok(())
}

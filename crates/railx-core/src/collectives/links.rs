//! What one step on each line of a plan costs on the routed network: the step's latency and the
//! bandwidth each rank gets, measured by routing every message of one step of every instance of
//! the line at once (all line instances run together, so they share links).
//!
//! A step's messages are: on a ring, every rank to its successor (a bidirectional ring: to both
//! neighbours, half the data each); on a direct line, every rank to every other rank of its
//! line. Messages follow the routing function as the flow-level simulator does (split evenly
//! where it offers several next hops). Every message of the step carries the same bytes, so the
//! slowest message's rate is `r = min over links of capacity / messages crossing it` (max-min
//! fairness gives the messages through the most loaded link exactly that share), and the step's
//! latency is the longest path's. The bandwidth reported is the one the alpha-beta stage formulas take (a rank's bytes
//! per second in each direction of the line): `r` for a ring of either kind, `(L-1) r / 2` for a
//! direct line of L ranks, whose rank sends L-1 messages at once over both directions.
//!
//! [`measure_numbered`] measures lines of a group laid on the chips in id order (rank i on chip
//! i), which is how a training job's parallelism dimensions sit on a system: the families number
//! their chips high-bandwidth domain first, so the innermost dimensions land inside a domain.
//!
//! Symmetry: when the step's messages are invariant under a group H of automorphisms of the
//! network acting freely on chips (the subgroup of the system's symmetry group whose
//! generators commute with the line, as for the flow level: `collectives::symmetric`), only the
//! messages sent from H's fundamental domain are routed. By the counting of
//! `sim::flow::symmetry` (point 2), the `|H|` images of a message cross an orbit L of links
//! `|H| c` times in all, `|H| c / |L|` times on each of its links (c: the representative's
//! crossings of L), so the number of messages on each link of L is `n_L |H| / |L|`, where `n_L`
//! sums c over the representatives; `capacity / messages` on a link of L is therefore
//! `(b |L| / |H|) / n_L`, the orbit's aggregated capacity over its representative load. The
//! latency of a message is that of its representative (equivariant routing, checked on a
//! sample). Exact up to the rounding of the sums, and |H| times less routing: the direct
//! all-to-all step of a 4,096-chip fat-tree routes 4,095 messages instead of 16.8M.

use crate::collectives::group::{DimKind, Group, GroupDim};
use crate::collectives::plan::{Line, LineAlgo, Plan};
use crate::collectives::symmetric::{is_whole_system, line_breaks};
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::plant::Axis;
use crate::progress::{Meter, Observer, Unit};
use crate::resources::{require, Driver, Estimate};
use crate::routing::analysis::ROUTE_STEPS;
use crate::routing::Routing;
use crate::sim::flow::paths::Walker;
use crate::sim::flow::{LinkOrbits, Symmetry, EQUIVARIANCE_SAMPLES};
use rayon::prelude::*;

/// One step on a line: latency and the per-rank, per-direction bandwidth of the stage formulas.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(non_snake_case)]
pub struct LineLink {
    pub alpha_s: f64,
    pub bw_Bps: f64,
}

/// The measured link of every line of `plan` over `group` on `net` routed by `routing`;
/// `symmetry`, the system's symmetry group, if any, lets each line route only one message per
/// orbit (module docs).
pub fn measure(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    plan: &Plan,
    symmetry: Option<&Symmetry>,
) -> Result<Vec<LineLink>> {
    plan.lines
        .iter()
        .map(|line| {
            let refusal = Refusal {
                field: "ranks",
                what: format!(
                    "measuring one step of a {}-rank {} line (link_model = routed; the paper's link model measures none)",
                    line.size(),
                    line.algo.name()
                ),
                senders_grow: false,
            };
            measure_line(net, routing, group, line, symmetry, &refusal)
        })
        .collect()
}

/// One line to measure over a numbered group: the group dimensions it spans (innermost first),
/// its primitive, and the name errors call it by.
#[derive(Debug, Clone, PartialEq)]
pub struct LineSpec {
    pub name: String,
    pub dims: Vec<usize>,
    pub algo: LineAlgo,
}

/// The measured link of each line in `lines` over the group of `sizes` (ranks numbered in mixed
/// radix, innermost first) laid on chips `0..product(sizes)`: rank i on chip i. Each line is
/// measured on its own, all its instances at once. Dimensions of size 1 are kept, so a line's
/// dims index `sizes` as given; a line over them alone has no step (zero latency, infinite
/// bandwidth).
pub fn measure_numbered(
    net: &Network,
    routing: &dyn Routing,
    sizes: &[u32],
    lines: &[LineSpec],
    symmetry: Option<&Symmetry>,
    observer: &mut dyn Observer,
) -> Result<Vec<LineLink>> {
    let ranks: u64 = sizes.iter().map(|&s| s as u64).product();
    if ranks > net.chips() as u64 {
        let shown: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        return Err(RailxError::invalid(
            "sizes",
            format!("[{}]", shown.join(" x ")),
            format!(
                "{ranks} ranks do not fit the system's {} chips",
                net.chips()
            ),
            "use sizes whose product is at most the chip count",
        ));
    }
    // The dimension kinds are not read by the measurement: the lines say how ranks talk.
    let dims = sizes
        .iter()
        .map(|&s| GroupDim::new(s, DimKind::Ring, Axis::X))
        .collect();
    let group = Group::new((0..ranks as u32).collect(), dims, net.chips())?;
    // One report per line: a line of a large switched system takes seconds (every branch of its
    // messages' routes is walked).
    let mut meter = Meter::new(
        observer,
        "the lines' measurement",
        Unit::Lines,
        Some(lines.len() as u64),
        1,
    );
    meter.report(0)?;
    let mut measured = Vec::with_capacity(lines.len());
    for spec in lines {
        measured.push({
            if spec.dims.is_empty() {
                return Err(RailxError::invalid(
                    format!("{}.dims", spec.name),
                    "[]",
                    "a line spans at least one dimension",
                    "name a dimension index",
                ));
            }
            if let Some(&d) = spec.dims.iter().find(|&&d| d >= sizes.len()) {
                return Err(RailxError::invalid(
                    format!("{}.dims", spec.name),
                    d,
                    format!("the group has {} dimensions", sizes.len()),
                    format!("use indices 0..{}", sizes.len()),
                ));
            }
            let line = Line::new(&group, spec.dims.clone(), spec.algo);
            let refusal = Refusal {
                field: &spec.name,
                what: format!(
                    "measuring one step of {} ({} over {} ranks of a group of {})",
                    spec.name,
                    spec.algo.name(),
                    line.size(),
                    group.ranks()
                ),
                senders_grow: true,
            };
            measure_line(net, routing, &group, &line, symmetry, &refusal)?
        });
        meter.report(measured.len() as u64)?;
    }
    Ok(measured)
}

/// Messages of one step from `rank` on `line`, as destination ranks.
fn step_targets(line: &Line, rank: u32, out: &mut Vec<u32>) {
    out.clear();
    let (size, pos) = (line.size(), line.pos(rank));
    match line.algo {
        LineAlgo::Ring => out.push(line.rank_at(rank, (pos + 1) % size)),
        // Both halves, even when they go to the same neighbour (a ring of two): they share its
        // link as the schedule's two messages do.
        LineAlgo::BidirRing => {
            out.push(line.rank_at(rank, (pos + 1) % size));
            out.push(line.rank_at(rank, (pos + size - 1) % size));
        }
        LineAlgo::Direct => out.extend(
            (0..size)
                .filter(|&q| q != pos)
                .map(|q| line.rank_at(rank, q)),
        ),
    }
}

/// Whose messages a measurement routes, and onto which resources of what capacity.
#[allow(non_snake_case)]
struct Measured {
    senders: Vec<u32>,
    resource_of_link: Vec<u32>,
    capacity_Bps: Vec<f64>,
}

/// Every rank's messages on every link, or, when the step of `line` is invariant under a
/// non-trivial subgroup of `symmetry` that maps the network onto itself and the routing is
/// equivariant on the sampled routes, the fundamental domain's messages on the link orbits.
fn measured(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    line: &Line,
    symmetry: Option<&Symmetry>,
) -> Measured {
    let full = || Measured {
        senders: (0..group.ranks()).collect(),
        resource_of_link: (0..net.links() as u32).collect(),
        capacity_Bps: net.bandwidth_Bps.clone(),
    };
    let Some(h) = symmetry else {
        return full();
    };
    if !is_whole_system(group, h) || routing.chips().len() != net.chips() as usize {
        return full();
    }
    let keep: Vec<usize> = (0..h.generators().len())
        .filter(|&i| line_breaks(line, h, i, group.ranks()).is_none())
        .collect();
    if keep.is_empty() {
        return full();
    }
    let sub = h.subgroup(&keep);
    let Ok(orbits) = LinkOrbits::of(net, &sub) else {
        return full();
    };
    let senders: Vec<u32> = (0..sub.domain_chips())
        .map(|s| sub.domain_chip(s))
        .collect();
    let mut pairs = Vec::new();
    let mut targets = Vec::new();
    for &r in &senders {
        step_targets(line, r, &mut targets);
        pairs.extend(targets.iter().map(|&t| (r, t)));
    }
    if orbits
        .check_equivariance(net, routing, &pairs, EQUIVARIANCE_SAMPLES)
        .is_err()
    {
        return full();
    }
    Measured {
        senders,
        resource_of_link: orbits.orbit_of_link().to_vec(),
        capacity_Bps: orbits.orbit_capacity_Bps().to_vec(),
    }
}

/// How a line's measurement beyond the resource budget is refused: the input named (the line's
/// ranks), what the measurement is called, and whether its senders grow with the line (a
/// numbered group's ranks are its lines' product) or are the system's.
struct Refusal<'a> {
    field: &'a str,
    what: String,
    senders_grow: bool,
}

/// Refuses measuring a step beyond the resource budget: `senders` each route `fanout` messages
/// (a direct line's grows with its ranks), and each thread sums loads over `resources`.
fn require_step(
    refusal: &Refusal,
    line: &Line,
    senders: usize,
    resources: usize,
) -> Result<Estimate> {
    let size = line.size() as u64;
    let threads = rayon::current_num_threads() as f64;
    let drivers = [Driver::new(refusal.field, size, 2)];
    require(&refusal.what, &drivers, |v| {
        let fanout = match line.algo {
            LineAlgo::Ring => 1.0,
            LineAlgo::BidirRing => 2.0,
            LineAlgo::Direct => v[0] - 1.0,
        };
        let senders = match refusal.senders_grow {
            true => senders as f64 * v[0] / size as f64,
            false => senders as f64,
        };
        // A fold's and a reduction's load vector per thread, and rayon's splits beyond them.
        let loads_bytes = 4.0 * threads * resources as f64 * 8.0;
        Estimate::new(loads_bytes, loads_bytes + senders * fanout * ROUTE_STEPS)
    })
}

#[allow(non_snake_case)]
fn measure_line(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    line: &Line,
    symmetry: Option<&Symmetry>,
    refusal: &Refusal,
) -> Result<LineLink> {
    let size = line.size();
    if size <= 1 {
        return Ok(LineLink {
            alpha_s: 0.0,
            bw_Bps: f64::INFINITY,
        });
    }
    let m = measured(net, routing, group, line, symmetry);
    let resources = m.capacity_Bps.len();
    require_step(refusal, line, m.senders.len(), resources)?;
    let (load, alpha_s) = m
        .senders
        .par_iter()
        .try_fold(
            || {
                (
                    vec![0.0f64; resources],
                    0.0f64,
                    Vec::new(),
                    Walker::default(),
                )
            },
            |(mut load, mut alpha, mut targets, mut walker), &rank| {
                step_targets(line, rank, &mut targets);
                let src = group.chip(rank);
                for &peer in &targets {
                    let latency = walker.walk(routing, &net.latency_s, src, group.chip(peer))?;
                    alpha = alpha.max(latency);
                    for &(resource, share) in walker.incidence(&m.resource_of_link) {
                        load[resource as usize] += share;
                    }
                }
                Ok::<_, RailxError>((load, alpha, targets, walker))
            },
        )
        .map(|r| r.map(|(load, alpha, _, _)| (load, alpha)))
        .try_reduce(
            || (vec![0.0f64; resources], 0.0f64),
            |(mut a, alpha_a), (b, alpha_b)| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                Ok((a, alpha_a.max(alpha_b)))
            },
        )?;
    let rate = load
        .iter()
        .zip(&m.capacity_Bps)
        .filter(|(&n, _)| n > 0.0)
        .map(|(&n, &bw)| bw / n)
        .fold(f64::INFINITY, f64::min);
    let bw_Bps = match line.algo {
        LineAlgo::Direct => (size - 1) as f64 * rate / 2.0,
        LineAlgo::Ring | LineAlgo::BidirRing => rate,
    };
    Ok(LineLink { alpha_s, bw_Bps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::system::{RoutingOptions, System, SystemSpec};

    fn spec(name: &str, dims: Vec<usize>, algo: LineAlgo) -> LineSpec {
        LineSpec {
            name: name.to_string(),
            dims,
            algo,
        }
    }

    /// Eight chips on one 8-port switch, 50 GB/s ports: each rank's one link out is the only
    /// shared resource, so a step's rate is its port over the messages it sends.
    fn one_switch() -> System {
        let json = r#"{"peer": {"family": "fat-tree", "radix": 8, "chips": 8}}"#;
        System::build(&SystemSpec::from_json(json).unwrap()).unwrap()
    }

    #[test]
    fn numbered_lines_on_one_switch_get_their_port_over_their_messages() {
        let system = one_switch();
        let routing = system.routing(None, &RoutingOptions::default()).unwrap();
        let port = 50e9;
        let lines = [
            spec("T", vec![0], LineAlgo::BidirRing),
            spec("T", vec![0], LineAlgo::Direct),
            spec("P", vec![2], LineAlgo::Ring),
            spec("TP", vec![0, 2], LineAlgo::Direct),
            spec("E", vec![1], LineAlgo::Direct),
        ];
        let got = measure_numbered(
            system.network(),
            routing.as_ref(),
            &[4, 1, 2],
            &lines,
            None,
            &mut Silent,
        )
        .unwrap();
        // Bidirectional ring: two messages share the port, r = B/2. Direct over L: L-1 share it,
        // r = B/(L-1), reported as (L-1) r / 2 = B/2. One-way ring: r = B.
        let expected = [port / 2.0, port / 2.0, port, port / 2.0, f64::INFINITY];
        for (link, want) in got.iter().zip(expected) {
            assert_eq!(link.bw_Bps, want);
        }
        assert_eq!(got[4].alpha_s, 0.0); // a line of one rank has no step
        assert!(got[0].alpha_s > 0.0 && got[0].alpha_s == got[3].alpha_s);
    }

    #[test]
    fn numbered_lines_refuse_bad_input_in_one_line() {
        let system = one_switch();
        let routing = system.routing(None, &RoutingOptions::default()).unwrap();
        let net = system.network();
        let err = |sizes: &[u32], line: LineSpec| {
            measure_numbered(net, routing.as_ref(), sizes, &[line], None, &mut Silent)
                .unwrap_err()
                .to_string()
        };
        let too_many = err(&[4, 4], spec("T", vec![0], LineAlgo::Ring));
        assert!(
            too_many.starts_with("sizes = [4 x 4]: 16 ranks do not fit the system's 8 chips"),
            "{too_many}"
        );
        let out_of_range = err(&[8], spec("parallel.C", vec![1], LineAlgo::Ring));
        assert!(
            out_of_range.starts_with("parallel.C.dims = 1: the group has 1 dimensions"),
            "{out_of_range}"
        );
        let empty = err(&[8], spec("parallel.T", vec![], LineAlgo::Ring));
        assert!(empty.starts_with("parallel.T.dims = []"), "{empty}");
        for e in [too_many, out_of_range, empty] {
            assert!(!e.contains('\n'));
        }
    }
}

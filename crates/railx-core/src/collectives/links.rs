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

use crate::collectives::group::Group;
use crate::collectives::plan::{Line, LineAlgo, Plan};
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::routing::Routing;
use crate::sim::flow::paths::Walker;
use rayon::prelude::*;

/// Most messages one measured step may route.
pub const MAX_STEP_MESSAGES: u64 = 20_000_000;

/// One step on a line: latency and the per-rank, per-direction bandwidth of the stage formulas.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(non_snake_case)]
pub struct LineLink {
    pub alpha_s: f64,
    pub bw_Bps: f64,
}

/// The measured link of every line of `plan` over `group` on `net` routed by `routing`.
pub fn measure(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    plan: &Plan,
) -> Result<Vec<LineLink>> {
    plan.lines
        .iter()
        .map(|line| measure_line(net, routing, group, line))
        .collect()
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

#[allow(non_snake_case)]
fn measure_line(
    net: &Network,
    routing: &dyn Routing,
    group: &Group,
    line: &Line,
) -> Result<LineLink> {
    let size = line.size();
    if size <= 1 {
        return Ok(LineLink {
            alpha_s: 0.0,
            bw_Bps: f64::INFINITY,
        });
    }
    let fanout = match line.algo {
        LineAlgo::Ring => 1,
        LineAlgo::BidirRing => 2,
        LineAlgo::Direct => size as u64 - 1,
    };
    let messages = group.ranks() as u64 * fanout;
    if messages > MAX_STEP_MESSAGES {
        return Err(RailxError::invalid(
            "link_model",
            "routed",
            format!(
                "measuring a step of this line routes {messages} messages, more than {MAX_STEP_MESSAGES}"
            ),
            "use the paper's link model (RailX), the flow fidelity, or a smaller system",
        ));
    }
    let links = net.links();
    let identity: Vec<u32> = (0..links as u32).collect();
    let (load, alpha_s) = (0..group.ranks())
        .into_par_iter()
        .try_fold(
            || (vec![0.0f64; links], 0.0f64, Vec::new(), Walker::default()),
            |(mut load, mut alpha, mut targets, mut walker), rank| {
                step_targets(line, rank, &mut targets);
                let src = group.chip(rank);
                for &peer in &targets {
                    let latency = walker.walk(routing, &net.latency_s, src, group.chip(peer))?;
                    alpha = alpha.max(latency);
                    for &(link, share) in walker.incidence(&identity) {
                        load[link as usize] += share;
                    }
                }
                Ok::<_, RailxError>((load, alpha, targets, walker))
            },
        )
        .map(|r| r.map(|(load, alpha, _, _)| (load, alpha)))
        .try_reduce(
            || (vec![0.0f64; links], 0.0f64),
            |(mut a, alpha_a), (b, alpha_b)| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                Ok((a, alpha_a.max(alpha_b)))
            },
        )?;
    let rate = load
        .iter()
        .zip(&net.bandwidth_Bps)
        .filter(|(&n, _)| n > 0.0)
        .map(|(&n, &bw)| bw / n)
        .fold(f64::INFINITY, f64::min);
    let bw_Bps = match line.algo {
        LineAlgo::Direct => (size - 1) as f64 * rate / 2.0,
        LineAlgo::Ring | LineAlgo::BidirRing => rate,
    };
    Ok(LineLink { alpha_s, bw_Bps })
}

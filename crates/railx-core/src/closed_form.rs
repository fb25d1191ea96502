//! The paper's closed forms (RailX paper Table 2, eq. 1-5), evaluated for a region so
//! that they can be set beside the metrics of the realized network.

use crate::error::{RailxError, Result};
use crate::metrics::Hops;
use crate::plant::Plant;
use crate::spec::{DimKind, Preset};
use crate::topology::{LogicalDim, Region};
use serde::Serialize;

/// Closed-form values for the same quantities as `RegionMetrics`, with which of them are exact.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClosedForm {
    pub chips: u64,
    pub nodes: u64,
    pub switches: u64,
    pub rails_per_dim: u32,
    pub diameter_inter_node: u32,
    pub diameter_hops: Hops,
    pub bisection_bw_per_chip: f64,
    pub a2a_bound_per_chip: f64,
    /// Quantities whose closed form is a bound or an approximation rather than exact, each with why.
    pub approximate: Vec<String>,
}

/// Inter-node diameter of one logical dimension alone.
fn dim_diameter(dim: &LogicalDim) -> u32 {
    match dim.kind {
        DimKind::Ring => dim.size / 2,
        DimKind::AllToAll | DimKind::SingleLinkAllToAll | DimKind::GlobalAllToAll => 1,
    }
}

/// Directed links crossing a cut that halves `dim` (paper: (s/2)^2 node pairs per all-to-all
/// fiber, two crossings per ring, half of the global circuits for a Dragonfly). A pair across the
/// cut has 2 circuits per copy in a two-link all-to-all and 1 in a single-link one, each circuit 2
/// directed links: s^2 and s^2/2 links per fiber and copy.
fn dim_cut_links(dim: &LogicalDim, nodes: u64) -> f64 {
    let s = dim.size as f64;
    let fibers = nodes as f64 / s;
    match dim.kind {
        DimKind::Ring => fibers * 4.0 * dim.rails as f64,
        DimKind::AllToAll => fibers * dim.copies() as f64 * s * s,
        DimKind::SingleLinkAllToAll => fibers * dim.copies() as f64 * s * s / 2.0,
        DimKind::GlobalAllToAll => s * (s - 1.0),
    }
}

pub fn region_closed_form(plant: &Plant, region: &Region) -> ClosedForm {
    let nodes = region.nodes() as u64;
    let chips = nodes * plant.chips_per_node() as u64;
    let m = plant.m;
    let dims: Vec<&LogicalDim> = region.x.dims.iter().chain(region.y.dims.iter()).collect();
    let mut approximate = Vec::new();
    let global = dims.iter().find(|d| d.kind == DimKind::GlobalAllToAll);
    let local: u32 = dims
        .iter()
        .filter(|d| d.kind != DimKind::GlobalAllToAll)
        .map(|d| dim_diameter(d))
        .sum();
    let diameter = match global {
        Some(_) => {
            // Exact at full size (groups of r + 1 nodes, r(r + 1) + 1 of them) from r = 3 on:
            // its (r + 1)(r^2 + r + 1) nodes exceed 1 + 2r + 4r^2, the most that out-degree 2r
            // reaches within two hops. At r = 2 they equal it (21 nodes), and the 7 x 3
            // Dragonfly realizes diameter 2.
            approximate.push("diameter_inter_node: local + global + local is an upper bound (exact at full Dragonfly size for r >= 3; the full r = 2 Dragonfly, 7 x 3 nodes, has diameter 2)".into());
            2 * local + 1
        }
        None => local,
    };
    let is_2d = |kind: DimKind| {
        region.x.dims.len() == 1 && region.y.dims.len() == 1 && dims.iter().all(|d| d.kind == kind)
    };
    let hi = if region.preset == Some(Preset::Hyperx) || is_2d(DimKind::AllToAll) {
        approximate.push(
            "diameter_hops.Hi: 5m-6 is the paper's bound for nearest-link routing on a 2D-HyperX"
                .into(),
        );
        (5 * m).saturating_sub(6)
    } else if is_2d(DimKind::SingleLinkAllToAll) {
        // One link per node pair, on one side of the mesh only: no nearer link to choose, so up
        // to 2(m-1) mesh hops in each of the three nodes a route visits.
        approximate.push(
            "diameter_hops.Hi: 6(m-1) bounds a single-link 2D-HyperX (one link per pair: up to 2(m-1) mesh hops in each of the 3 nodes visited)".into(),
        );
        6 * (m - 1)
    } else if region.preset == Some(Preset::Torus) || is_2d(DimKind::Ring) {
        approximate.push(
            "diameter_hops.Hi: the paper's (m-1) per external hop; crossing the source and destination meshes adds up to 2(m-1) more".into(),
        );
        (m - 1) * diameter
    } else {
        approximate
            .push("diameter_hops.Hi: at most 2(m-1) mesh hops in each node a route visits".into());
        2 * (m - 1) * (diameter + 1)
    };
    let cut = dims
        .iter()
        .map(|d| dim_cut_links(d, nodes))
        .fold(f64::INFINITY, f64::min);
    let cut = if cut.is_finite() { cut } else { 0.0 };
    if dims
        .iter()
        .any(|d| d.size % 2 == 1 || d.kind == DimKind::GlobalAllToAll)
    {
        approximate.push(
            "bisection: the closed form halves every dimension exactly (and counts half of a Dragonfly's global links); with an odd size the realized balanced cut also splits one slab of nodes".into(),
        );
    }
    ClosedForm {
        chips,
        nodes,
        switches: plant.switches() as u64,
        rails_per_dim: plant.r(),
        diameter_inter_node: diameter,
        diameter_hops: Hops {
            Ho: diameter,
            Hi: hi,
        },
        bisection_bw_per_chip: cut / chips as f64,
        a2a_bound_per_chip: 2.0 * cut / chips as f64,
        approximate,
    }
}

/// Largest system of each preset for given (m, n, R) (paper eq. 1 and Table 2), in chips, with
/// the node grid each needs. P and Q are capped at R/2 by the OCS port count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaxScale {
    pub preset: Preset,
    pub grid: [u32; 2],
    pub chips: u64,
}

pub fn max_scale(m: u32, n: u32, radix: u32) -> Result<Vec<MaxScale>> {
    crate::error::require_positive("m", m, "e.g. m = 4")?;
    crate::error::require_positive("n", n, "e.g. n = 2")?;
    if radix < 2 || !radix.is_multiple_of(2) {
        return Err(RailxError::invalid(
            "R",
            radix,
            "the OCS radix must be an even number >= 2",
            "e.g. R = 128",
        ));
    }
    let r = m as u64 * n as u64;
    let half = radix as u64 / 2;
    let per = m as u64 * m as u64;
    let hyperx = (r + 1).min(half);
    let group = (r + 1).min(half);
    let groups = group.saturating_mul(r).saturating_add(1).min(half);
    [
        (Preset::Torus, half, half),
        (Preset::Hyperx, hyperx, hyperx),
        (Preset::Dragonfly, groups, group),
    ]
    .into_iter()
    .map(|(preset, p, q)| {
        let chips = (p * q).checked_mul(per).ok_or_else(|| {
            RailxError::invalid(
                "m",
                m,
                format!(
                    "the largest {preset:?} of {p} x {q} nodes of m x m chips has more than 2^64 chips"
                ),
                "use m <= 65535",
            )
        })?;
        Ok(MaxScale {
            preset,
            grid: [p as u32, q as u32],
            chips,
        })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_scale_matches_paper_eq1_and_table2() {
        // RailX7Mesh: R=128, m=7, n=9: r+1 = 64 = R/2, so HyperX fills the grid: 200,704 chips.
        let scales = max_scale(7, 9, 128).unwrap();
        assert_eq!(scales[0].chips, 64 * 64 * 49);
        assert_eq!(scales[1].chips, 200_704);
        // Paper §3.2: R=128, m=5 gives N = 102,400 for the full grid.
        assert_eq!(max_scale(5, 2, 128).unwrap()[0].chips, 102_400);
        // Dragonfly: (r+1)(r^2+r+1)m^2 when the radix allows (r=4: 5 x 21 groups, Fig. 8).
        let df = &max_scale(2, 2, 64).unwrap()[2];
        assert_eq!(df.grid, [21, 5]);
        assert_eq!(df.chips, 5 * 21 * 4);
    }

    fn full_dragonfly(m: u32, n: u32) -> crate::spec::ConfigSpec {
        let r = m * n;
        let groups = r * (r + 1) + 1;
        let system = crate::spec::SystemSpec {
            m,
            n,
            R: 2 * groups,
            grid: Some([groups, r + 1]),
            port_bw_Bps: 50e9,
            intra_bw_Bps: 100e9,
            alpha_out_s: 300e-9,
            alpha_in_s: 10e-9,
        };
        crate::spec::ConfigSpec {
            system,
            topology: Some(crate::spec::TopologySpec {
                preset: Some(Preset::Dragonfly),
                ..Default::default()
            }),
            jobs: vec![],
        }
    }

    /// The Dragonfly diameter's closed form 2 local + 1 = 3 is an upper bound, exact at full size
    /// for r >= 3 (more nodes than two hops of out-degree 2r reach) but not at r = 2, where the
    /// 21 nodes meet that count and the full 7 x 3 Dragonfly has diameter 2.
    #[test]
    fn dragonfly_diameter_closed_form_is_exact_at_full_size_from_r3() {
        use crate::plan::{plan, realize};
        for (m, n, realized_diameter) in [(2, 1, 2), (2, 2, 3), (2, 3, 3)] {
            let r = (m * n) as u64;
            let nodes = (r + 1) * (r * r + r + 1);
            assert_eq!(nodes > 1 + 2 * r + 4 * r * r, realized_diameter == 3);
            let realized = realize(&full_dragonfly(m, n)).unwrap();
            let report = plan(&realized).unwrap();
            assert_eq!(report.nodes as u64, nodes, "r = {r}");
            assert_eq!(report.closed_form.diameter_inter_node, 3, "r = {r}");
            assert_eq!(
                report.diameter_inter_node,
                Some(realized_diameter),
                "r = {r}"
            );
        }
    }
}

//! The physical plant (RailX paper §3.2): chips in m x m meshes, nodes in a P x Q grid, r = m*n
//! rails per axis, and the X-/Y-OCS groups with their port numbering.
//!
//! Linear ids used throughout railx: node `(X, Y)` has id `Y*P + X`; chip `(X, Y, x, y)` has id
//! `node*m*m + y*m + x` (its local index inside the node is `y*m + x`).

use crate::error::{require_positive, RailxError, Result};
use crate::spec::SystemSpec;
use serde::{Deserialize, Serialize};

/// A physical axis of the node grid, and the OCS group serving it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Axis {
    X,
    Y,
}

impl Axis {
    pub const BOTH: [Axis; 2] = [Axis::X, Axis::Y];

    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "X",
            Axis::Y => "Y",
        }
    }

    pub fn lower(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
        }
    }
}

/// The two ports of a rail: `Minus` on the west (X) or south (Y) edge chip, `Plus` on the east or north.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    Minus,
    Plus,
}

/// Validated physical parameters. Bandwidths in bytes/second, latencies in seconds.
#[derive(Debug, Clone, PartialEq)]
#[allow(non_snake_case)]
pub struct Plant {
    pub m: u32,
    pub n: u32,
    pub radix: u32,
    pub p: u32,
    pub q: u32,
    pub port_bw_Bps: f64,
    pub intra_bw_Bps: f64,
    pub alpha_out_s: f64,
    pub alpha_in_s: f64,
}

fn positive_real(field: &str, value: f64, hint: &str) -> Result<()> {
    if !(value.is_finite() && value > 0.0) {
        return Err(RailxError::invalid(
            field,
            value,
            "must be a finite number > 0",
            hint,
        ));
    }
    Ok(())
}

impl Plant {
    /// Validates a system specification: positive sizes and bandwidths, even radix, grid within R/2 x R/2.
    pub fn from_spec(spec: &SystemSpec) -> Result<Plant> {
        require_positive("system.m", spec.m, "e.g. m = 4")?;
        require_positive("system.n", spec.n, "e.g. n = 2")?;
        if spec.R < 2 || !spec.R.is_multiple_of(2) {
            return Err(RailxError::invalid(
                "system.R",
                spec.R,
                "the OCS radix must be an even number >= 2 (ports pair into + and -)",
                "e.g. R = 128",
            ));
        }
        let half = spec.R / 2;
        let [p, q] = spec.grid.unwrap_or([half, half]);
        for (name, v) in [("system.grid[0] (P)", p), ("system.grid[1] (Q)", q)] {
            if v == 0 || v > half {
                return Err(RailxError::invalid(
                    name,
                    v,
                    format!("a grid extent must be between 1 and R/2 = {half} (an OCS has R/2 + and R/2 - ports)"),
                    format!("use grid = [{half}, {half}] or raise R"),
                ));
            }
        }
        positive_real(
            "system.port_bw_Bps",
            spec.port_bw_Bps,
            "e.g. port_bw_GBps = 50",
        )?;
        positive_real(
            "system.intra_bw_Bps",
            spec.intra_bw_Bps,
            "e.g. k = 2 or intra_bw_GBps = 100",
        )?;
        positive_real(
            "system.alpha_out_s",
            spec.alpha_out_s,
            "e.g. alpha_out_ns = 300",
        )?;
        positive_real(
            "system.alpha_in_s",
            spec.alpha_in_s,
            "e.g. alpha_in_ns = 10",
        )?;
        // A node's 4*m*n ports and the r*(P+Q) switches are numbered with 32 bits.
        let ports = 4 * spec.m as u64 * spec.n as u64;
        let switches = spec.m as u64 * spec.n as u64 * (p as u64 + q as u64);
        if ports > u32::MAX as u64 || switches > u32::MAX as u64 {
            return Err(RailxError::invalid(
                "system.n",
                spec.n,
                format!(
                    "a node's 4*m*n = {ports} ports and the m*n*(P+Q) = {switches} switches must each fit 32-bit ids"
                ),
                format!(
                    "use n <= {}",
                    (u32::MAX as u64 / (4 * spec.m as u64).max(spec.m as u64 * (p as u64 + q as u64))).max(1)
                ),
            ));
        }
        let chips = spec.m as u64 * spec.m as u64 * p as u64 * q as u64;
        if chips > u32::MAX as u64 / 2 {
            return Err(RailxError::invalid(
                "system",
                format!("{chips} chips"),
                "railx indexes chips with 32-bit ids",
                "use a smaller grid or mesh",
            ));
        }
        Ok(Plant {
            m: spec.m,
            n: spec.n,
            radix: spec.R,
            p,
            q,
            port_bw_Bps: spec.port_bw_Bps,
            intra_bw_Bps: spec.intra_bw_Bps,
            alpha_out_s: spec.alpha_out_s,
            alpha_in_s: spec.alpha_in_s,
        })
    }

    /// Rails per physical axis, r = m*n.
    pub fn r(&self) -> u32 {
        self.m * self.n
    }

    pub fn nodes(&self) -> u32 {
        self.p * self.q
    }

    pub fn chips_per_node(&self) -> u32 {
        self.m * self.m
    }

    pub fn chips(&self) -> u32 {
        self.nodes() * self.chips_per_node()
    }

    /// Optical switches installed for this grid: r X-OCS per node row and r Y-OCS per node column.
    pub fn switches(&self) -> u32 {
        self.r() * (self.p + self.q)
    }

    /// Grid extent along an axis (P for X, Q for Y).
    pub fn extent(&self, axis: Axis) -> u32 {
        match axis {
            Axis::X => self.p,
            Axis::Y => self.q,
        }
    }

    /// Number of lines (OCS groups) along an axis: node rows for X, node columns for Y.
    pub fn lines(&self, axis: Axis) -> u32 {
        match axis {
            Axis::X => self.q,
            Axis::Y => self.p,
        }
    }

    pub fn node_id(&self, x_node: u32, y_node: u32) -> u32 {
        y_node * self.p + x_node
    }

    pub fn node_coords(&self, node: u32) -> (u32, u32) {
        (node % self.p, node / self.p)
    }

    /// The node at position `pos` along `axis` on line `line` (a node row for X, a column for Y).
    pub fn node_on_line(&self, axis: Axis, line: u32, pos: u32) -> u32 {
        match axis {
            Axis::X => self.node_id(pos, line),
            Axis::Y => self.node_id(line, pos),
        }
    }

    pub fn chip_id(&self, node: u32, x: u32, y: u32) -> u32 {
        node * self.chips_per_node() + y * self.m + x
    }

    /// `(X, Y, x, y)` of a chip id.
    pub fn chip_coords(&self, chip: u32) -> (u32, u32, u32, u32) {
        let per = self.chips_per_node();
        let (xn, yn) = self.node_coords(chip / per);
        let local = chip % per;
        (xn, yn, local % self.m, local / self.m)
    }

    /// The chip `(x, y)` inside a node that carries `side` of rail `rail` on `axis`.
    /// X-rail a: row y = a div n, west chip (0, y) for -, east chip (m-1, y) for +.
    /// Y-rail b: column x = b div n, south chip (x, 0) for -, north chip (x, m-1) for +.
    pub fn rail_chip(&self, axis: Axis, rail: u32, side: Side) -> (u32, u32) {
        let lane = rail / self.n;
        let edge = match side {
            Side::Minus => 0,
            Side::Plus => self.m - 1,
        };
        match axis {
            Axis::X => (edge, lane),
            Axis::Y => (lane, edge),
        }
    }

    /// OCS port of a node's rail side: port 2*pos is the - port, 2*pos+1 the + port.
    pub fn port(pos: u32, side: Side) -> u32 {
        match side {
            Side::Minus => 2 * pos,
            Side::Plus => 2 * pos + 1,
        }
    }

    /// Inverse of [`Plant::port`]: the node position along the axis and the side.
    pub fn port_owner(port: u32) -> (u32, Side) {
        let side = if port.is_multiple_of(2) {
            Side::Minus
        } else {
            Side::Plus
        };
        (port / 2, side)
    }

    /// Switch id as in the `railx.ocs/v1` format: "X/<line>/<rail>".
    pub fn switch_id(axis: Axis, line: u32, rail: u32) -> String {
        format!("{}/{}/{}", axis.name(), line, rail)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A plant of the given size with the unit tests' port figures.
    pub(crate) fn spec(m: u32, n: u32, radix: u32, grid: Option<[u32; 2]>) -> SystemSpec {
        SystemSpec {
            m,
            n,
            R: radix,
            grid,
            port_bw_Bps: 50e9,
            intra_bw_Bps: 100e9,
            alpha_out_s: 300e-9,
            alpha_in_s: 10e-9,
        }
    }

    #[test]
    fn railx7mesh_counts_match_paper_eq1() {
        let plant = Plant::from_spec(&spec(7, 9, 128, None)).unwrap();
        assert_eq!(plant.chips(), 200_704);
        assert_eq!(plant.switches(), 8_064);
        assert_eq!(plant.r(), 63);
    }

    #[test]
    fn rail_chips_follow_design_section_2() {
        let plant = Plant::from_spec(&spec(4, 2, 16, Some([3, 3]))).unwrap();
        // X-rail 5: row 2, west chip for -, east chip for +.
        assert_eq!(plant.rail_chip(Axis::X, 5, Side::Minus), (0, 2));
        assert_eq!(plant.rail_chip(Axis::X, 5, Side::Plus), (3, 2));
        // Y-rail 3: column 1, south chip for -, north chip for +.
        assert_eq!(plant.rail_chip(Axis::Y, 3, Side::Minus), (1, 0));
        assert_eq!(plant.rail_chip(Axis::Y, 3, Side::Plus), (1, 3));
        assert_eq!(Plant::port(4, Side::Plus), 9);
        assert_eq!(Plant::port_owner(9), (4, Side::Plus));
        let chip = plant.chip_id(plant.node_id(2, 1), 3, 0);
        assert_eq!(plant.chip_coords(chip), (2, 1, 3, 0));
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let err = Plant::from_spec(&spec(4, 2, 16, Some([9, 3])))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("system.grid[0] (P) = 9: "), "{err}");
        assert!(err.contains("R/2 = 8"), "{err}");
        let err = Plant::from_spec(&spec(4, 2, 15, None))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("system.R = 15"), "{err}");
        let mut s = spec(4, 2, 16, None);
        s.port_bw_Bps = -1.0;
        let err = Plant::from_spec(&s).unwrap_err().to_string();
        assert!(err.starts_with("system.port_bw_Bps = -1"), "{err}");
        let err = Plant::from_spec(&spec(0, 2, 16, None))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("system.m = 0"), "{err}");
    }
}

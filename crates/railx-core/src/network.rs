//! The network every builder produces: a directed multigraph of chips (ids `0..chips`) followed
//! by packet switches (ids `chips..chips+switches`), every link with its class, bandwidth and
//! latency, and its exports. A RailX network is realized from an OCS configuration (never from
//! the intent) and keeps its plant; a peer topology (crate::peers) has no plant.

use crate::error::{RailxError, Result};
use crate::ocs::{check_ports, OcsConfig, OcsSystem};
use crate::plant::{Axis, Plant, Side};
use serde::Serialize;
use std::io::Write;

/// What a link is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[repr(u8)]
pub enum LinkClass {
    /// A mesh link between adjacent chips of one node.
    IntraNode = 0,
    /// One direction of an optical chip-to-chip link: a RailX circuit, or a torus link between
    /// cubes (through an OCS or not).
    InterNodeOptical = 1,
    /// A passive copper cable between chips on different boards (inside a torus cube).
    Copper = 2,
    /// A link with a packet switch at one end or both (optical, a transceiver per end).
    Switch = 3,
}

impl LinkClass {
    pub fn name(self) -> &'static str {
        match self {
            LinkClass::IntraNode => "intra-node",
            LinkClass::InterNodeOptical => "inter-node-optical",
            LinkClass::Copper => "copper",
            LinkClass::Switch => "switch",
        }
    }
}

/// Bytes one directed link takes in a [`Network`] (its seven columns).
pub const LINK_BYTES: f64 = 30.0;

/// Directed links in struct-of-arrays form (so they cross to Python as NumPy arrays).
/// Optical links also record the axis and rail of the circuit they belong to.
#[derive(Debug, Clone, PartialEq)]
#[allow(non_snake_case)]
pub struct Network {
    /// The RailX plant this network was realized on; `None` for a peer topology.
    pub plant: Option<Plant>,
    /// Chips are vertices `0..chip_count`.
    pub chip_count: u32,
    /// Radix of each packet switch; switch `i` is vertex `chip_count + i`.
    pub switch_radix: Vec<u32>,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub class: Vec<LinkClass>,
    pub bandwidth_Bps: Vec<f64>,
    pub latency_s: Vec<f64>,
    /// Rail of an optical link (for a peer: the plane or rail of a switch link); for a RailX
    /// mesh link, its lane `0..n` (the n parallel links joining two adjacent chips, one per
    /// port lane of the chip edge); `u32::MAX` for a peer's mesh, board and copper links.
    pub rail: Vec<u32>,
    /// Axis of an optical link (X or Y); for mesh links the direction of the hop along the mesh;
    /// for a peer the grid axis a link runs along (X where a family has none).
    pub axis: Vec<Axis>,
}

/// Directed mesh links of a RailX plant: per node, 2 m (m-1) adjacent chip pairs, n lanes each
/// way (saturating, so an absurd plant is refused by the resource estimate, not wrapped).
pub fn mesh_links(plant: &Plant) -> u64 {
    let m = plant.m as u64;
    (plant.nodes() as u64)
        .saturating_mul(4 * m * m.saturating_sub(1))
        .saturating_mul(plant.n as u64)
}

impl Network {
    /// An empty network of `chips` chips and no switches, with room for `links` links.
    pub fn with_capacity(plant: Option<Plant>, chips: u32, links: usize) -> Network {
        Network {
            plant,
            chip_count: chips,
            switch_radix: Vec::new(),
            src: Vec::with_capacity(links),
            dst: Vec::with_capacity(links),
            class: Vec::with_capacity(links),
            bandwidth_Bps: Vec::with_capacity(links),
            latency_s: Vec::with_capacity(links),
            rail: Vec::with_capacity(links),
            axis: Vec::with_capacity(links),
        }
    }

    /// Adds a packet switch of `radix` ports and returns its vertex id.
    pub fn add_switch(&mut self, radix: u32) -> u32 {
        self.switch_radix.push(radix);
        self.chip_count + self.switch_radix.len() as u32 - 1
    }

    /// Vertices: chips followed by switches.
    pub fn vertices(&self) -> u32 {
        self.chip_count + self.switch_radix.len() as u32
    }

    /// Adds one directed link.
    #[allow(clippy::too_many_arguments, non_snake_case)]
    pub fn push_link(
        &mut self,
        src: u32,
        dst: u32,
        class: LinkClass,
        bandwidth_Bps: f64,
        latency_s: f64,
        axis: Axis,
        rail: u32,
    ) {
        self.src.push(src);
        self.dst.push(dst);
        self.class.push(class);
        self.bandwidth_Bps.push(bandwidth_Bps);
        self.latency_s.push(latency_s);
        self.rail.push(rail);
        self.axis.push(axis);
    }

    fn push(&mut self, plant: &Plant, src: u32, dst: u32, class: LinkClass, axis: Axis, rail: u32) {
        let (bw, latency) = match class {
            LinkClass::IntraNode => (plant.intra_bw_Bps, plant.alpha_in_s),
            _ => (plant.port_bw_Bps, plant.alpha_out_s),
        };
        self.push_link(src, dst, class, bw, latency, axis, rail);
    }

    /// One node's mesh: between every two adjacent chips, n lanes in each direction (RailX
    /// paper: a chip edge carries k*n*port_bw inside the mesh, k times its n external ports), each
    /// a link of `intra_bw` (= k * port_bw) and `alpha_in` whose `rail` is its lane `0..n`.
    fn mesh_lanes(&mut self, plant: &Plant, node: u32) {
        let m = plant.m;
        for y in 0..m {
            for x in 0..m {
                let here = plant.chip_id(node, x, y);
                let east = (x + 1 < m).then(|| (plant.chip_id(node, x + 1, y), Axis::X));
                let north = (y + 1 < m).then(|| (plant.chip_id(node, x, y + 1), Axis::Y));
                for (there, axis) in [east, north].into_iter().flatten() {
                    for lane in 0..plant.n {
                        self.push(plant, here, there, LinkClass::IntraNode, axis, lane);
                        self.push(plant, there, here, LinkClass::IntraNode, axis, lane);
                    }
                }
            }
        }
    }

    /// The RailX plant, for analyses that need one; a peer topology gets a one-line error.
    pub fn railx_plant(&self) -> Result<&Plant> {
        self.plant.as_ref().ok_or_else(|| {
            RailxError::invalid(
                "network",
                "a peer topology",
                "this analysis needs a RailX network (a plant with nodes and rails)",
                "realize a RailX configuration, or use an analysis that takes any network",
            )
        })
    }

    /// Directed links of a RailX network on `plant` with `circuits` circuits: every node's mesh
    /// (`mesh_links`, n lanes per direction) plus two per circuit. The resource estimate of a RailX
    /// build counts links with it.
    pub fn railx_link_count(plant: &Plant, circuits: u64) -> u64 {
        mesh_links(plant).saturating_add(circuits.saturating_mul(2))
    }

    /// Realizes the chip graph from the circuits alone: every node's full mesh, with n parallel
    /// lanes per direction between adjacent chips (`mesh_lanes`), plus two directed optical links
    /// per circuit, from the + port's chip to the - port's chip and back.
    pub fn from_ocs(plant: &Plant, config: &OcsConfig) -> Result<Network> {
        if config.system != OcsSystem::of(plant) {
            return Err(RailxError::verification(
                "system",
                format!(
                    "the OCS file is for {:?} but the plant is {:?}",
                    config.system,
                    OcsSystem::of(plant)
                ),
            ));
        }
        let arcs = check_ports(config)?;
        let mut net = Network::with_capacity(
            Some(plant.clone()),
            plant.chips(),
            Network::railx_link_count(plant, arcs.len() as u64) as usize,
        );
        for node in 0..plant.nodes() {
            net.mesh_lanes(plant, node);
        }
        for arc in &arcs {
            let (px, py) = plant.rail_chip(arc.axis, arc.rail, Side::Plus);
            let (mx, my) = plant.rail_chip(arc.axis, arc.rail, Side::Minus);
            let a = plant.chip_id(plant.node_on_line(arc.axis, arc.line, arc.plus), px, py);
            let b = plant.chip_id(plant.node_on_line(arc.axis, arc.line, arc.minus), mx, my);
            net.push(plant, a, b, LinkClass::InterNodeOptical, arc.axis, arc.rail);
            net.push(plant, b, a, LinkClass::InterNodeOptical, arc.axis, arc.rail);
        }
        Ok(net)
    }

    pub fn chips(&self) -> u32 {
        self.chip_count
    }

    /// The lane of a RailX mesh link (`0..n`); `None` for any other link.
    pub fn lane(&self, link: usize) -> Option<u32> {
        (self.class[link] == LinkClass::IntraNode && self.rail[link] != u32::MAX)
            .then_some(self.rail[link])
    }

    pub fn links(&self) -> usize {
        self.src.len()
    }

    /// JSON edge list (`railx.network/v1`): chips (with their coordinates on a RailX plant),
    /// switches (peers only: id and radix), then directed links (an optical or switch link with
    /// its axis and rail, a RailX mesh link with its lane).
    pub fn write_json(&self, out: &mut impl Write) -> std::io::Result<()> {
        let system = match &self.plant {
            Some(p) => serde_json::to_string(&OcsSystem::of(p)).unwrap_or_default(),
            None => "null".to_string(),
        };
        write!(
            out,
            "{{\"format\":\"railx.network/v1\",\"system\":{system},\"chips\":["
        )?;
        for chip in 0..self.chips() {
            let sep = if chip == 0 { "" } else { "," };
            match &self.plant {
                Some(p) => {
                    let (xn, yn, x, y) = p.chip_coords(chip);
                    write!(
                        out,
                        "{sep}{{\"id\":{chip},\"X\":{xn},\"Y\":{yn},\"x\":{x},\"y\":{y}}}"
                    )?;
                }
                None => write!(out, "{sep}{{\"id\":{chip}}}")?,
            }
        }
        if self.plant.is_none() {
            write!(out, "],\"switches\":[")?;
            for (i, radix) in self.switch_radix.iter().enumerate() {
                let sep = if i == 0 { "" } else { "," };
                let id = self.chip_count as usize + i;
                write!(out, "{sep}{{\"id\":{id},\"radix\":{radix}}}")?;
            }
        }
        write!(out, "],\"links\":[")?;
        for i in 0..self.links() {
            let sep = if i == 0 { "" } else { "," };
            write!(
                out,
                "{sep}{{\"src\":{},\"dst\":{},\"class\":\"{}\",\"bandwidth_Bps\":{},\"latency_s\":{:e}",
                self.src[i],
                self.dst[i],
                self.class[i].name(),
                self.bandwidth_Bps[i],
                self.latency_s[i]
            )?;
            if self.class[i] == LinkClass::InterNodeOptical || self.class[i] == LinkClass::Switch {
                write!(
                    out,
                    ",\"axis\":\"{}\",\"rail\":{}",
                    self.axis[i].name(),
                    self.rail[i]
                )?;
            } else if let Some(lane) = self.lane(i) {
                write!(out, ",\"lane\":{lane}")?;
            }
            write!(out, "}}")?;
        }
        writeln!(out, "]}}")
    }

    /// GraphML of the directed multigraph; networkx's `read_graphml` reads it (pass
    /// `force_multigraph=True` to keep a MultiDiGraph when no two links are parallel).
    pub fn write_graphml(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            out,
            r#"<graphml xmlns="http://graphml.graphdrawing.org/xmlns">"#
        )?;
        for (id, domain, name, ty) in [
            ("d0", "node", "X", "int"),
            ("d1", "node", "Y", "int"),
            ("d2", "node", "x", "int"),
            ("d3", "node", "y", "int"),
            ("d4", "edge", "class", "string"),
            ("d5", "edge", "bandwidth_Bps", "double"),
            ("d6", "edge", "latency_s", "double"),
            ("d7", "edge", "rail", "int"),
            ("d8", "node", "radix", "int"),
            ("d9", "edge", "lane", "int"),
        ] {
            writeln!(
                out,
                r#"<key id="{id}" for="{domain}" attr.name="{name}" attr.type="{ty}"/>"#
            )?;
        }
        writeln!(out, r#"<graph id="railx" edgedefault="directed">"#)?;
        for chip in 0..self.chips() {
            match &self.plant {
                Some(p) => {
                    let (xn, yn, x, y) = p.chip_coords(chip);
                    writeln!(
                        out,
                        r#"<node id="{chip}"><data key="d0">{xn}</data><data key="d1">{yn}</data><data key="d2">{x}</data><data key="d3">{y}</data></node>"#
                    )?;
                }
                None => writeln!(out, r#"<node id="{chip}"/>"#)?,
            }
        }
        for (i, radix) in self.switch_radix.iter().enumerate() {
            let id = self.chip_count as usize + i;
            writeln!(
                out,
                r#"<node id="{id}"><data key="d8">{radix}</data></node>"#
            )?;
        }
        for i in 0..self.links() {
            write!(
                out,
                r#"<edge source="{}" target="{}"><data key="d4">{}</data><data key="d5">{}</data><data key="d6">{:e}</data>"#,
                self.src[i],
                self.dst[i],
                self.class[i].name(),
                self.bandwidth_Bps[i],
                self.latency_s[i]
            )?;
            if self.class[i] == LinkClass::InterNodeOptical || self.class[i] == LinkClass::Switch {
                write!(out, r#"<data key="d7">{}</data>"#, self.rail[i])?;
            } else if let Some(lane) = self.lane(i) {
                write!(out, r#"<data key="d9">{lane}</data>"#)?;
            }
            writeln!(out, "</edge>")?;
        }
        writeln!(out, "</graph>\n</graphml>")
    }
}

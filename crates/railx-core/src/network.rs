//! The realized network: the chip-level directed multigraph derived from an OCS configuration
//! (never from the intent), with every link's class, bandwidth and latency, and its exports.

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
    /// One direction of an optical circuit between two nodes.
    InterNodeOptical = 1,
}

impl LinkClass {
    pub fn name(self) -> &'static str {
        match self {
            LinkClass::IntraNode => "intra-node",
            LinkClass::InterNodeOptical => "inter-node-optical",
        }
    }
}

/// Directed links in struct-of-arrays form (so they cross to Python as NumPy arrays).
/// Optical links also record the axis and rail of the circuit they belong to.
#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    pub plant: Plant,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub class: Vec<LinkClass>,
    pub bandwidth_bps: Vec<f64>,
    pub latency_s: Vec<f64>,
    /// Rail of an optical link; `u32::MAX` for mesh links.
    pub rail: Vec<u32>,
    /// Axis of an optical link (X or Y); for mesh links the direction of the hop along the mesh.
    pub axis: Vec<Axis>,
}

impl Network {
    fn with_capacity(plant: &Plant, links: usize) -> Network {
        Network {
            plant: plant.clone(),
            src: Vec::with_capacity(links),
            dst: Vec::with_capacity(links),
            class: Vec::with_capacity(links),
            bandwidth_bps: Vec::with_capacity(links),
            latency_s: Vec::with_capacity(links),
            rail: Vec::with_capacity(links),
            axis: Vec::with_capacity(links),
        }
    }

    fn push(&mut self, src: u32, dst: u32, class: LinkClass, axis: Axis, rail: u32) {
        let (bw, latency) = match class {
            LinkClass::IntraNode => (self.plant.intra_bw_bps, self.plant.alpha_in_s),
            LinkClass::InterNodeOptical => (self.plant.port_bw_bps, self.plant.alpha_out_s),
        };
        self.src.push(src);
        self.dst.push(dst);
        self.class.push(class);
        self.bandwidth_bps.push(bw);
        self.latency_s.push(latency);
        self.rail.push(rail);
        self.axis.push(axis);
    }

    /// Realizes the chip graph from the circuits alone: every node's full mesh, plus two directed
    /// optical links per circuit, from the + port's chip to the - port's chip and back.
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
        let m = plant.m;
        let mesh_links = plant.nodes() as usize * 4 * (m as usize) * (m as usize).saturating_sub(1);
        let mut net = Network::with_capacity(plant, mesh_links + 2 * arcs.len());
        for node in 0..plant.nodes() {
            for y in 0..m {
                for x in 0..m {
                    let here = plant.chip_id(node, x, y);
                    if x + 1 < m {
                        let east = plant.chip_id(node, x + 1, y);
                        net.push(here, east, LinkClass::IntraNode, Axis::X, u32::MAX);
                        net.push(east, here, LinkClass::IntraNode, Axis::X, u32::MAX);
                    }
                    if y + 1 < m {
                        let north = plant.chip_id(node, x, y + 1);
                        net.push(here, north, LinkClass::IntraNode, Axis::Y, u32::MAX);
                        net.push(north, here, LinkClass::IntraNode, Axis::Y, u32::MAX);
                    }
                }
            }
        }
        for arc in &arcs {
            let (px, py) = plant.rail_chip(arc.axis, arc.rail, Side::Plus);
            let (mx, my) = plant.rail_chip(arc.axis, arc.rail, Side::Minus);
            let a = plant.chip_id(plant.node_on_line(arc.axis, arc.line, arc.plus), px, py);
            let b = plant.chip_id(plant.node_on_line(arc.axis, arc.line, arc.minus), mx, my);
            net.push(a, b, LinkClass::InterNodeOptical, arc.axis, arc.rail);
            net.push(b, a, LinkClass::InterNodeOptical, arc.axis, arc.rail);
        }
        Ok(net)
    }

    pub fn chips(&self) -> u32 {
        self.plant.chips()
    }

    pub fn links(&self) -> usize {
        self.src.len()
    }

    /// JSON edge list (`railx.network/v1`): chips with their coordinates, then directed links.
    pub fn write_json(&self, out: &mut impl Write) -> std::io::Result<()> {
        let p = &self.plant;
        write!(
            out,
            "{{\"format\":\"railx.network/v1\",\"system\":{},\"chips\":[",
            serde_json::to_string(&OcsSystem::of(p)).unwrap_or_default()
        )?;
        for chip in 0..self.chips() {
            let (xn, yn, x, y) = p.chip_coords(chip);
            let sep = if chip == 0 { "" } else { "," };
            write!(
                out,
                "{sep}{{\"id\":{chip},\"X\":{xn},\"Y\":{yn},\"x\":{x},\"y\":{y}}}"
            )?;
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
                self.bandwidth_bps[i],
                self.latency_s[i]
            )?;
            if self.class[i] == LinkClass::InterNodeOptical {
                write!(
                    out,
                    ",\"axis\":\"{}\",\"rail\":{}",
                    self.axis[i].name(),
                    self.rail[i]
                )?;
            }
            write!(out, "}}")?;
        }
        writeln!(out, "]}}")
    }

    /// GraphML of the directed multigraph; networkx's `read_graphml` reads it (pass
    /// `force_multigraph=True` to keep a MultiDiGraph when no two links are parallel).
    pub fn write_graphml(&self, out: &mut impl Write) -> std::io::Result<()> {
        let p = &self.plant;
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
        ] {
            writeln!(
                out,
                r#"<key id="{id}" for="{domain}" attr.name="{name}" attr.type="{ty}"/>"#
            )?;
        }
        writeln!(out, r#"<graph id="railx" edgedefault="directed">"#)?;
        for chip in 0..self.chips() {
            let (xn, yn, x, y) = p.chip_coords(chip);
            writeln!(
                out,
                r#"<node id="{chip}"><data key="d0">{xn}</data><data key="d1">{yn}</data><data key="d2">{x}</data><data key="d3">{y}</data></node>"#
            )?;
        }
        for i in 0..self.links() {
            write!(
                out,
                r#"<edge source="{}" target="{}"><data key="d4">{}</data><data key="d5">{}</data><data key="d6">{:e}</data>"#,
                self.src[i],
                self.dst[i],
                self.class[i].name(),
                self.bandwidth_bps[i],
                self.latency_s[i]
            )?;
            if self.class[i] == LinkClass::InterNodeOptical {
                write!(out, r#"<data key="d7">{}</data>"#, self.rail[i])?;
            }
            writeln!(out, "</edge>")?;
        }
        writeln!(out, "</graph>\n</graphml>")
    }
}

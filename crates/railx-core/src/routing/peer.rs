//! The routing functions of each peer family, chosen by name, over the network the peer's spec
//! builds. The simulators and the command line get a peer's routing here.

use super::analysis::route;
use super::dragonfly::DragonflyRouting;
use super::hammingmesh::HammingMeshRouting;
use super::hyperx::HyperxRouting;
use super::rail_only::RailOnlyRouting;
use super::shortest_path::ShortestPathRouting;
use super::sipac::SipacRouting;
use super::torus::{TorusRouting, TorusVcs};
use super::updown::UpDownRouting;
use super::Routing;
use crate::error::{RailxError, Result};
use crate::metrics::Hops;
use crate::network::Network;
use crate::peers::PeerSpec;
use serde::Serialize;

/// The routing function names each family offers, the first being its default.
pub fn names(spec: &PeerSpec) -> &'static [&'static str] {
    match spec {
        PeerSpec::Torus3d(_) => &["dateline", "minimal", "dateline-partition"],
        PeerSpec::FatTree(_) => &["updown"],
        PeerSpec::Hyperx(_) | PeerSpec::Dragonfly(_) => &["minimal", "valiant"],
        PeerSpec::RailOnly(_) | PeerSpec::RailOptimised(_) => &["minimal"],
        PeerSpec::Hammingmesh(_) => &["dimension-order"],
        PeerSpec::Sipac(_) => &["digit-order"],
        PeerSpec::Graph(_) => &["shortest-path"],
    }
}

/// The routing function `name` (`None`: the family's default) of a peer over `net`, the network
/// built from `spec`.
pub fn for_peer(spec: &PeerSpec, net: &Network, name: Option<&str>) -> Result<Box<dyn Routing>> {
    let offered = names(spec);
    let family = spec.family();
    let name = name.unwrap_or(offered[0]);
    if !offered.contains(&name) {
        return Err(RailxError::invalid(
            "routing",
            name,
            format!("does not apply to a {family} peer"),
            format!("use one of {}", offered.join(", ")),
        ));
    }
    Ok(match spec {
        PeerSpec::Torus3d(s) => {
            let scheme = TorusVcs::of(name).expect("every torus routing name has a scheme");
            Box::new(TorusRouting::new(net, &s.dims, scheme)?)
        }
        PeerSpec::FatTree(_) => Box::new(UpDownRouting::new(net)?),
        PeerSpec::Hyperx(s) if name == "valiant" => {
            Box::new(HyperxRouting::valiant(net, &s.dims, s.terminals)?)
        }
        PeerSpec::Hyperx(s) => Box::new(HyperxRouting::new(net, &s.dims, s.terminals)?),
        PeerSpec::Dragonfly(s) => Box::new(DragonflyRouting::new(
            net,
            s.groups,
            s.routers,
            s.terminals,
            name == "valiant",
        )?),
        PeerSpec::RailOnly(s) => {
            let sizes: Vec<u32> = s.dims.iter().map(|d| d.size).collect();
            Box::new(RailOnlyRouting::new(net, &s.hb(), &sizes)?)
        }
        PeerSpec::RailOptimised(s) => {
            Box::new(RailOnlyRouting::rail_optimised(net, &s.hb(), s.domains)?)
        }
        PeerSpec::Hammingmesh(s) => Box::new(HammingMeshRouting::new(net, s.a, s.boards)?),
        PeerSpec::Sipac(s) => Box::new(SipacRouting::new(net, s)?),
        PeerSpec::Graph(_) => Box::new(ShortestPathRouting::new(net)?),
    })
}

/// One hop of a peer's route: vertices are chips (`0..chips`) or switches (from `chips` on).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeerHop {
    pub link: u32,
    pub from: u32,
    pub to: u32,
    /// Off the board or HB domain (a switch or cable hop, Ho) rather than on it (Hi).
    pub external: bool,
    pub vc: u8,
}

/// A peer's route from `src` to `dst`, taking the first allowed hop each time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeerRoute {
    pub routing: String,
    pub src: u32,
    pub dst: u32,
    pub hops: Hops,
    pub path: Vec<PeerHop>,
}

/// The route between two chips, both checked to be chips of the routing's network.
pub fn describe_route(routing: &dyn Routing, src: u32, dst: u32) -> Result<PeerRoute> {
    let chips = routing.chips().len() as u32;
    for chip in [src, dst] {
        if chip >= chips {
            return Err(RailxError::invalid(
                "chip",
                chip,
                "is not a chip of this network",
                format!("use a chip id from 0 to {}", chips.saturating_sub(1)),
            ));
        }
    }
    let path: Vec<PeerHop> = route(routing, src, dst)?
        .iter()
        .map(|h| PeerHop {
            link: h.link,
            from: routing.link_source(h.link),
            to: routing.link_target(h.link),
            external: routing.is_external(h.link),
            vc: h.vc,
        })
        .collect();
    let ho = path.iter().filter(|h| h.external).count() as u32;
    Ok(PeerRoute {
        routing: routing.name().to_string(),
        src,
        dst,
        hops: Hops {
            Ho: ho,
            Hi: path.len() as u32 - ho,
        },
        path,
    })
}

//! The routing functions of each peer family, chosen by name, over the network the peer's spec
//! builds. The simulators and the command line get a peer's routing here.

use super::hyperx::HyperxRouting;
use super::torus::TorusRouting;
use super::updown::UpDownRouting;
use super::Routing;
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::peers::PeerSpec;

/// The routing function names each family offers, the first being its default.
pub fn names(spec: &PeerSpec) -> &'static [&'static str] {
    match spec {
        PeerSpec::Torus3d(_) => &["dateline", "minimal"],
        PeerSpec::FatTree(_) => &["updown"],
        PeerSpec::Hyperx(_) => &["minimal"],
        PeerSpec::RailOnly(_) | PeerSpec::Hammingmesh(_) | PeerSpec::Dragonfly(_) => &[],
    }
}

/// The routing function `name` (`None`: the family's default) of a peer over `net`, the network
/// built from `spec`.
pub fn for_peer(spec: &PeerSpec, net: &Network, name: Option<&str>) -> Result<Box<dyn Routing>> {
    let offered = names(spec);
    let family = spec.family();
    let Some(&default) = offered.first() else {
        return Err(RailxError::invalid(
            "routing",
            family,
            "railx has no routing function for this peer family yet",
            "route torus3d, fat-tree or hyperx peers, or a RailX configuration",
        ));
    };
    let name = name.unwrap_or(default);
    if !offered.contains(&name) {
        return Err(RailxError::invalid(
            "routing",
            name,
            format!("does not apply to a {family} peer"),
            format!("use one of {}", offered.join(", ")),
        ));
    }
    Ok(match spec {
        PeerSpec::Torus3d(s) => Box::new(TorusRouting::new(net, &s.dims, name == "dateline")?),
        PeerSpec::FatTree(_) => Box::new(UpDownRouting::new(net)?),
        PeerSpec::Hyperx(s) => Box::new(HyperxRouting::new(net, &s.dims, s.terminals)?),
        PeerSpec::RailOnly(_) | PeerSpec::Hammingmesh(_) | PeerSpec::Dragonfly(_) => {
            unreachable!("families without routing functions were refused above")
        }
    })
}

//! One handle for every analysis: a [`System`] is a RailX configuration realized from its OCS
//! circuits, or a peer built directly, with its chip-level [`Network`], its collective process
//! group (every chip, shaped by the family's dimensions and high-bandwidth domains) and one
//! routing registry: [`System::routing`] resolves a routing function's name from the family's
//! single name table ([`System::routing_names`], the default first).
//!
//! Route analysis, the deadlock check, link loads, the flit- and flow-level simulators and the
//! collective schedules all take a `System`; none builds a topology its own way.

use crate::bom::BillOfMaterials;
use crate::collectives::Group;
use crate::error::{RailxError, Result};
use crate::network::Network;
use crate::peers::PeerSpec;
use crate::plan::{circuit_count, largest_all_to_all, realize, realize_estimate, Realized};
use crate::resources::Estimate;
use crate::routing::peer::{describe_route, for_peer, names as peer_routing_names};
use crate::routing::railx::{RailxRouting, Scheme};
use crate::routing::Routing;
use crate::sim::flow::{Symmetry, Translations};
use crate::spec::ConfigSpec;
use crate::topology::resolve;

/// The routing names a RailX system offers, its default first.
pub const RAILX_ROUTINGS: &[&str] = &["minimal", "dateline", "adaptive", "balanced", "phased"];

/// What a system is built from: a RailX configuration, or a peer spec tagged by `family`.
#[derive(Debug, Clone, PartialEq)]
pub enum SystemSpec {
    Railx(ConfigSpec),
    Peer(PeerSpec),
}

impl SystemSpec {
    /// Parses a system as JSON: `{"peer": {"family": ...}}` (a peer file's `[peer]` table) or a
    /// RailX configuration (`system`, `topology`, `jobs`).
    pub fn from_json(text: &str) -> Result<SystemSpec> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| RailxError::parse("system", e))?;
        match value.get("peer") {
            Some(peer) => {
                if let Some(other) = value
                    .as_object()
                    .and_then(|o| o.keys().find(|k| *k != "peer"))
                {
                    return Err(RailxError::invalid(
                        other.as_str(),
                        "present",
                        "a peer system holds only its [peer] table",
                        "move the key into [peer], or drop it",
                    ));
                }
                serde_json::from_value(peer.clone())
                    .map(SystemSpec::Peer)
                    .map_err(|e| RailxError::parse("peer topology", e))
            }
            None => serde_json::from_value(value)
                .map(SystemSpec::Railx)
                .map_err(|e| RailxError::parse("configuration", e)),
        }
    }
}

/// What building `spec` takes (the estimate [`System::build`] checks against the budget),
/// without building it: a RailX configuration is resolved, a peer's links counted.
pub fn build_estimate(spec: &SystemSpec) -> Result<Estimate> {
    match spec {
        SystemSpec::Railx(config) => {
            let system = resolve(config)?;
            let circuits = circuit_count(&system) as f64;
            Ok(realize_estimate(
                &system.plant,
                circuits,
                largest_all_to_all(&system),
            ))
        }
        SystemSpec::Peer(peer) => Ok(PeerSpec::network_estimate(peer.graph_links()?)),
    }
}

/// How a routing function is asked for, beyond its name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoutingOptions {
    /// Free (non-minimal) hops of RailX's `adaptive` routing (default 1).
    pub misroutes: Option<u8>,
    /// A RailX job to route within (`None`: the whole system).
    pub job: Option<String>,
}

/// A built system, ready for any analysis.
pub enum System {
    Railx(Realized),
    Peer { spec: PeerSpec, network: Network },
}

impl System {
    /// Validates and builds: a RailX configuration is synthesised and realized from its circuits;
    /// a peer's graph is built (refused beyond the resource budget, `crate::resources`).
    pub fn build(spec: &SystemSpec) -> Result<System> {
        Ok(match spec {
            SystemSpec::Railx(config) => System::Railx(realize(config)?),
            SystemSpec::Peer(peer) => System::Peer {
                network: peer.network()?,
                spec: peer.clone(),
            },
        })
    }

    /// `railx`, or the peer's family as its `family` key spells it.
    pub fn family(&self) -> &'static str {
        match self {
            System::Railx(_) => "railx",
            System::Peer { spec, .. } => spec.family(),
        }
    }

    pub fn network(&self) -> &Network {
        match self {
            System::Railx(r) => &r.network,
            System::Peer { network, .. } => network,
        }
    }

    pub fn chips(&self) -> u32 {
        self.network().chips()
    }

    /// The system's symmetry group: a RailX system's node translations, a peer family's declared
    /// symmetries ([`crate::peers::PeerBuilder::symmetry`]); `None` when it declares none.
    pub fn symmetry(&self) -> Result<Option<Symmetry>> {
        match self {
            System::Railx(r) => Ok(Some(Translations::whole(&r.system.plant))),
            System::Peer { spec, .. } => spec.symmetry(),
        }
    }

    /// The realized RailX system, or a one-line error naming what needs one.
    pub fn railx(&self, what: &str) -> Result<&Realized> {
        match self {
            System::Railx(r) => Ok(r),
            System::Peer { spec, .. } => Err(RailxError::invalid(
                what,
                format!("a {} system", spec.family()),
                "applies to RailX systems only (it reads their OCS configuration or node grid)",
                "use a RailX configuration",
            )),
        }
    }

    /// The chip at coordinates `(X, Y, x, y)` of a RailX system (node `(X, Y)`, chip `(x, y)` in
    /// its mesh), or a one-line error naming the coordinate out of range.
    pub fn railx_chip(&self, coords: [u32; 4]) -> Result<u32> {
        let plant = &self.railx("chip coordinates")?.system.plant;
        let [xn, yn, x, y] = coords;
        for (name, value, extent) in [
            ("X", xn, plant.p),
            ("Y", yn, plant.q),
            ("x", x, plant.m),
            ("y", y, plant.m),
        ] {
            if value >= extent {
                return Err(RailxError::invalid(
                    "chip",
                    format!("{xn},{yn},{x},{y}"),
                    format!("{name} = {value} is outside the system (0 <= {name} < {extent})"),
                    format!(
                        "use 0 <= X < {}, 0 <= Y < {}, 0 <= x, y < {}",
                        plant.p, plant.q, plant.m
                    ),
                ));
            }
        }
        Ok(plant.chip_id(plant.node_id(xn, yn), x, y))
    }

    /// The routing function names this system offers, its default first.
    pub fn routing_names(&self) -> &'static [&'static str] {
        match self {
            System::Railx(_) => RAILX_ROUTINGS,
            System::Peer { spec, .. } => peer_routing_names(spec),
        }
    }

    /// The routing function `name` (`None`: the family's default) with its options.
    pub fn routing(
        &self,
        name: Option<&str>,
        options: &RoutingOptions,
    ) -> Result<Box<dyn Routing>> {
        match self {
            System::Railx(realized) => Ok(Box::new(railx_routing(realized, name, options)?)),
            System::Peer { spec, network } => {
                let name = name.unwrap_or(self.routing_names()[0]);
                if let Some(job) = &options.job {
                    return Err(no_jobs(spec, job));
                }
                if let Some(misroutes) = options.misroutes {
                    return Err(RailxError::invalid(
                        "misroutes",
                        misroutes,
                        format!("only RailX's adaptive routing takes misroutes, not {name}"),
                        "drop misroutes",
                    ));
                }
                for_peer(spec, network, Some(name))
            }
        }
    }

    /// Refuses a hardware VC budget below what `routing` (one of this system's) may use.
    pub fn require_vcs(&self, routing: &dyn Routing, budget: u8) -> Result<()> {
        if budget >= routing.vcs() {
            return Ok(());
        }
        let mut hint = format!("allow at least {} VCs", routing.vcs());
        if routing.name() != "dateline" && self.routing_names().contains(&"dateline") {
            hint.push_str(", or use routing = dateline where the topology has rings");
        }
        Err(RailxError::invalid(
            "vcs",
            budget,
            format!(
                "routing = {} needs {} virtual channels on this network",
                routing.name(),
                routing.vcs()
            ),
            hint,
        ))
    }

    /// The route between two chips under routing `name`, as JSON: RailX chips with their
    /// coordinates `(X, Y, x, y)`, a peer's as vertex ids (switches from `chips` on).
    pub fn describe_route(
        &self,
        name: Option<&str>,
        options: &RoutingOptions,
        src: u32,
        dst: u32,
    ) -> Result<serde_json::Value> {
        let value = match self {
            System::Railx(realized) => serde_json::to_value(
                railx_routing(realized, name, options)?.describe_route(src, dst)?,
            ),
            System::Peer { .. } => serde_json::to_value(describe_route(
                self.routing(name, options)?.as_ref(),
                src,
                dst,
            )?),
        };
        value.map_err(|e| RailxError::internal("route report", e))
    }

    /// Every chip of the system (or of a RailX job) as one collective process group, shaped by
    /// the family's dimensions: high-bandwidth-domain (local) dimensions first, then the
    /// dimensions that join the domains (see [`crate::peers::PeerBuilder::collective_group`]).
    pub fn group(&self, job: Option<&str>) -> Result<Group> {
        match self {
            System::Railx(r) => {
                let region = r.system.region(job)?;
                Group::railx_region(&r.system.plant, region)
            }
            System::Peer { spec, network } => {
                if let Some(job) = job {
                    return Err(no_jobs(spec, job));
                }
                spec.collective_group(network.chips())
            }
        }
    }

    /// The chips `cus` of a peer system as one job's process group, rank i on `cus[i]`
    /// ([`crate::peers::PeerBuilder::job_group`]); a RailX system names its jobs instead.
    pub fn cu_group(&self, cus: &[u32]) -> Result<Group> {
        match self {
            System::Railx(_) => Err(RailxError::invalid(
                "cus",
                format!("{} chips", cus.len()),
                "a RailX system's jobs are its configuration's [[jobs]]",
                "name the job (job = \"NAME\") instead of listing chips",
            )),
            System::Peer { spec, network } => spec.job_group(cus.to_vec(), network.chips()),
        }
    }

    /// Rails behind each dimension of [`System::group`] on a RailX system, in its order: 0 for
    /// the two mesh dimensions, then each logical dimension's rail group (RailX only).
    pub fn railx_dim_rails(&self, job: Option<&str>) -> Result<Vec<u32>> {
        let region = self.railx("rails")?.system.region(job)?;
        let mut rails = vec![0, 0];
        for axis in crate::plant::Axis::BOTH {
            let layout = region.layout(axis);
            if layout.dims.is_empty() {
                rails.push(0);
            }
            rails.extend(layout.dims.iter().map(|d| d.rails));
        }
        Ok(rails)
    }

    /// The group of the whole system, refusing a RailX configuration with jobs (collectives
    /// over several jobs' chips at once are not one process group).
    pub fn whole_group(&self) -> Result<Group> {
        if let System::Railx(r) = self {
            if r.system.regions.len() != 1 {
                return Err(RailxError::invalid(
                    "jobs",
                    r.system.regions.len(),
                    "a collective runs over the whole system or one job",
                    "name the job, or use a configuration without jobs",
                ));
            }
        }
        self.group(None)
    }

    /// The bill of materials: a RailX system's from its plant and its topology's closed form; a
    /// peer's by counting.
    pub fn bom(&self) -> Result<BillOfMaterials> {
        match self {
            System::Railx(r) => Ok(crate::bom::railx_system_bom(&r.system)),
            System::Peer { spec, .. } => spec.bom(),
        }
    }
}

/// RailX's routing function `name` (`None`: minimal) over the system or one job.
fn railx_routing(
    realized: &Realized,
    name: Option<&str>,
    options: &RoutingOptions,
) -> Result<RailxRouting> {
    let name = name.unwrap_or(RAILX_ROUTINGS[0]);
    if !RAILX_ROUTINGS.contains(&name) {
        return Err(RailxError::invalid(
            "routing",
            name,
            "does not apply to a RailX system",
            format!("use one of {}", RAILX_ROUTINGS.join(", ")),
        ));
    }
    if let (Some(misroutes), false) = (options.misroutes, name == "adaptive") {
        // Only adaptive routing misroutes: taking the number and routing minimally would
        // silently ignore it.
        return Err(RailxError::invalid(
            "misroutes",
            misroutes,
            format!("only RailX's adaptive routing takes misroutes, not {name}"),
            "add --routing adaptive, or drop misroutes",
        ));
    }
    let scheme = Scheme::parse(name, options.misroutes.unwrap_or(1))?;
    RailxRouting::of_region(realized, options.job.as_deref(), scheme)
}

fn no_jobs(spec: &PeerSpec, job: &str) -> RailxError {
    RailxError::invalid(
        "job",
        job,
        format!("a {} system has no jobs", spec.family()),
        "drop the job, or use a RailX configuration with [[jobs]]",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(json: &str) -> System {
        System::build(&SystemSpec::from_json(json).unwrap()).unwrap()
    }

    #[test]
    fn a_peer_file_and_a_railx_configuration_parse_apart() {
        let spec = SystemSpec::from_json(
            r#"{"peer": {"family": "fat-tree", "radix": 8, "tiers": 2, "chips": 32}}"#,
        )
        .unwrap();
        assert!(matches!(spec, SystemSpec::Peer(PeerSpec::FatTree(_))));
        let err = SystemSpec::from_json(r#"{"peer": {"family": "fat-tree"}, "x": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("x = present"), "{err}");
        let err = SystemSpec::from_json(r#"{"system": {}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("configuration:"), "{err}");
    }

    #[test]
    fn routing_resolves_from_the_family_table_and_refuses_others_in_one_line() {
        let torus = peer(
            r#"{"peer": {"family": "torus3d", "dims": [4, 4, 1], "cube": 4, "board": [2, 2], "ports_per_direction": 1}}"#,
        );
        assert_eq!(torus.routing_names()[0], "dateline");
        assert_eq!(
            torus
                .routing(None, &RoutingOptions::default())
                .unwrap()
                .name(),
            "dateline"
        );
        let err = torus
            .routing(Some("updown"), &RoutingOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("dateline, minimal"), "{err}");
        let job = RoutingOptions {
            job: Some("a".into()),
            ..Default::default()
        };
        assert!(torus.routing(None, &job).is_err());
        assert!(torus.group(Some("a")).is_err());
    }

    #[test]
    fn misroutes_are_refused_by_every_railx_routing_but_adaptive() {
        let railx = peer(
            r#"{"system": {"m": 2, "n": 1, "R": 8, "grid": [3, 3], "port_bw_Bps": 5e10, "intra_bw_Bps": 1e11,
                "alpha_out_s": 3e-7, "alpha_in_s": 1e-8}, "topology": {"preset": "torus"}, "jobs": []}"#,
        );
        let misroutes = RoutingOptions {
            misroutes: Some(2),
            ..Default::default()
        };
        assert_eq!(
            railx.routing(Some("adaptive"), &misroutes).unwrap().name(),
            "adaptive"
        );
        for name in [None, Some("minimal"), Some("dateline"), Some("balanced")] {
            let err = railx.routing(name, &misroutes).err().unwrap().to_string();
            assert!(
                err.starts_with("misroutes = 2") && err.contains("--routing adaptive"),
                "{err}"
            );
        }
    }
}

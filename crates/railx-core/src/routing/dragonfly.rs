//! Routing for the packet-switched Dragonfly peers (`peers::dragonfly`): a packet climbs from its
//! chip to its switch (any plane: ECMP across planes), reaches a group by a local hop to a switch
//! holding a global link to it (unless its own switch holds one; ECMP over such gateways) and the
//! global hop, and in the destination group takes a local hop to the destination's switch.
//!
//! - `minimal`: local, global, local. VC = global hops taken so far (0 then 1, 2 VCs): the local
//!   hops before a global hop and those after it never share a VC, so local-global chains cannot
//!   close a cycle through the groups.
//! - `valiant`: first to an intermediate group drawn uniformly at random (every group is offered
//!   as a choice at the source, `Selection::Random`), then minimally to the destination: local,
//!   global, local, global, local on VCs 0, 0, 1, 1, 2 (3 VCs), the same rule.
//!
//! The deadlock check confirms both; with a single VC the check finds the cycle.

use super::{Adjacency, Hop, LinkEnds, RouteState, Routing, Selection, NO_VIA};
use crate::error::{RailxError, Result};
use crate::network::Network;

pub struct DragonflyRouting {
    groups: u32,
    routers: u32,
    terminals: u32,
    valiant: bool,
    chips: Vec<u32>,
    /// Per (group, target group), index `group * groups + target`: the switches of the group
    /// (index within it) holding a global link to the target group; alike in every plane.
    gateways: Vec<Vec<u32>>,
    adjacency: Adjacency,
    links: LinkEnds,
}

impl DragonflyRouting {
    /// `groups` groups of `routers` switches with `terminals` chips each; the network's switches
    /// are the planes' groups one after another (as the Dragonfly peer builds them).
    pub fn new(
        net: &Network,
        groups: u32,
        routers: u32,
        terminals: u32,
        valiant: bool,
    ) -> Result<DragonflyRouting> {
        let per_plane = groups * routers;
        let chips = per_plane * terminals;
        let switches = net.switch_radix.len() as u32;
        let refuse = |rule: String| {
            RailxError::invalid(
                "routing",
                "dragonfly",
                rule,
                "use it on the Dragonfly peer it was built from",
            )
        };
        if net.chip_count != chips || per_plane == 0 || !switches.is_multiple_of(per_plane) {
            return Err(refuse(format!("needs {chips} chips and whole planes of {per_plane} switches ({groups} groups of {routers} switches, {terminals} chips per switch)")));
        }
        let adjacency = Adjacency::of(net);
        let mut gateways = vec![Vec::new(); (groups * groups) as usize];
        for sw in chips..chips + per_plane {
            let group = (sw - chips) / routers;
            for &(w, _) in adjacency.from(sw) {
                let other = w.wrapping_sub(chips) / routers;
                if w >= chips && other != group {
                    gateways[(group * groups + other) as usize].push((sw - chips) % routers);
                }
            }
        }
        for list in &mut gateways {
            list.dedup();
        }
        if let Some(pair) = (0..groups * groups)
            .find(|&i| i / groups != i % groups && gateways[i as usize].is_empty())
        {
            return Err(refuse(format!(
                "needs a global link between every pair of groups, and groups {} and {} have none",
                pair / groups,
                pair % groups
            )));
        }
        Ok(DragonflyRouting {
            groups,
            routers,
            terminals,
            valiant,
            chips: (0..chips).collect(),
            gateways,
            adjacency,
            links: LinkEnds::of(net, |_| true),
        })
    }

    /// The first switch of a switch's plane, its group, and its index in the group.
    fn locate(&self, sw: u32) -> (u32, u32, u32) {
        let chips = self.chips.len() as u32;
        let within = (sw - chips) % (self.groups * self.routers);
        (sw - within, within / self.routers, within % self.routers)
    }
}

impl Routing for DragonflyRouting {
    fn name(&self) -> &'static str {
        if self.valiant {
            "valiant"
        } else {
            "minimal"
        }
    }

    fn vcs(&self) -> u8 {
        2 + self.valiant as u8
    }

    fn chips(&self) -> &[u32] {
        &self.chips
    }

    fn selection(&self) -> Selection {
        if self.valiant {
            Selection::Random
        } else {
            Selection::Adaptive
        }
    }

    fn next_hops(&self, at: u32, dst: u32, state: &RouteState, out: &mut Vec<Hop>) {
        if at == dst {
            return;
        }
        let mut after = RouteState {
            hops: state.hops.saturating_add(1),
            ..*state
        };
        if at < self.chips.len() as u32 {
            // A chip: up to its switch in every plane; Valiant draws its intermediate group here.
            for &(_, link) in self.adjacency.from(at) {
                if !self.valiant {
                    out.push(Hop {
                        link,
                        vc: 0,
                        state: after,
                    });
                    continue;
                }
                out.extend((0..self.groups).map(|via| Hop {
                    link,
                    vc: 0,
                    state: RouteState { via, ..after },
                }));
            }
            return;
        }
        let (first, group, router) = self.locate(at);
        if after.via == group {
            after.via = NO_VIA;
        }
        let dst_switch = dst / self.terminals;
        let target = if after.via == NO_VIA {
            dst_switch / self.routers
        } else {
            after.via
        };
        let vc = after.vc;
        if group == target {
            // The destination group: a local hop to the destination's switch, then down.
            let next = if dst_switch % self.routers == router {
                dst
            } else {
                first + dst_switch
            };
            if let Some(link) = self.adjacency.link_to(at, next) {
                out.push(Hop {
                    link,
                    vc,
                    state: after,
                });
            }
            return;
        }
        let plane = first..first + self.groups * self.routers;
        let crossed = RouteState {
            vc: vc + 1,
            ..after
        };
        let start = out.len();
        for &(w, link) in self.adjacency.from(at) {
            if plane.contains(&w) && self.locate(w).1 == target {
                out.push(Hop {
                    link,
                    vc,
                    state: crossed,
                });
            }
        }
        if out.len() > start {
            return;
        }
        for &gateway in &self.gateways[(group * self.groups + target) as usize] {
            if let Some(link) = self
                .adjacency
                .link_to(at, first + group * self.routers + gateway)
            {
                out.push(Hop {
                    link,
                    vc,
                    state: after,
                });
            }
        }
    }

    fn links(&self) -> &LinkEnds {
        &self.links
    }
}

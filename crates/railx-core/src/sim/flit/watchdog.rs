//! The deadlock report: when nothing has moved for the watchdog's span, every head packet that
//! waits for a full downstream VC gives an edge of a wait-for graph over channels (link x VC);
//! a cycle in it is a set of channels each waiting for the next — the deadlock.

use super::engine::{Partition, Shared};
use crate::error::Result;
use crate::routing::deadlock::{find_cycle, ChannelRef};

/// One cycle of blocked channels, or an empty list when the wait-for graph has none (the run
/// stalled for another reason, e.g. a routing function that sends packets round forever).
pub(crate) fn blocked_cycle(parts: &mut [Partition], sh: &Shared) -> Result<Vec<ChannelRef>> {
    let vcs = sh.vcs as u64;
    let mut edges: Vec<u64> = Vec::new();
    for part in parts.iter_mut() {
        for router in &mut part.routers {
            router.waits(sh, |from, from_vc, to, to_vc| {
                let a = from as u64 * vcs + from_vc as u64;
                let b = to as u64 * vcs + to_vc as u64;
                edges.push((a << 32) | b);
            })?;
        }
    }
    edges.sort_unstable();
    edges.dedup();
    Ok(find_cycle(&edges)
        .unwrap_or_default()
        .into_iter()
        .map(|channel| {
            let link = (channel / vcs) as u32;
            ChannelRef {
                link,
                from_chip: sh.link_src[link as usize],
                to_chip: sh.link_dst[link as usize],
                vc: (channel % vcs) as u8,
            }
        })
        .collect())
}

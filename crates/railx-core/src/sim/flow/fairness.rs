//! Max-min fair rates by progressive filling (water-filling).
//!
//! Every active flow's rate rises at the same pace from zero; a resource (a link, or a link
//! orbit in the aggregated model) saturates when the load `sum(coeff * rate)` of the flows on it
//! reaches its capacity, and the flows crossing it freeze at the level reached. A flow carries
//! `coeff` units of load on a resource per unit of its rate: 1 for a link on a single path, the
//! fraction routed over the link for a multipath flow, and a crossing count in the aggregated
//! model. The result is the unique max-min fair allocation: no resource is over capacity and
//! every flow has a saturated resource on which no other flow gets more (its bottleneck).
//!
//! A resource whose users do not change saturates at a fixed *level* `level_then +
//! remaining / users`, so the resources wait in a heap keyed by that level and only the ones a
//! freezing flow touches are re-keyed: O(nnz log resources) per allocation.

use super::paths::PathSet;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A resource's saturation level in the heap (smallest first); `version` spots stale keys.
#[derive(Clone, Copy)]
struct Key {
    level: f64,
    resource: u32,
    version: u32,
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    /// Reversed so that `BinaryHeap` pops the lowest level (ties: lowest resource id, so the
    /// order of saturation is deterministic).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .level
            .total_cmp(&self.level)
            .then(other.resource.cmp(&self.resource))
    }
}

/// Buffers reused across allocations (the simulator reallocates at every event). Per-resource
/// state is indexed by resource id and only the resources the flows of one allocation cross are
/// reset, so an allocation costs what its flows touch, not the number of resources: the engine
/// re-solves only the flows connected to those that started or finished (`engine`).
#[derive(Default)]
pub struct WaterFill {
    remaining: Vec<f64>,
    level_at: Vec<f64>,
    users: Vec<f64>,
    unfrozen: Vec<u32>,
    version: Vec<u32>,
    is_dirty: Vec<bool>,
    /// Whether a resource is among this allocation's.
    seen: Vec<bool>,
    /// The resources this allocation's flows cross, in the order first met.
    resources: Vec<u32>,
    /// Flows crossing each of `resources`, ascending: `user_list[user_start[j]..user_end[j]]`
    /// (the transpose of the incidence; `user_end` is where the next user goes while filled).
    user_start: Vec<u64>,
    user_end: Vec<u64>,
    user_list: Vec<u32>,
    frozen: Vec<bool>,
    heap: BinaryHeap<Key>,
    /// Resources whose users changed since they were last keyed.
    dirty: Vec<u32>,
}

#[allow(non_snake_case)]
impl WaterFill {
    /// Max-min fair rates (bytes/s) of `flows` (each the id of its path in `paths`) over
    /// resources of the given capacities (bytes/s); `rates[k]` is flow k's rate.
    ///
    /// The allocation of a set of flows closed under sharing a resource (a union of connected
    /// components of the flow/resource graph) is bit for bit the one the same flows get in any
    /// larger allocation, when they come in the same relative order: every floating-point
    /// operation on a resource involves only its own users and the levels at which resources of
    /// its component saturate, and those pop from the heap in the same relative order (keys
    /// are totally ordered by level, then resource id).
    pub fn allocate(
        &mut self,
        capacity_Bps: &[f64],
        paths: &PathSet,
        flows: &[u32],
        rates: &mut Vec<f64>,
    ) {
        self.reset(capacity_Bps, paths, flows);
        rates.clear();
        rates.resize(flows.len(), 0.0);
        for i in 0..self.resources.len() {
            self.push(self.resources[i], 0.0);
        }
        while let Some(key) = self.heap.pop() {
            let j = key.resource as usize;
            if key.version != self.version[j] || self.unfrozen[j] == 0 {
                continue;
            }
            // Rounding may put a key a hair below the level already reached; levels only rise.
            let level = key.level;
            for u in self.user_start[j]..self.user_end[j] {
                let k = self.user_list[u as usize] as usize;
                if self.frozen[k] {
                    continue;
                }
                self.frozen[k] = true;
                rates[k] = level;
                let (res, coeff) = paths.path(flows[k]);
                for (&r, &a) in res.iter().zip(coeff) {
                    self.release(r as usize, a, level);
                }
            }
            // Re-key each resource touched once, after all the flows freezing here.
            let mut dirty = std::mem::take(&mut self.dirty);
            for &d in &dirty {
                self.is_dirty[d as usize] = false;
                if self.unfrozen[d as usize] > 0 {
                    self.push(d, level);
                }
            }
            dirty.clear();
            self.dirty = dirty;
        }
    }

    /// After `allocate`: the load (bytes/s) of every resource its flows use, as (resource,
    /// load) — its capacity less what remained when its last flow froze.
    pub fn loads<'a>(&'a self, capacity_Bps: &'a [f64]) -> impl Iterator<Item = (u32, f64)> + 'a {
        self.resources
            .iter()
            .map(|&j| (j, capacity_Bps[j as usize] - self.remaining[j as usize]))
    }

    fn reset(&mut self, capacity_Bps: &[f64], paths: &PathSet, flows: &[u32]) {
        let n_res = capacity_Bps.len();
        if self.seen.len() < n_res {
            self.remaining.resize(n_res, 0.0);
            self.level_at.resize(n_res, 0.0);
            self.users.resize(n_res, 0.0);
            self.unfrozen.resize(n_res, 0);
            self.version.resize(n_res, 0);
            self.is_dirty.resize(n_res, false);
            self.seen.resize(n_res, false);
            self.user_start.resize(n_res, 0);
            self.user_end.resize(n_res, 0);
        }
        // Every user is unfrozen at first: `unfrozen` counts them, in the flows' order.
        self.resources.clear();
        for &f in flows {
            let (res, coeff) = paths.path(f);
            for (&r, &a) in res.iter().zip(coeff) {
                let j = r as usize;
                if !self.seen[j] {
                    self.seen[j] = true;
                    self.resources.push(r);
                    self.remaining[j] = capacity_Bps[j];
                    self.level_at[j] = 0.0;
                    self.users[j] = 0.0;
                    self.unfrozen[j] = 0;
                    self.version[j] = 0;
                }
                self.users[j] += a;
                self.unfrozen[j] += 1;
            }
        }
        let mut rows = 0u64;
        for &r in &self.resources {
            let j = r as usize;
            self.seen[j] = false;
            self.user_start[j] = rows;
            self.user_end[j] = rows;
            rows += self.unfrozen[j] as u64;
        }
        self.user_list.clear();
        self.user_list.resize(rows as usize, 0);
        for (k, &f) in flows.iter().enumerate() {
            for &r in paths.path(f).0 {
                let end = &mut self.user_end[r as usize];
                self.user_list[*end as usize] = k as u32;
                *end += 1;
            }
        }
        self.frozen.clear();
        self.frozen.resize(flows.len(), false);
        self.heap.clear();
        self.dirty.clear();
    }

    /// Keys resource j at the level where its remaining capacity runs out, from `level` on.
    fn push(&mut self, j: u32, level: f64) {
        let i = j as usize;
        self.version[i] = self.version[i].wrapping_add(1);
        let at = level + (self.remaining[i] / self.users[i]).max(0.0);
        self.heap.push(Key {
            level: at,
            resource: j,
            version: self.version[i],
        });
    }

    /// A flow with `coeff` on resource j froze at `level`: drop the flow from j's users and, at
    /// the first such flow of this level, bring j's remaining capacity up to the level (with the
    /// users it had until then) and mark j for re-keying (its old key goes stale). Later flows
    /// of the same level would subtract nothing more: skipping them saves a dependent
    /// multiply-subtract per crossing where many flows freeze at once (an all-to-all).
    fn release(&mut self, j: usize, coeff: f64, level: f64) {
        if !self.is_dirty[j] {
            self.remaining[j] -= (level - self.level_at[j]) * self.users[j];
            self.level_at[j] = level;
            self.version[j] = self.version[j].wrapping_add(1);
            self.is_dirty[j] = true;
            self.dirty.push(j as u32);
        }
        self.unfrozen[j] -= 1;
        // Exactly zero once no user is left, not a rounding residue of the coefficients.
        self.users[j] = if self.unfrozen[j] == 0 {
            0.0
        } else {
            self.users[j] - coeff
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(list: &[&[(u32, f64)]]) -> PathSet {
        let mut p = PathSet::default();
        for inc in list {
            p.push(inc, 0.0);
        }
        p
    }

    #[test]
    fn classic_three_flow_example() {
        // Link 0 (cap 1) carries flows 0 and 1; link 1 (cap 2) carries flows 1 and 2.
        // Max-min: flows 0, 1 get 1/2 on link 0; flow 2 gets the rest of link 1: 3/2.
        let p = paths(&[&[(0, 1.0)], &[(0, 1.0), (1, 1.0)], &[(1, 1.0)]]);
        let mut rates = Vec::new();
        WaterFill::default().allocate(&[1.0, 2.0], &p, &[0, 1, 2], &mut rates);
        assert_eq!(rates, vec![0.5, 0.5, 1.5]);
    }

    #[test]
    fn coefficients_weigh_the_load() {
        // A flow crossing a resource twice (coefficient 2) gets half its capacity.
        let p = paths(&[&[(0, 2.0)]]);
        let mut rates = Vec::new();
        WaterFill::default().allocate(&[10.0], &p, &[0], &mut rates);
        assert_eq!(rates, vec![5.0]);
    }
}

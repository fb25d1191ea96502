//! Per-resource utilisation over time, kept compact: the simulator reports a resource's load
//! only when it changes, and the record is folded into a fixed number of equal time bins, each
//! holding the time-weighted mean utilisation (load / capacity) of every resource.

/// Utilisation of every resource in `bins` equal bins over `[0, completion_s]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Width of one bin (completion time / bins).
    pub bin_s: f64,
    pub bins: u32,
    /// Row-major `resources x bins`: mean utilisation of resource r in bin b at `r * bins + b`.
    pub utilisation: Vec<f32>,
    /// Mean utilisation of each resource over the whole run.
    pub mean: Vec<f64>,
}

/// Records piecewise-constant loads as they change.
#[allow(non_snake_case)]
pub struct Recorder {
    capacity_Bps: Vec<f64>,
    load_Bps: Vec<f64>,
    /// Resources with a nonzero load now.
    loaded: Vec<u32>,
    /// (time, resource, new load) in time order.
    changes: Vec<(f64, u32, f64)>,
    mark: Vec<bool>,
}

#[allow(non_snake_case)]
impl Recorder {
    pub fn new(capacity_Bps: &[f64]) -> Recorder {
        Recorder {
            capacity_Bps: capacity_Bps.to_vec(),
            load_Bps: vec![0.0; capacity_Bps.len()],
            loaded: Vec::new(),
            changes: Vec::new(),
            mark: vec![false; capacity_Bps.len()],
        }
    }

    /// The loads from time `t_s` on: `touched` lists (resource, load) for every loaded resource
    /// (a resource may appear several times; its loads add). Others drop to zero.
    pub fn set(&mut self, t_s: f64, touched: &[(u32, f64)], scratch: &mut Vec<f64>) {
        scratch.clear();
        scratch.resize(self.capacity_Bps.len(), 0.0);
        let mut now_loaded = Vec::with_capacity(self.loaded.len());
        for &(r, load) in touched {
            if !self.mark[r as usize] {
                self.mark[r as usize] = true;
                now_loaded.push(r);
            }
            scratch[r as usize] += load;
        }
        for &r in self.loaded.iter().chain(&now_loaded) {
            let i = r as usize;
            if scratch[i] != self.load_Bps[i] {
                self.changes.push((t_s, r, scratch[i]));
                self.load_Bps[i] = scratch[i];
            }
        }
        for &r in &now_loaded {
            self.mark[r as usize] = false;
        }
        self.loaded = now_loaded;
    }

    /// The loads from time `t_s` on of the resources in `changed` (each once); the others keep
    /// theirs. What `set` records when only these resources' loads may have changed.
    pub fn update(&mut self, t_s: f64, changed: &[(u32, f64)]) {
        for &(r, load) in changed {
            if load != self.load_Bps[r as usize] {
                self.changes.push((t_s, r, load));
                self.load_Bps[r as usize] = load;
            }
        }
    }

    /// Folds the record into `bins` bins over `[0, end_s]`.
    pub fn finish(self, end_s: f64, bins: u32) -> Timeline {
        let n = self.capacity_Bps.len();
        let b = bins.max(1) as usize;
        let width = if end_s > 0.0 { end_s / b as f64 } else { 1.0 };
        let mut busy = vec![0.0f64; n * b];
        let mut total = vec![0.0f64; n];
        let mut since = vec![0.0f64; n];
        let mut load = vec![0.0f64; n];
        let mut spread = |r: usize, from: f64, to: f64, l: f64, busy: &mut [f64]| {
            if l == 0.0 || to <= from {
                return;
            }
            total[r] += l * (to - from);
            let first = ((from / width) as usize).min(b - 1);
            let last = ((to / width) as usize).min(b - 1);
            for bin in first..=last {
                let lo = from.max(bin as f64 * width);
                let hi = to.min((bin + 1) as f64 * width);
                if hi > lo {
                    busy[r * b + bin] += l * (hi - lo);
                }
            }
        };
        for &(t, r, l) in &self.changes {
            let i = r as usize;
            spread(i, since[i], t, load[i], &mut busy);
            since[i] = t;
            load[i] = l;
        }
        for i in 0..n {
            spread(i, since[i], end_s, load[i], &mut busy);
        }
        let utilisation = busy
            .iter()
            .enumerate()
            .map(|(k, &v)| (v / (self.capacity_Bps[k / b] * width)) as f32)
            .collect();
        let mean = total
            .iter()
            .zip(&self.capacity_Bps)
            .map(|(&t, &c)| if end_s > 0.0 { t / (c * end_s) } else { 0.0 })
            .collect();
        Timeline {
            bin_s: width,
            bins: b as u32,
            utilisation,
            mean,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_bins() {
        // Resource 0 (capacity 2) carries load 2 on [0, 1) and 1 on [1, 2); resource 1 idle.
        let mut rec = Recorder::new(&[2.0, 4.0]);
        let mut scratch = Vec::new();
        rec.set(0.0, &[(0, 1.0), (0, 1.0)], &mut scratch);
        rec.set(1.0, &[(0, 1.0)], &mut scratch);
        let tl = rec.finish(2.0, 4);
        assert_eq!(tl.utilisation, vec![1.0, 1.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(tl.mean, vec![0.75, 0.0]);
    }
}

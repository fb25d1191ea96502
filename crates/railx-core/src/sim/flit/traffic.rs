//! Traffic: synthetic patterns at an offered load (Bernoulli injection), the finite all-to-all,
//! and message DAGs. Destinations are drawn per chip from that chip's own random stream.

use super::rng::Stream;
use crate::error::{RailxError, Result};
use crate::sim::dag::MessageDag;
use serde::Deserialize;

/// Where a chip's packets go.
#[derive(Debug, Clone, PartialEq)]
pub enum Pattern {
    /// Uniformly random among the other chips.
    Uniform,
    /// Each chip cycles through every other chip in index order, from its own random start.
    AllToAll,
    /// A fixed destination per chip.
    Permutation(PermutationKind),
    /// `fraction` of the packets to the `chips` (uniformly), the rest uniform.
    Hotspot { chips: Vec<u32>, fraction: f64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermutationKind {
    /// A random cyclic permutation (Sattolo's algorithm: no chip sends to itself).
    Random,
    /// Chip index `a + s b` sends to `b + s a` (needs s^2 chips; the diagonal stays silent).
    Transpose,
    /// Chip index `i` sends to `n - 1 - i` (needs a power-of-two number of chips).
    BitComplement,
}

/// A workload.
#[derive(Debug, Clone, PartialEq)]
pub enum Traffic {
    /// Bernoulli injection of `load` flits/cycle/chip (in whole packets) with a pattern.
    Rate { pattern: Pattern, load: f64 },
    /// Every chip sends `flits_per_pair` flits to every other chip, as fast as it can; the run
    /// ends when all have arrived (completion time).
    FiniteAllToAll { flits_per_pair: u32 },
    /// Messages injected when their dependencies have arrived, plus their delay.
    Dag(MessageDag),
}

impl Traffic {
    pub fn name(&self) -> String {
        match self {
            Traffic::Rate { pattern, .. } => match pattern {
                Pattern::Uniform => "uniform".into(),
                Pattern::AllToAll => "all-to-all".into(),
                Pattern::Permutation(k) => format!(
                    "permutation-{}",
                    match k {
                        PermutationKind::Random => "random",
                        PermutationKind::Transpose => "transpose",
                        PermutationKind::BitComplement => "bit-complement",
                    }
                ),
                Pattern::Hotspot { .. } => "hotspot".into(),
            },
            Traffic::FiniteAllToAll { .. } => "all-to-all-finite".into(),
            Traffic::Dag(_) => "dag".into(),
        }
    }
}

/// Traffic as the command line and the binding give it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    /// uniform, all-to-all (or its older spelling alltoall), permutation or hotspot.
    pub pattern: String,
    /// Offered flits/cycle/chip (rate patterns).
    #[serde(default)]
    pub load: f64,
    /// random, transpose or bit-complement (pattern = permutation).
    #[serde(default = "random")]
    pub permutation: String,
    #[serde(default)]
    pub hotspot_chips: Vec<u32>,
    #[serde(default = "hotspot_fraction")]
    pub hotspot_fraction: f64,
    /// Flits per pair: makes `all-to-all` finite (completion time) instead of a rate.
    #[serde(default)]
    pub size_flits: Option<u32>,
}

fn random() -> String {
    "random".into()
}
fn hotspot_fraction() -> f64 {
    0.2
}

impl TrafficSpec {
    pub fn resolve(&self) -> Result<Traffic> {
        let pattern = match self.pattern.as_str() {
            "uniform" => Pattern::Uniform,
            // "alltoall" is the spelling of earlier releases, kept so their scripts still run.
            "all-to-all" | "alltoall" => Pattern::AllToAll,
            "permutation" => Pattern::Permutation(match self.permutation.as_str() {
                "random" => PermutationKind::Random,
                "transpose" => PermutationKind::Transpose,
                "bit-complement" => PermutationKind::BitComplement,
                other => {
                    return Err(RailxError::invalid(
                        "permutation",
                        other,
                        "unknown permutation",
                        "use random, transpose or bit-complement",
                    ))
                }
            }),
            "hotspot" => {
                let f = self.hotspot_fraction;
                if !(0.0..=1.0).contains(&f) {
                    return Err(RailxError::invalid(
                        "hotspot_fraction",
                        f,
                        "is a fraction of the packets, in 0..=1",
                        "e.g. 0.2",
                    ));
                }
                let chips = if self.hotspot_chips.is_empty() {
                    vec![0]
                } else {
                    self.hotspot_chips.clone()
                };
                Pattern::Hotspot { chips, fraction: f }
            }
            other => {
                return Err(RailxError::invalid(
                    "traffic",
                    other,
                    "unknown traffic pattern",
                    "use uniform, all-to-all, permutation or hotspot",
                ))
            }
        };
        match self.size_flits {
            Some(size) if pattern == Pattern::AllToAll => {
                crate::error::require_positive("size_flits", size, "e.g. 64")?;
                Ok(Traffic::FiniteAllToAll {
                    flits_per_pair: size,
                })
            }
            Some(_) => Err(RailxError::invalid(
                "size_flits",
                self.pattern.as_str(),
                "a finite size applies to the all-to-all only",
                "use --traffic all-to-all with a size, or drop the size for a rate",
            )),
            None => Ok(Traffic::Rate {
                pattern,
                load: self.load,
            }),
        }
    }
}

/// A pattern resolved against the chips that exchange traffic.
pub(crate) struct Destinations {
    pub chips: Vec<u32>,
    /// Vertex -> index in `chips` (`u32::MAX` for other vertices).
    pub index_of: Vec<u32>,
    /// Fixed destination index per chip index (permutations; `u32::MAX`: silent).
    fixed: Vec<u32>,
    hot: Vec<u32>,
    hot_fraction: f64,
    pattern: Pattern,
}

/// Stream tag of the permutation drawn from the seed.
const PERMUTATION_TAG: u64 = 3;

impl Destinations {
    pub fn new(chips: &[u32], vertices: u32, pattern: &Pattern, seed: u64) -> Result<Self> {
        let n = chips.len() as u32;
        let mut index_of = vec![u32::MAX; vertices as usize];
        for (i, &c) in chips.iter().enumerate() {
            index_of[c as usize] = i as u32;
        }
        let mut fixed = Vec::new();
        let mut hot = Vec::new();
        let mut hot_fraction = 0.0;
        match pattern {
            Pattern::Permutation(kind) => fixed = permutation(*kind, n, seed)?,
            Pattern::Hotspot { chips: h, fraction } => {
                for &c in h {
                    let i = index_of.get(c as usize).copied().unwrap_or(u32::MAX);
                    if i == u32::MAX {
                        return Err(RailxError::invalid(
                            "hotspot_chips",
                            c,
                            "is not a chip that takes traffic in this network",
                            format!("use chip ids among the {n} routed chips"),
                        ));
                    }
                    hot.push(i);
                }
                hot_fraction = *fraction;
            }
            _ => {}
        }
        Ok(Destinations {
            chips: chips.to_vec(),
            index_of,
            fixed,
            hot,
            hot_fraction,
            pattern: pattern.clone(),
        })
    }

    /// Whether chip index `me` sends at all.
    pub fn sends(&self, me: u32) -> bool {
        match self.pattern {
            Pattern::Permutation(_) => self.fixed[me as usize] != u32::MAX,
            _ => self.chips.len() > 1,
        }
    }

    /// The next destination (a vertex) of chip index `me`; `cursor` is the chip's all-to-all
    /// position (1..n).
    pub fn next(&self, me: u32, cursor: &mut u32, rng: &mut Stream) -> u32 {
        let n = self.chips.len() as u32;
        let uniform = |rng: &mut Stream| {
            let r = rng.below(n - 1);
            if r >= me {
                r + 1
            } else {
                r
            }
        };
        let index = match &self.pattern {
            Pattern::Uniform => uniform(rng),
            Pattern::AllToAll => {
                let k = *cursor;
                *cursor = k % (n - 1) + 1;
                (me + k) % n
            }
            Pattern::Permutation(_) => self.fixed[me as usize],
            Pattern::Hotspot { .. } => {
                let h = self.hot[rng.below(self.hot.len() as u32) as usize];
                if rng.unit() < self.hot_fraction && h != me {
                    h
                } else {
                    uniform(rng)
                }
            }
        };
        self.chips[index as usize]
    }
}

/// Destination index per source index (`u32::MAX` where a chip would send to itself).
fn permutation(kind: PermutationKind, n: u32, seed: u64) -> Result<Vec<u32>> {
    let silent_self = |p: Vec<u32>| {
        p.into_iter()
            .enumerate()
            .map(|(i, d)| if d == i as u32 { u32::MAX } else { d })
            .collect()
    };
    match kind {
        PermutationKind::Random => {
            let mut p: Vec<u32> = (0..n).collect();
            let mut rng = Stream::new(seed, PERMUTATION_TAG, 0);
            for i in (1..n as usize).rev() {
                let j = rng.below(i as u32) as usize;
                p.swap(i, j);
            }
            Ok(silent_self(p))
        }
        PermutationKind::Transpose => {
            let s = (n as f64).sqrt().round() as u32;
            if s * s != n {
                return Err(RailxError::invalid(
                    "permutation",
                    "transpose",
                    format!("needs a square number of chips; this network routes {n}"),
                    "use permutation = random, or a square system",
                ));
            }
            Ok(silent_self((0..n).map(|i| (i / s) + s * (i % s)).collect()))
        }
        PermutationKind::BitComplement => {
            if !n.is_power_of_two() {
                return Err(RailxError::invalid(
                    "permutation",
                    "bit-complement",
                    format!("needs a power-of-two number of chips; this network routes {n}"),
                    "use permutation = random or transpose",
                ));
            }
            Ok(silent_self((0..n).map(|i| n - 1 - i).collect()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_bijections_without_fixed_points() {
        let p = permutation(PermutationKind::Random, 50, 9).unwrap();
        let mut seen = p.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
        let t = permutation(PermutationKind::Transpose, 16, 0).unwrap();
        assert_eq!(t[1], 4);
        assert_eq!(t[5], u32::MAX);
        assert!(permutation(PermutationKind::Transpose, 12, 0).is_err());
        assert_eq!(
            permutation(PermutationKind::BitComplement, 8, 0).unwrap()[2],
            5
        );
    }

    #[test]
    fn all_to_all_visits_every_other_chip_once_per_round() {
        let chips: Vec<u32> = (0..6).collect();
        let d = Destinations::new(&chips, 6, &Pattern::AllToAll, 0).unwrap();
        let mut rng = Stream::new(0, 0, 0);
        let mut cursor = 1;
        let mut got: Vec<u32> = (0..5).map(|_| d.next(2, &mut cursor, &mut rng)).collect();
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 3, 4, 5]);
    }

    #[test]
    fn unknown_names_are_refused() {
        let spec = |p: &str| TrafficSpec {
            pattern: p.into(),
            load: 0.1,
            permutation: "random".into(),
            hotspot_chips: vec![],
            hotspot_fraction: 0.2,
            size_flits: None,
        };
        let e = spec("tornado").resolve().unwrap_err().to_string();
        assert!(
            e.starts_with("traffic = tornado: unknown traffic pattern"),
            "{e}"
        );
        assert!(spec("uniform").resolve().is_ok());
    }
}

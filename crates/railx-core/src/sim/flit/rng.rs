//! The simulator's random streams: PCG-64 (O'Neill 2014), one independent stream per router
//! selected by PCG's stream parameter, so a router's draws never depend on how routers are
//! spread over threads.

use rand::{Rng, RngCore};
use rand_pcg::Pcg64;

#[derive(Debug, Clone)]
pub struct Stream(Pcg64);

impl Stream {
    /// Stream `index` of `seed` (`tag` separates the uses of one seed).
    pub fn new(seed: u64, tag: u64, index: u64) -> Stream {
        let state = (u128::from(tag) << 64) | u128::from(seed);
        Stream(Pcg64::new(state, u128::from(index)))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0.random()
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        self.0.random_range(0..n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Stream::new(7, 1, 3).next_u64()).collect();
        assert!(a.iter().all(|&x| x == a[0]));
        assert_ne!(
            Stream::new(7, 1, 3).next_u64(),
            Stream::new(7, 1, 4).next_u64()
        );
        assert_ne!(
            Stream::new(7, 1, 3).next_u64(),
            Stream::new(7, 2, 3).next_u64()
        );
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut s = Stream::new(1, 0, 0);
        let mut counts = [0u32; 5];
        for _ in 0..50_000 {
            counts[s.below(5) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }
}

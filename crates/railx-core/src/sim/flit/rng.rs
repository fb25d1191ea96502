//! The simulator's random streams: SplitMix64 (Steele, Lea and Flood 2014), one independent
//! stream per router derived from the seed, so a router's draws never depend on how routers are
//! spread over threads.

#[derive(Debug, Clone)]
pub struct Stream {
    state: u64,
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

impl Stream {
    /// Stream `index` of `seed` (`tag` separates the uses of one seed).
    pub fn new(seed: u64, tag: u64, index: u64) -> Stream {
        let mut s = Stream {
            state: seed ^ tag.wrapping_mul(0xd1b5_4a32_d192_ed03),
        };
        s.state = s.next_u64() ^ index.wrapping_mul(GOLDEN);
        s.next_u64();
        s
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in 0..n (n > 0), without modulo bias worth noting (Lemire's multiply-shift).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * n as u64) >> 32) as u32
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

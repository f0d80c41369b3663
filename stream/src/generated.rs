//! Generated keys: a SplitMix64 stream, any part of which can be
//! produced on its own.

use jumpshard::verify::SplitMix64;

use crate::error::Error;
use crate::source::KeysAt;

/// `count` SplitMix64 keys from `seed`; a chunk starts its own stream
/// where the whole stream would be.
pub(crate) struct Generated {
    pub(crate) seed: u64,
    pub(crate) count: u64,
}

impl KeysAt for Generated {
    fn key_count(&self) -> u64 {
        self.count
    }

    fn read_at(&self, first: u64, count: usize, keys: &mut Vec<u64>) -> Result<(), Error> {
        let mut rng = SplitMix64::new(self.seed);
        rng.skip(first);
        keys.clear();
        keys.extend((0..count).map(|_| rng.next_u64()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_chunks_continue_one_stream() {
        let whole = SplitMix64::new(3).keys(50);
        let source = Generated { seed: 3, count: 50 };
        let mut part = Vec::new();
        source.read_at(17, 33, &mut part).unwrap();
        assert_eq!(part, whole[17..]);
    }
}

//! The move filter: a block's moving keys for a move plan, every key whose
//! deciding bucket reaches the threshold, with its position and bucket,
//! packed to the front of three staging columns. A kernel operation, since
//! it has a per-ISA form chosen with the kernel.
//!
//! About 1/6 of keys move at 10 -> 12, so a branch per key would mispredict
//! often enough to cost more than the SIMD evaluation itself. The portable
//! selection is branch-free; the AVX-512 one compresses 16 keys at a time
//! (`crate::arch::x86_64::filter`). Both write only below the number of
//! keys examined, so staging columns as long as the block suffice.

/// The moving keys of one block, at the front of each column.
#[derive(Clone, Debug, Default)]
pub(crate) struct Staged {
    pub(crate) positions: Vec<u64>,
    pub(crate) keys: Vec<u64>,
    pub(crate) buckets: Vec<u32>,
}

impl Staged {
    /// Makes room for blocks of up to `len` keys.
    pub(crate) fn reserve_block(&mut self, len: usize) {
        if self.keys.len() < len {
            self.positions.resize(len, 0);
            self.keys.resize(len, 0);
            self.buckets.resize(len, 0);
        }
    }
}

/// The portable selection of keys `start..`, after `staged` already holds
/// `n` of them; returns the new count. Branch-free: every key's index is
/// written at the fill level and only a moving key advances it; the movers
/// are then gathered at a cost proportional to their number (measured
/// faster than writing all three columns for every key).
pub(crate) fn filter_from(
    keys: &[u64],
    buckets: &[u32],
    threshold: u32,
    base: u64,
    staged: &mut Staged,
    start: usize,
    n: usize,
) -> usize {
    // Reuses the bucket column for the indices: key `i`'s index is written
    // at the fill level, which never passes `i`, and the gather below reads
    // each slot's index before it overwrites the slot with a bucket.
    let picked = &mut staged.buckets[..keys.len()];
    let mut end = n;
    for (i, &b) in buckets.iter().enumerate().skip(start) {
        picked[end] = i as u32;
        end += usize::from(b >= threshold);
    }
    for slot in n..end {
        let i = staged.buckets[slot] as usize;
        staged.positions[slot] = base + i as u64;
        staged.keys[slot] = keys[i];
        staged.buckets[slot] = buckets[i];
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kernel;

    /// Every kernel's selection against the obvious filter: lengths around
    /// 16-key steps, unaligned slices, thresholds and buckets at the edges.
    #[test]
    fn every_kernel_selects_what_a_filter_selects() {
        let mut random = crate::splitmix::SplitMix64::new(0x5E1E);
        let max = (1u32 << 31) - 1;
        let edges = [0, 1, 9, 10, 11, max - 1, max];
        let len = 300;
        let keys: Vec<u64> = (0..=len).map(|_| random.next_u64()).collect();
        // Under Miri, which checks the memory accesses rather than the
        // arithmetic, two thresholds of the five (each is seconds there),
        // and the buckets of two rounds of the four: the edges, whose
        // selections are mixed, and the random ones.
        let (thresholds, rounds): (&[u32], &[usize]) = if cfg!(miri) {
            (&[2, max], &[0, 3])
        } else {
            (&[1, 2, 10, max - 1, max], &[0, 1, 2, 3])
        };
        for &threshold in thresholds {
            for &round in rounds {
                let buckets: Vec<u32> = (0..=len)
                    .map(|_| {
                        let r = random.next_u64();
                        match round {
                            0 => edges[(r % edges.len() as u64) as usize],
                            1 => (r % 20) as u32,
                            2 => max - (r % 3) as u32,
                            _ => (r >> 33) as u32,
                        }
                    })
                    .collect();
                for (skip, n) in [
                    (0, 0),
                    (0, 1),
                    (1, 15),
                    (0, 16),
                    (1, 17),
                    (0, 63),
                    (1, 64),
                    (1, 300),
                ] {
                    let (keys, buckets) = (&keys[skip..skip + n], &buckets[skip..skip + n]);
                    let want: Vec<(u64, u64, u32)> = (0..n)
                        .filter(|&i| buckets[i] >= threshold)
                        .map(|i| (77 + i as u64, keys[i], buckets[i]))
                        .collect();
                    for kernel in Kernel::supported() {
                        let mut staged = Staged::default();
                        staged.reserve_block(n);
                        let got = kernel.filter_movers(keys, buckets, threshold, 77, &mut staged);
                        let got: Vec<(u64, u64, u32)> = (0..got)
                            .map(|i| (staged.positions[i], staged.keys[i], staged.buckets[i]))
                            .collect();
                        assert_eq!(got, want, "{kernel}, threshold {threshold}, {n} keys");
                    }
                }
            }
        }
    }
}

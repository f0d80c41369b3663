//! Line ends in text: where the next one is, and how many a stretch
//! holds, for the line-by-line inputs and the CSV records.

/// Bytes from a line's start that [`find`] searches a word at a time
/// before it calls `memchr`.
pub(crate) const SEARCHED: usize = 64;

/// The position of the first `\n` in `bytes` from `from` on: in the first
/// [`SEARCHED`] bytes 8 at a time, where most lines end, after them by
/// `memchr`, whose vectors pay on long lines. A call of `memchr` per line
/// cost more than the search on short ones (docs/performance.md, "Reading
/// text keys"), and so did 32 bytes searched with no branch but the last.
#[inline]
pub(crate) fn find(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut at = from;
    // A loop the compiler writes out.
    for _ in 0..SEARCHED / 8 {
        let Some(word) = bytes.get(at..at + 8) else {
            break;
        };
        let x = u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ (ONES * u64::from(b'\n'));
        // The lowest byte flagged is the first that was `\n` (a borrow
        // only flags bytes above a zero one).
        let flagged = x.wrapping_sub(ONES) & !x & (ONES << 7);
        if flagged != 0 {
            return Some(at + (flagged.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    memchr::memchr(b'\n', rest).map(|i| at + i)
}

/// The number of `\n` in `bytes`: a byte count per 255-byte run never
/// overflows, and the compiler turns it into vector compares and adds. (A
/// count of the compares, which the compiler widened to 64-bit lanes two
/// bytes at a time, took a third of a one-thread CSV reshard.)
pub(crate) fn count(bytes: &[u8]) -> u64 {
    bytes
        .chunks(255)
        .map(|run| u64::from(run.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>()))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines_are_counted_as_one_at_a_time() {
        let mut rng = jumpshard::verify::SplitMix64::new(0xC5F);
        let near = [b'\n', b'\n', 0x8A, 0x0B, 0x09, 0x00, 0xFF, 0x7F, b'a'];
        for len in 0..200 {
            for _ in 0..50 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| near[(rng.next_u64() % near.len() as u64) as usize])
                    .collect();
                let want = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(count(&bytes), want, "{bytes:02x?}");
            }
        }
        assert_eq!(count(&[b'\n'; 64]), 64);
    }

    #[test]
    fn the_first_newline_is_found_from_every_start() {
        let mut rng = jumpshard::verify::SplitMix64::new(0xF1D);
        for len in 0..200 {
            // Sparse line ends among bytes near `\n`'s value.
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let r = rng.next_u64();
                    match r % 16 {
                        0 => b'\n',
                        1 => [0x8A, 0x0B, 0x09, 0x00][(r >> 8) as usize % 4],
                        _ => b'x',
                    }
                })
                .collect();
            for from in 0..=len {
                let want = bytes[from..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map(|i| from + i);
                assert_eq!(find(&bytes, from), want, "from {from}: {bytes:02x?}");
            }
        }
    }
}

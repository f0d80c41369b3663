//! A byte key's *span*, what Memento's byte-key rounds carry in place of
//! its first-stage key once Figure 1 has run (`batch_bytes`, and the
//! AVX-512 rounds' `crate::arch::x86_64::memento_bytes`): its start and
//! length in one word, so that a rehash reads the key's bytes without
//! reading its offsets.

/// The span of a key that has none: 65535 bytes or longer, or starting
/// past 2^48 bytes. Its rehash finds its bytes by its offsets.
pub(crate) const LONG: u64 = 0xFFFF;

/// The span of the key `data[from..to]`: its start << 16 | its length, or
/// [`LONG`].
#[inline]
pub(crate) fn span(from: u64, to: u64) -> u64 {
    let len = to - from;
    if len < LONG && from < 1 << 48 {
        from << 16 | len
    } else {
        LONG
    }
}

//! Figure 1 in Rust: the portable kernel every platform has.
//!
//! Each line matches the paper's C++ so that the result is the same bit for
//! bit: the LCG multiply wraps mod 2^64, `>> 33` shifts an unsigned value,
//! the quotient is an IEEE double division, and storing into the `int64_t`
//! `j` truncates toward zero. `as i64` saturates where C++ would be
//! undefined, but `j <= (b + 1) * 2^31 <= 2^62` never leaves the range.

/// The paper's LCG multiplier.
pub(crate) const LCG_MULTIPLIER: u64 = 2862933555777941757;

/// One key; `num_buckets` must be in `1..=2^31-1`.
#[inline]
pub(crate) fn jump(mut key: u64, num_buckets: u32) -> u32 {
    let n = i64::from(num_buckets);
    let mut b: i64 = -1;
    let mut j: i64 = 0;
    while j < n {
        b = j;
        key = key.wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b as u32
}

/// A batch; the caller has checked that the lengths match.
pub(crate) fn batch(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    debug_assert_eq!(keys.len(), out.len());
    for (o, &k) in out.iter_mut().zip(keys) {
        *o = jump(k, num_buckets);
    }
}

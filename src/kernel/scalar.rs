//! Figure 1 in Rust: the portable kernel every platform has.
//!
//! Each line matches the paper's C++ so that the result is the same bit for
//! bit: the LCG multiply wraps mod 2^64, `>> 33` shifts an unsigned value,
//! the quotient is an IEEE double division, and storing into the `int64_t`
//! `j` truncates toward zero ([`next_jump`]).

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
        j = next_jump((b + 1) as u32, key);
    }
    b as u32
}

/// Figure 1's `j = (b + 1) * (double(1LL << 31) / double((key >> 33) + 1))`
/// from `b + 1` and the stepped key, truncated toward zero into the
/// `int64_t` as C++ converts. `as i64` would give the same here, but it
/// checks for NaN and saturates: two compares and selects in the chain
/// that each iteration waits on.
#[inline]
pub(crate) fn next_jump(b_plus_one: u32, key: u64) -> i64 {
    let x = f64::from(b_plus_one) * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64);
    // SAFETY: `b + 1 <= 2^32 - 1` (a `u32`) and the quotient is at most
    // 2^31 (its divisor is at least 1), so `x` is finite, not negative and
    // at most `RN((2^32 - 1) * 2^31) = 2^63 - 2^31`: a value `i64` holds.
    unsafe { x.to_int_unchecked::<i64>() }
}

/// A batch; the caller has checked that the lengths match. Keys go four
/// at a time through [`jump_lanes`], so that four independent chains are
/// in flight; a remainder of two or three goes two at a time.
pub(crate) fn batch(keys: &[u64], num_buckets: u32, out: &mut [u32]) {
    debug_assert_eq!(keys.len(), out.len());
    let mut quads = keys.chunks_exact(4);
    let mut outs = out.chunks_exact_mut(4);
    for (k, o) in (&mut quads).zip(&mut outs) {
        let k: [u64; 4] = k.try_into().expect("chunks of 4");
        o.copy_from_slice(&jump_lanes(k, num_buckets));
    }
    let (keys, out) = (quads.remainder(), outs.into_remainder());
    let paired = keys.len() & !1;
    for (k, o) in keys[..paired].chunks_exact(2).zip(out.chunks_exact_mut(2)) {
        o.copy_from_slice(&jump_lanes([k[0], k[1]], num_buckets));
    }
    if let (Some(&k), Some(o)) = (keys.get(paired), out.get_mut(paired)) {
        *o = jump(k, num_buckets);
    }
}

/// [`jump`] on `L` keys in lockstep: every lane steps until all are done,
/// a finished lane keeping its `b` and `j` (selected, not branched on, so
/// that the keys' different lengths cost no mispredicted branch). The
/// chains are independent, so they overlap in the pipeline: `L` keys cost
/// about what the slowest of them costs alone.
#[inline]
pub(crate) fn jump_lanes<const L: usize>(mut key: [u64; L], num_buckets: u32) -> [u32; L] {
    let n = i64::from(num_buckets);
    let mut b = [-1i64; L];
    let mut j = [0i64; L];
    loop {
        for l in 0..L {
            let active = j[l] < n;
            let next_b = if active { j[l] } else { b[l] };
            key[l] = key[l].wrapping_mul(LCG_MULTIPLIER).wrapping_add(1);
            let next_j = next_jump((next_b + 1) as u32, key[l]);
            j[l] = if active { next_j } else { j[l] };
            b[l] = next_b;
        }
        if j.iter().all(|&j| j >= n) {
            return b.map(|b| b as u32);
        }
    }
}

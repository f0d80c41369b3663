//! bench's big buffers, allocated so that a failure is a message: `--keys`
//! goes up to 2^28 keys, 2 GiB of them and as much again of results, and
//! a machine (or a `ulimit -v`) short of that would otherwise abort the
//! process.

use jumpshard::verify::SplitMix64;

/// An empty vector with room for `len` items, or a message saying what
/// needed them (`what` names the option: "--keys 268435456").
pub fn room<T>(len: usize, what: &str) -> Result<Vec<T>, String> {
    let mut buffer = Vec::new();
    buffer.try_reserve_exact(len).map_err(|_| {
        let bytes = len.saturating_mul(size_of::<T>());
        format!(
            "cannot allocate {bytes} bytes ({:.1} GiB) for {what}: not enough memory",
            bytes as f64 / f64::from(1 << 30)
        )
    })?;
    Ok(buffer)
}

/// `len` copies of `value`.
pub fn filled<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>, String> {
    let mut buffer = room(len, what)?;
    buffer.resize(len, value);
    Ok(buffer)
}

/// The first `len` keys of SplitMix64 from `seed`.
pub fn random_keys(seed: u64, len: usize, what: &str) -> Result<Vec<u64>, String> {
    let mut keys = room(len, what)?;
    let mut random = SplitMix64::new(seed);
    keys.extend((0..len).map(|_| random.next_u64()));
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_much_is_a_message() {
        let e = room::<u64>(usize::MAX / 8, "--keys 9").unwrap_err();
        assert!(
            e.starts_with("cannot allocate ") && e.contains("for --keys 9"),
            "{e}"
        );
        assert_eq!(random_keys(7, 10, "").unwrap(), SplitMix64::new(7).keys(10));
        assert_eq!(filled(3, 1u32, "").unwrap(), [1, 1, 1]);
    }
}

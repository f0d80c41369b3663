//! The range of every integer the command line takes, checked as clap
//! parses the value, so before anything is sized by it: a value out of its
//! range (0 where 0 means nothing, -1, 2^31 buckets, 2^64, 2^100) is a
//! usage error, exit status 2, naming the option, the value and the range
//! (`invalid value '0' for '--from <N>': must be a whole number from 1 to
//! 2147483647`). Negative numbers are read as values everywhere, so that
//! `--threads -1` is named as such, not taken for an unknown option.
//!
//! Limits that depend on what is read (replicas against a table's working
//! nodes) are checked once it is read, still before anything is sized.

/// The most threads `--threads` takes (more than any machine's cores; a
/// larger count is a typo, and the pool never runs more than the cores).
pub const MAX_THREADS: u64 = 4096;

/// The most keys a command holds in memory at once (`verify --keys`,
/// `bench --keys`): 2^28 keys are 2 GiB, with their buckets 3.
pub const MAX_MEMORY_KEYS: u64 = 1 << 28;

/// The longest line `--max-line-bytes` allows: a line is held whole.
pub const MAX_LINE_BYTES: u64 = 1 << 30;

/// The most repetitions of `bench --repeat`.
pub const MAX_REPEAT: u64 = 1000;

/// The most keys of a chunk (`--chunk-keys`, for tests).
pub const MAX_CHUNK_KEYS: u64 = 1 << 24;

/// The largest bucket count, and the most slots a table has, so the most
/// members a replica set can hold.
const MAX_BUCKETS: u64 = i32::MAX as u64;

/// `s` as a whole number from `min` to `max`, or the message clap shows
/// after the option and the value.
fn whole(s: &str, min: u64, max: u64) -> Result<u64, String> {
    s.parse::<i128>()
        .ok()
        .filter(|v| (i128::from(min)..=i128::from(max)).contains(v))
        .map(|v| v as u64)
        .ok_or_else(|| format!("must be a whole number from {min} to {max}"))
}

/// A bucket count N or M: 1 to 2^31 - 1 (said as the library says it).
pub fn bucket_count(s: &str) -> Result<i64, String> {
    whole(s, 1, MAX_BUCKETS)
        .map(|v| v as i64)
        .map_err(|e| match s.parse::<i128>() {
            Ok(_) => format!("invalid bucket count {s}: it {e}"),
            Err(_) => e,
        })
}

/// A thread count: 0 (one per core) to [`MAX_THREADS`].
pub fn threads(s: &str) -> Result<usize, String> {
    whole(s, 0, MAX_THREADS).map(|v| v as usize)
}

/// A replica count K: 1 to [`jumpshard::replicas::MAX_REPLICAS`] (what
/// the input allows is checked once it is read).
pub fn replicas(s: &str) -> Result<usize, String> {
    whole(s, 1, jumpshard::replicas::MAX_REPLICAS as u64).map(|v| v as usize)
}

/// Keys held in memory, at least `min` (0 or 1).
pub fn memory_keys(min: u64) -> impl Fn(&str) -> Result<usize, String> + Clone + Send + Sync {
    move |s| whole(s, min, MAX_MEMORY_KEYS).map(|v| v as usize)
}

/// A line limit in bytes: 1 to [`MAX_LINE_BYTES`].
pub fn line_bytes(s: &str) -> Result<usize, String> {
    whole(s, 1, MAX_LINE_BYTES).map(|v| v as usize)
}

/// Repetitions: 1 to [`MAX_REPEAT`].
pub fn repeat(s: &str) -> Result<u32, String> {
    whole(s, 1, MAX_REPEAT).map(|v| v as u32)
}

/// Keys per chunk: 1 to [`MAX_CHUNK_KEYS`].
pub fn chunk_keys(s: &str) -> Result<u32, String> {
    whole(s, 1, MAX_CHUNK_KEYS).map(|v| v as u32)
}

/// Any unsigned 64-bit value: a key, a seed, a count of generated keys
/// (which streams, so sizes nothing).
pub fn any_u64(s: &str) -> Result<u64, String> {
    whole(s, 0, u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_hold_at_their_ends() {
        assert_eq!(bucket_count("1"), Ok(1));
        assert_eq!(bucket_count("2147483647"), Ok(2147483647));
        for bad in [
            "0",
            "-1",
            "2147483648",
            "",
            "x",
            "1267650600228229401496703205376",
        ] {
            assert!(bucket_count(bad).is_err(), "{bad}");
        }
        assert_eq!(any_u64("18446744073709551615"), Ok(u64::MAX));
        assert!(any_u64("18446744073709551616").is_err());
        assert!(any_u64("-1").is_err());
        assert_eq!(threads("0"), Ok(0));
        assert!(threads("4097").is_err());
    }
}

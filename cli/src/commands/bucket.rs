//! `jumpshard bucket KEY N`: the bucket of one key.

use crate::out::stdout::Stdout;

/// Prints the bucket of `key` among `buckets`.
pub fn run(key: u64, buckets: i64) -> Result<(), String> {
    let n = jumpshard::BucketCount::try_from(buckets).map_err(|e| e.to_string())?;
    let mut out = Stdout::open()?;
    writeln!(out, "{}", jumpshard::bucket(key, n))?;
    out.finish()
}

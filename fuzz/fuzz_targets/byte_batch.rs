//! The byte-key batches (`batch_bytes`, `prehash_batch`,
//! `Memento::batch_bytes`) with arbitrary Arrow offsets, i32 and i64,
//! against a naive check: valid offsets give each string's pre-hash, Figure
//! 1 bucket and Memento bucket (after removals the input chooses, which
//! the batch resolves in rounds), invalid ones an error with the output
//! untouched.

#![no_main]
#![deny(missing_docs)]

use jumpshard::{bytes, BucketCount, Memento};
use libfuzzer_sys::fuzz_target;

/// Whether `offsets` cut `data` into `keys` strings, the naive way.
fn valid(data: &[u8], offsets: &[i64], keys: usize) -> bool {
    offsets.len() == keys + 1
        && offsets
            .iter()
            .all(|&o| o >= 0 && o as u128 <= data.len() as u128)
        && offsets.windows(2).all(|w| w[0] <= w[1])
}

fn check<O: bytes::Offset + Copy>(
    data: &[u8],
    offsets: &[O],
    wide: &[i64],
    keys: usize,
    n: BucketCount,
    memento: &Memento,
) {
    const CANARY: u32 = 0xDEAD_BEEF;
    let mut out = vec![CANARY; keys];
    let mut hashes = vec![u64::from(CANARY); keys];
    let got = jumpshard::batch_bytes(data, offsets, n, &mut out);
    let got_hashes = bytes::prehash_batch(data, offsets, &mut hashes);
    let mut resolved = vec![CANARY; keys];
    let got_resolved = memento.batch_bytes(data, offsets, &mut resolved);
    if !valid(data, wide, keys) {
        assert!(got.is_err() && got_hashes.is_err() && got_resolved.is_err());
        assert!(out.iter().all(|&b| b == CANARY), "output written on error");
        assert!(
            resolved.iter().all(|&b| b == CANARY),
            "Memento output written on error"
        );
        assert!(
            hashes.iter().all(|&h| h == u64::from(CANARY)),
            "hashes written on error"
        );
        return;
    }
    got.unwrap();
    got_hashes.unwrap();
    got_resolved.unwrap();
    for i in 0..keys {
        let s = &data[wide[i] as usize..wide[i + 1] as usize];
        let key = bytes::prehash(s);
        assert_eq!(hashes[i], key);
        let want = jumpshard::reference::jump_consistent_hash(key, n.get() as i32);
        assert_eq!(out[i] as i32, want, "string {i}");
        assert_eq!(jumpshard::bucket_bytes(s, n), out[i]);
        assert_eq!(memento.bucket_bytes(s), resolved[i], "Memento, string {i}");
    }
}

fuzz_target!(|data: &[u8]| {
    let [n0, n1, n2, n3, shape, count, rest @ ..] = data else {
        return;
    };
    let n = BucketCount::new((u32::from_le_bytes([*n0, *n1, *n2, *n3]) % 0x7FFF_FFFF) + 1).unwrap();
    // Offsets: `count` of them, each one byte (mostly valid, small) or,
    // with `shape` bit 0, eight (anything, far out of range).
    let offsets_len = usize::from(*count);
    let width = if shape & 1 == 1 { 8 } else { 1 };
    let Some((raw, strings)) = rest.split_at_checked(offsets_len * width) else {
        return;
    };
    let wide: Vec<i64> = raw
        .chunks(width)
        .map(|c| match width {
            8 => i64::from_le_bytes(c.try_into().unwrap()),
            _ => i64::from(c[0]),
        })
        .collect();
    // The key count is usually one less than the offsets, sometimes not.
    let keys = match shape >> 1 & 3 {
        0 => offsets_len,
        1 => offsets_len.saturating_sub(2),
        _ => offsets_len.saturating_sub(1),
    };
    // A Memento of up to 256 buckets with up to 31 of them removed, the
    // removed ones picked by a generator seeded from the bucket count.
    let mut memento = Memento::new(BucketCount::new(u32::from(*n0) + 1).unwrap());
    let mut pick = u32::from_le_bytes([*n0, *n1, *n2, *n3]);
    for _ in 0..shape >> 3 {
        pick = pick.wrapping_mul(0x2C9F_85A1).wrapping_add(0x6A09_E667);
        let bucket = (pick >> 16) % (u32::from(*n0) + 1);
        // Refused removals (the last working bucket, one removed twice)
        // leave it as it was.
        let _ = memento.remove(bucket);
    }
    check(strings, &wide, &wide, keys, n, &memento);
    // The same offsets as i32, where they fit.
    if let Ok(narrow) = wide
        .iter()
        .map(|&o| i32::try_from(o))
        .collect::<Result<Vec<i32>, _>>()
    {
        check(strings, &narrow, &wide, keys, n, &memento);
    }
});

//! The MementoHash authors' golden vectors (`testdata/memento/golden.txt`,
//! format in its README) replayed through the C functions: every removal,
//! restore and state, each lookup one key at a time, and the lookups of
//! each state again in one byte batch.

use super::memento::*;
use super::*;

fn hex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The lookups of one state: the keys back to back, and the answers.
#[derive(Default)]
struct Pending {
    data: Vec<u8>,
    offsets: Vec<u64>,
    want: Vec<i32>,
}

impl Pending {
    /// Checks the pending lookups in one batch, and forgets them.
    fn flush(&mut self, handle: &Handle) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let mut out = vec![UNTOUCHED; self.want.len()];
        // SAFETY: a live handle and live buffers of their stated lengths.
        let status = unsafe {
            jumpshard_memento_batch_bytes(
                handle.0,
                self.data.as_ptr(),
                self.data.len(),
                self.offsets.as_ptr(),
                self.offsets.len(),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        assert_eq!(status, OK);
        assert_eq!(out, self.want);
        *self = Pending::default();
    }
}

#[test]
fn golden_vectors_of_the_authors_engine_through_the_c_abi() {
    let text = include_str!("../../../testdata/memento/golden.txt");
    let mut handle: Option<Handle> = None;
    let mut pending = Pending::default();
    let (mut scenarios, mut lookups) = (0, 0);
    for (i, line) in text.lines().enumerate() {
        let at = || format!("golden.txt line {}: {line}", i + 1);
        let words: Vec<&str> = line.split_whitespace().collect();
        // Each state's lookups in one batch, before the state changes.
        if words.first() != Some(&"lookup") {
            if let Some(h) = &handle {
                pending.flush(h);
            }
        }
        match words.as_slice() {
            [] => {}
            [w, ..] if w.starts_with('#') => {}
            ["scenario", n] => {
                handle = Some(Handle::new(n.parse().unwrap()));
                scenarios += 1;
            }
            ["remove", b] => {
                let status = handle.as_ref().unwrap().remove(b.parse().unwrap());
                assert_eq!(status, OK, "{}", at());
            }
            ["add", "->", b] => {
                let got = handle.as_ref().unwrap().restore();
                assert_eq!(got, Ok(b.parse().unwrap()), "{}", at());
            }
            ["state", "size", w, "barray", n] => {
                let h = handle.as_ref().unwrap();
                assert_eq!(h.working(), w.parse::<i32>().unwrap(), "{}", at());
                assert_eq!(h.barray(), n.parse::<i32>().unwrap(), "{}", at());
            }
            ["lookup", key, want] => {
                let key = hex(key);
                let want: i32 = want.parse().unwrap();
                let h = handle.as_ref().unwrap();
                let mut got = UNTOUCHED;
                // SAFETY: a live handle, a live slice and one `int32_t`.
                let status = unsafe {
                    jumpshard_memento_bucket_bytes(h.0, key.as_ptr(), key.len(), &mut got)
                };
                assert_eq!((status, got), (OK, want), "{}", at());
                if pending.offsets.is_empty() {
                    pending.offsets.push(0);
                }
                pending.data.extend(&key);
                pending.offsets.push(pending.data.len() as u64);
                pending.want.push(want);
                lookups += 1;
            }
            _ => panic!("unknown record: {}", at()),
        }
    }
    if let Some(h) = &handle {
        pending.flush(h);
    }
    assert!(
        scenarios >= 8 && lookups >= 1000,
        "{scenarios} scenarios, {lookups} lookups"
    );
}

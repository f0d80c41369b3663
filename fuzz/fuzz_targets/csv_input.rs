//! Keys from a CSV column through the streaming engine's public reader
//! (`KeyOptions::open` with `--key-format csv`), with and without a header
//! line, by name and by index: errors are messages, never panics, and every
//! key read is written in the input as decimal digits (once quotes and
//! spaces, which a field's digits may be split by, are left out).
//!
//! Input layout: a selector (header or not, the column by name or index),
//! then the CSV text.

#![no_main]
#![deny(missing_docs)]

use jumpshard_stream::{KeyFormat, KeyOptions, Source};
use libfuzzer_sys::fuzz_target;

/// A file of this process's own, rewritten for each input.
fn scratch() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("jumpshard-fuzz-{}.csv", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let [select, input @ ..] = data else {
        return;
    };
    let path = scratch();
    std::fs::write(&path, input).unwrap();
    let header = select & 1 == 0;
    let column = match select >> 1 & 3 {
        0 => "k".to_string(),
        1 => "0".to_string(),
        n => (n - 1).to_string(),
    };
    let options = KeyOptions {
        path: Some(path),
        format: KeyFormat::Csv,
        column: Some(column),
        header,
        ..KeyOptions::default()
    };
    let digits: String = String::from_utf8_lossy(input)
        .chars()
        .filter(|c| *c != '"' && !c.is_whitespace())
        .collect();
    let Ok(opened) = options.open() else {
        return;
    };
    let Source::Ordered(mut keys) = opened.source else {
        panic!("CSV is read in order");
    };
    let mut chunk = Vec::new();
    let mut bytes = 0;
    let mut count = 0;
    loop {
        match keys.next_keys(1 + usize::from(*select >> 3), &mut chunk) {
            Ok(progress) => bytes += progress,
            Err(e) => {
                assert!(e.to_string().contains("line"), "{e}");
                return;
            }
        }
        if chunk.is_empty() {
            break;
        }
        count += chunk.len() as u64;
        for key in &chunk {
            assert!(digits.contains(&key.to_string()), "{key} not in the input");
        }
        assert_eq!(keys.position(), count);
    }
    assert!(bytes <= input.len() as u64);
});

//! `--key-format auto`'s detector (`jumpshard_stream::detect`) over
//! random bytes, text in every Unicode encoding with its byte order mark,
//! UTF-16 text without one, and data behind every compression magic, under
//! every kind of name: an answer, never a panic; marked or UTF-16 text and
//! compressed data are never u64le keys, and compressed data is refused
//! whatever the name.
//!
//! Input layout: a selector (what to make of the rest, and the name),
//! then the bytes.

#![no_main]
#![deny(missing_docs)]

use std::path::Path;

use jumpshard_stream::{detect, looks_like_text, not_keys, KeyFormat, SNIFF_BYTES};
use libfuzzer_sys::fuzz_target;

/// The names an input is detected under: standard input and files.
const PATHS: [Option<&str>; 4] = [None, Some("k.bin"), Some("k.csv"), Some("k.parquet")];

/// The compression magics; `bits` sets gzip's flags and bzip2's block size.
fn magic(which: u8, bits: u8) -> Vec<u8> {
    match which % 6 {
        0 => vec![0x1F, 0x8B, 0x08, bits & 0x1F],
        1 => vec![0x28, 0xB5, 0x2F, 0xFD],
        2 => vec![0xFD, b'7', b'z', b'X', b'Z', 0x00],
        3 => vec![b'B', b'Z', b'h', b'1' + bits % 9],
        4 => vec![0x04, 0x22, 0x4D, 0x18],
        _ => b"PK\x03\x04".to_vec(),
    }
}

/// `text` with a byte order mark, in encoding `which`: UTF-8, UTF-16LE,
/// UTF-16BE, UTF-32LE, UTF-32BE.
fn marked(which: u8, text: &str) -> Vec<u8> {
    let text = format!("\u{feff}{text}");
    match which % 5 {
        0 => text.into_bytes(),
        1 => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        2 => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        3 => text.chars().flat_map(|c| (c as u32).to_le_bytes()).collect(),
        _ => text.chars().flat_map(|c| (c as u32).to_be_bytes()).collect(),
    }
}

/// `detect` on the first [`SNIFF_BYTES`] of `data`, as the readers call it.
fn detected(path: Option<&str>, data: &[u8]) -> Result<KeyFormat, jumpshard_stream::Error> {
    let prefix = &data[..data.len().min(SNIFF_BYTES)];
    let format = detect("in", path.map(Path::new), prefix);
    if let Err(e) = &format {
        assert!(!e.to_string().is_empty());
    }
    format
}

fuzz_target!(|data: &[u8]| {
    let [select, rest @ ..] = data else {
        return;
    };
    let path = PATHS[usize::from(select & 3)];
    // Random bytes: any answer, and the recogniser agrees with itself.
    let _ = detected(path, rest);
    let _ = not_keys::recognise(&rest[..rest.len().min(SNIFF_BYTES)]);
    let _ = looks_like_text(&rest[..rest.len().min(SNIFF_BYTES)]);
    // Text as the readers' text formats take it: no NUL nor control
    // character but tab, line feed, form feed and carriage return.
    let text: String = String::from_utf8_lossy(rest)
        .chars()
        .filter(|&c| !c.is_control() || matches!(c, '\t' | '\n' | '\x0C' | '\r'))
        .collect();
    match select >> 2 & 3 {
        0 => {}
        1 => {
            let input = marked(select >> 4, &text);
            let got = detected(path, &input);
            assert!(!matches!(got, Ok(KeyFormat::U64le)), "{input:?}");
        }
        2 => {
            let input = [magic(select >> 4, rest.first().copied().unwrap_or(0)), rest.to_vec()].concat();
            let got = detected(path, &input);
            assert!(got.is_err(), "{:?}: {got:?}", &input[..8.min(input.len())]);
        }
        _ => {
            // UTF-16 without a mark: ASCII text, a line end first.
            let ascii: String = text.chars().filter(char::is_ascii).collect();
            let text = format!("\n{ascii}");
            let input: Vec<u8> = match select >> 4 & 1 {
                0 => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
                _ => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            };
            let got = detected(path, &input);
            assert!(got.is_err(), "{input:?}: {got:?}");
        }
    }
});

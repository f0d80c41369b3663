//! Properties of `--key-format auto`'s detection: text in any Unicode
//! encoding with its byte order mark, and data behind any compression
//! magic, is never read as u64le keys, whatever the file's name; any input
//! gets an answer, never a panic; and a run of random keys is u64le.

use std::path::Path;

use jumpshard_stream::{detect, KeyFormat, SNIFF_BYTES};
use proptest::prelude::*;

/// The names an input is detected under: standard input, files.
const PATHS: [Option<&str>; 4] = [None, Some("k.bin"), Some("k.csv"), Some("k.parquet")];

/// `detect` on the first [`SNIFF_BYTES`] of `data`, as the readers call it.
fn detected(path: Option<&str>, data: &[u8]) -> Result<KeyFormat, jumpshard_stream::Error> {
    let prefix = &data[..data.len().min(SNIFF_BYTES)];
    detect("in", path.map(Path::new), prefix)
}

/// `text` with a byte order mark, in each Unicode encoding.
fn marked(text: &str) -> Vec<Vec<u8>> {
    let text = format!("\u{feff}{text}");
    let utf16 = |le: bool| {
        text.encode_utf16()
            .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
            .collect()
    };
    let utf32 = |le: bool| {
        text.chars()
            .flat_map(|c| {
                if le {
                    (c as u32).to_le_bytes()
                } else {
                    (c as u32).to_be_bytes()
                }
            })
            .collect()
    };
    vec![
        text.as_bytes().to_vec(),
        utf16(true),
        utf16(false),
        utf32(true),
        utf32(false),
    ]
}

/// The compression magics, the variable bits of gzip's set from `bits`.
fn compressed(bits: u8, rest: &[u8]) -> Vec<Vec<u8>> {
    let magics: [&[u8]; 6] = [
        &[0x1F, 0x8B, 0x08, bits & 0x1F],
        &[0x28, 0xB5, 0x2F, 0xFD],
        &[0xFD, b'7', b'z', b'X', b'Z', 0x00],
        &[b'B', b'Z', b'h', b'1' + bits % 9],
        &[0x04, 0x22, 0x4D, 0x18],
        b"PK\x03\x04",
    ];
    magics.iter().map(|m| [m, rest].concat()).collect()
}

proptest! {
    #[test]
    fn marked_text_is_never_keys(text in "[^\\p{Cc}]*(\n[^\\p{Cc}]*){0,40}") {
        for data in marked(&text) {
            for path in PATHS {
                let got = detected(path, &data);
                prop_assert!(!matches!(got, Ok(KeyFormat::U64le)), "{:?} {:?}", path, data);
            }
        }
    }

    #[test]
    fn compressed_data_is_never_keys(bits: u8, rest in proptest::collection::vec(any::<u8>(), 0..600)) {
        for data in compressed(bits, &rest) {
            for path in PATHS {
                let got = detected(path, &data);
                prop_assert!(got.is_err(), "{:?} {:?}: {:?}", path, &data[..8], got);
            }
        }
    }

    #[test]
    fn any_input_gets_an_answer(data in proptest::collection::vec(any::<u8>(), 0..5000)) {
        for path in PATHS {
            let _ = detected(path, &data);
        }
    }

    #[test]
    fn random_keys_are_u64le(keys in proptest::collection::vec(any::<u64>(), 64..600)) {
        let data: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
        prop_assert_eq!(detected(Some("k.bin"), &data).ok(), Some(KeyFormat::U64le));
        prop_assert_eq!(detected(None, &data).ok(), Some(KeyFormat::U64le));
    }
}

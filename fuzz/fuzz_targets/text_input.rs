//! The streaming engine's input blocks and decoders (decimal, bytes with CRLF and cut
//! lines, u64le) against a naive line splitter over the whole input.
//!
//! Input layout: format selector, block size, line bound, largest read,
//! then the input itself. Reads are cut short at arbitrary points, as a
//! pipe cuts them.

#![no_main]
#![deny(missing_docs)]

use std::io::Read;

use jumpshard_stream::sequential::{decode, Block, Sequential, SequentialFormat as KeyFormat};
use libfuzzer_sys::fuzz_target;

/// A reader that returns at most `step` bytes per read.
struct Trickle {
    data: Vec<u8>,
    at: usize,
    step: usize,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = &self.data[self.at..];
        let n = buf.len().min(self.step).min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// The keys, or the number of the first bad line (0 for a u64le file that
/// is not whole keys).
fn naive(input: &[u8], format: KeyFormat, limit: usize) -> Result<Vec<u64>, u64> {
    if format == KeyFormat::U64le {
        if !input.len().is_multiple_of(8) {
            return Err(0);
        }
        return Ok(input
            .chunks(8)
            .map(|k| u64::from_le_bytes(k.try_into().unwrap()))
            .collect());
    }
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    // A last `\n` ends the last line; it starts no empty one.
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    // A `\r` is dropped only with the `\n` after it: a last line without
    // `\n` keeps it.
    let unterminated = !input.is_empty() && !input.ends_with(b"\n");
    let count = lines.len();
    let mut keys = Vec::new();
    for (i, line) in lines.into_iter().enumerate() {
        let number = i as u64 + 1;
        let text = if unterminated && i + 1 == count {
            line
        } else {
            line.strip_suffix(b"\r").unwrap_or(line)
        };
        if text.len() > limit {
            return Err(number);
        }
        keys.push(match format {
            KeyFormat::Bytes => jumpshard::bytes::prehash(text),
            _ => {
                let digits = !text.is_empty() && text.iter().all(u8::is_ascii_digit);
                let value = std::str::from_utf8(text).ok().and_then(|t| t.parse().ok());
                match value.filter(|_| digits) {
                    Some(v) => v,
                    None => return Err(number),
                }
            }
        });
    }
    Ok(keys)
}

/// What `Sequential` and `decode` make of the input, block by block.
fn blocks(
    input: &[u8],
    format: KeyFormat,
    max: usize,
    limit: usize,
    step: usize,
) -> Result<Vec<u64>, String> {
    let mut reader = Sequential::new(
        Box::new(Trickle {
            data: input.to_vec(),
            at: 0,
            step,
        }),
        "in".into(),
        format,
    );
    if format == KeyFormat::Bytes {
        reader = reader.with_max_line_bytes(limit);
    }
    let mut block = Block::default();
    let mut keys = Vec::new();
    let mut decoded = Vec::new();
    loop {
        let (_, count) = reader
            .next_block(&mut block, max)
            .map_err(|e| e.to_string())?;
        if count == 0 {
            return Ok(keys);
        }
        decode(format, 0, "in", &block, &mut decoded).map_err(|e| e.to_string())?;
        assert_eq!(decoded.len() as u64, count, "keys counted under the lock");
        assert_eq!(block.first, keys.len() as u64, "position of the block");
        keys.extend_from_slice(&decoded);
    }
}

fuzz_target!(|data: &[u8]| {
    let [select, size, bound, step, input @ ..] = data else {
        return;
    };
    let format = [KeyFormat::Decimal, KeyFormat::Bytes, KeyFormat::U64le][*select as usize % 3];
    let max = 1 + usize::from(*size);
    // Small bounds on byte keys, so that the fuzzer reaches them; decimal
    // lines have their fixed bound of 4096 bytes.
    let limit = match format {
        KeyFormat::Bytes => usize::from(*bound),
        _ => 4096,
    };
    let step = 1 + usize::from(*step);
    let got = blocks(input, format, max, limit, step);
    match (naive(input, format, limit), got) {
        (Ok(want), Ok(got)) => assert_eq!(want, got),
        (Err(0), Err(e)) => assert!(e.contains("multiple of 8"), "{e}"),
        (Err(line), Err(e)) => assert!(
            e.starts_with(&format!("in line {line}: ")),
            "line {line}: {e}"
        ),
        (want, got) => panic!("naive {want:?}, blocks {got:?}"),
    }
});

//! Inputs read front to back: a pipe, or a file in a text format. One
//! worker at a time takes the next *block* of the input (whole keys, or
//! whole lines) under a lock, which only copies bytes and counts lines;
//! the worker then decodes it (parses decimal lines, hashes byte lines)
//! after letting go of the input, so that decoding runs on every worker.
//!
//! Counting a block's lines under the lock numbers every key and line
//! before the block is decoded, so that positions and the line numbers in
//! error messages do not depend on which worker decodes what.

use std::io::Read;

use crate::decimal::{decimal_ending_at, parse_decimal};
use crate::error::Error;
use crate::newlines;

/// The formats read front to back in blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequentialFormat {
    /// 8-byte little-endian keys back to back.
    U64le,
    /// One decimal u64 per line.
    Decimal,
    /// One byte-string key per line, pre-hashed with XXH3-64.
    Bytes,
}

/// The longest decimal line read whole; `u64::MAX` has 20 digits.
const DECIMAL_LINE_LIMIT: usize = 4096;

/// The longest byte-key line by default (`--max-line-bytes` changes it):
/// a bound, so that an input without line ends (`/dev/zero`, a binary file
/// read as text) is refused instead of filling memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

/// Whole keys or whole lines of the input.
#[derive(Default)]
pub struct Block {
    /// The block's bytes.
    pub bytes: Vec<u8>,
    /// The position of the block's first key in the input, from 0; in the
    /// text formats its line number is one more.
    pub first: u64,
    /// The longest line (without its end) the decoder accepts.
    pub line_limit: usize,
}

/// The input, front to back.
pub struct Sequential {
    source: Box<dyn Read + Send>,
    name: String,
    format: SequentialFormat,
    /// The longest byte-key line accepted.
    max_line_bytes: usize,
    /// Bytes read past the last block's end: the start of its next line
    /// or key.
    carry: Vec<u8>,
    /// Keys (one per line in the text formats) in the blocks so far.
    keys: u64,
    /// Bytes read so far.
    read: u64,
    at_end: bool,
    /// The tenant seed of the byte keys' pre-hash.
    hash_seed: u64,
}

impl Sequential {
    /// Reads `source`, named `name` in messages, in `format`.
    pub fn new(source: Box<dyn Read + Send>, name: String, format: SequentialFormat) -> Sequential {
        Sequential {
            source,
            name,
            format,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            carry: Vec::new(),
            keys: 0,
            read: 0,
            at_end: false,
            hash_seed: 0,
        }
    }

    /// Accepts byte-key lines of up to `max` bytes instead of
    /// [`DEFAULT_MAX_LINE_BYTES`].
    pub fn with_max_line_bytes(mut self, max: usize) -> Sequential {
        self.max_line_bytes = max;
        self
    }

    /// The longest line (without `\n` or `\r\n`) of this format.
    fn line_limit(&self) -> usize {
        match self.format {
            SequentialFormat::U64le => usize::MAX,
            SequentialFormat::Decimal => DECIMAL_LINE_LIMIT,
            SequentialFormat::Bytes => self.max_line_bytes,
        }
    }

    /// Pre-hashes byte keys with the tenant `seed` (0: unseeded).
    pub fn with_hash_seed(mut self, seed: u64) -> Sequential {
        self.hash_seed = seed;
        self
    }

    /// The tenant seed of the byte keys' pre-hash.
    pub fn hash_seed(&self) -> u64 {
        self.hash_seed
    }

    /// The input's name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The format of its keys.
    pub fn format(&self) -> SequentialFormat {
        self.format
    }

    /// Replaces `block` with the next block of about `max` bytes, cut after
    /// the last whole key or line (a longer line is taken whole). Returns
    /// the progress made (keys for `u64le`, bytes for text) and the number
    /// of keys in the block, 0 at the end.
    pub fn next_block(&mut self, block: &mut Block, max: usize) -> Result<(u64, u64), Error> {
        let max = max.max(8);
        let bytes = &mut block.bytes;
        bytes.clear();
        bytes.append(&mut self.carry);
        block.first = self.keys;
        block.line_limit = self.line_limit();
        let mut read = 0;
        let cut = loop {
            if bytes.len() >= max || self.at_end {
                match self.boundary(bytes) {
                    _ if self.at_end => break bytes.len(),
                    Some(cut) => break cut,
                    None => {}
                }
                // One unfinished line fills the block; past the bound (and a
                // `\r` that may end it), stop here rather than read a binary
                // file, or `/dev/zero`, whole.
                if bytes.len() > block.line_limit.saturating_add(1) {
                    return Err(too_long(
                        &self.name,
                        block.first + 1,
                        self.format,
                        block.line_limit,
                    ));
                }
            }
            let start = bytes.len();
            let room = if start < max { max - start } else { max };
            // Reads until `room` bytes or the end, into spare capacity
            // without zeroing it first, and retries interrupted reads.
            let n = (&mut *self.source)
                .take(room as u64)
                .read_to_end(bytes)
                .map_err(|source| Error::Read {
                    name: self.name.clone(),
                    source,
                })?;
            read += n as u64;
            self.at_end = n < room;
        };
        self.carry.extend_from_slice(&bytes[cut..]);
        bytes.truncate(cut);
        self.read += read;
        let (keys, progress) = match self.format {
            SequentialFormat::U64le => {
                if !bytes.len().is_multiple_of(8) {
                    // Only the end of the input leaves part of a key.
                    return Err(Error::NotWholeKeys {
                        name: self.name.clone(),
                        len: self.read,
                    });
                }
                let keys = (bytes.len() / 8) as u64;
                (keys, keys)
            }
            SequentialFormat::Decimal | SequentialFormat::Bytes => {
                let ends = newlines::count(bytes);
                let unended = bytes.last().is_some_and(|&b| b != b'\n');
                (ends + u64::from(unended), read)
            }
        };
        self.keys += keys;
        Ok((progress, keys))
    }

    /// Where the last whole key or line in `bytes` ends, if any does.
    fn boundary(&self, bytes: &[u8]) -> Option<usize> {
        match self.format {
            SequentialFormat::U64le => Some(bytes.len() / 8 * 8).filter(|&cut| cut > 0),
            SequentialFormat::Decimal | SequentialFormat::Bytes => {
                memchr::memrchr(b'\n', bytes).map(|i| i + 1)
            }
        }
    }
}

/// Replaces `keys` with the keys of `block`, read from `name` in `format`.
pub fn decode(
    format: SequentialFormat,
    hash_seed: u64,
    name: &str,
    block: &Block,
    keys: &mut Vec<u64>,
) -> Result<(), Error> {
    keys.clear();
    if format == SequentialFormat::U64le {
        let whole = block.bytes.chunks_exact(8);
        keys.extend(whole.map(|k| u64::from_le_bytes(k.try_into().expect("8 bytes"))));
        return Ok(());
    }
    let bytes = &block.bytes[..];
    let mut start = 0;
    let mut line = block.first + 1;
    // Whether the last line was too long for the word-at-a-time search:
    // the next is then searched by `memchr` alone.
    let mut long = false;
    while start < bytes.len() {
        let found = match long {
            true => memchr::memchr(b'\n', &bytes[start..]).map(|i| start + i),
            false => newlines::find(bytes, start),
        };
        long = found.is_none_or(|at| at - start >= newlines::SEARCHED);
        // A `\r` goes with the `\n` after it: a last line without `\n`
        // keeps its `\r`, which is then part of the key.
        let (end, next) = match found {
            Some(at) => (
                at - usize::from(at > start && bytes[at - 1] == b'\r'),
                at + 1,
            ),
            None => (bytes.len(), bytes.len()),
        };
        if end - start > block.line_limit {
            return Err(too_long(name, line, format, block.line_limit));
        }
        let text = &bytes[start..end];
        let key = if format == SequentialFormat::Bytes {
            jumpshard::bytes::prehash_seeded(text, hash_seed)
        } else if let Some(key) = decimal_ending_at(bytes, start, end) {
            key
        } else {
            parse_decimal(text).map_err(|why| Error::BadKey {
                name: name.to_owned(),
                line,
                column: None,
                why,
            })?
        };
        keys.push(key);
        line += 1;
        start = next;
    }
    Ok(())
}

fn too_long(name: &str, line: u64, format: SequentialFormat, limit: usize) -> Error {
    Error::LineTooLong {
        name: name.to_owned(),
        line,
        limit,
        byte_key: format == SequentialFormat::Bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block of `input` in `format`, at most `max` bytes asked each.
    fn blocks(
        input: &[u8],
        format: SequentialFormat,
        max: usize,
    ) -> Result<Vec<(u64, Vec<u64>)>, String> {
        let mut reader = Sequential::new(
            Box::new(std::io::Cursor::new(input.to_vec())),
            "in".into(),
            format,
        );
        let mut block = Block::default();
        let mut out = Vec::new();
        loop {
            let (_, keys) = reader.next_block(&mut block, max)?;
            if keys == 0 {
                return Ok(out);
            }
            let mut decoded = Vec::new();
            decode(format, 0, "in", &block, &mut decoded)?;
            assert_eq!(decoded.len() as u64, keys);
            out.push((block.first + 1, decoded));
        }
    }

    #[test]
    fn blocks_end_on_whole_lines_and_count_them() {
        let text = b"1\n22\r\n333\n\n4444";
        for max in [1, 2, 3, 5, 8, 100] {
            let got = blocks(text, SequentialFormat::Bytes, max).unwrap();
            let lines: Vec<u64> = got.iter().flat_map(|(_, k)| k.clone()).collect();
            let want: Vec<u64> = ["1", "22", "333", "", "4444"]
                .iter()
                .map(|l| jumpshard::bytes::prehash(l.as_bytes()))
                .collect();
            assert_eq!(lines, want, "max {max}");
            let mut next = 1;
            for (first, keys) in &got {
                assert_eq!(*first, next);
                next += keys.len() as u64;
            }
        }
        // A final `\r` with no `\n` after it belongs to the last key.
        for max in [1, 3, 100] {
            let got = blocks(b"a\r\nc\r", SequentialFormat::Bytes, max).unwrap();
            let keys: Vec<u64> = got.iter().flat_map(|(_, k)| k.clone()).collect();
            let want = [b"a".as_slice(), b"c\r"].map(jumpshard::bytes::prehash);
            assert_eq!(keys, want, "max {max}");
        }
        let err = blocks(text, SequentialFormat::Decimal, 3).unwrap_err();
        assert_eq!(
            err,
            "in line 4: empty line where a decimal u64 key was expected"
        );
    }

    /// The lines of `text` as the format defines them, one at a time:
    /// each `\n` ends one, taking a `\r` before it along.
    fn naive_lines(text: &[u8]) -> Vec<&[u8]> {
        let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        if text.last().is_none_or(|&b| b == b'\n') {
            lines.pop();
        }
        let ended = lines.len() - usize::from(text.last().is_some_and(|&b| b != b'\n'));
        for line in &mut lines[..ended] {
            *line = line.strip_suffix(b"\r").unwrap_or(line);
        }
        lines
    }

    /// Lines of every length 0 to 100 (keys of 1 to 24 digits, with
    /// leading zeros, for decimal), `\n` or `\r\n` ended, the last ended
    /// or not, one past `u64::MAX` on odd rounds, read in
    /// blocks of every size: every line is where the word-at-a-time search
    /// finds it, and every decimal key what `parse_decimal` reads alone
    /// (most by the three-word read, whose words reach into the lines
    /// before).
    #[test]
    fn lines_and_keys_are_those_read_one_at_a_time() {
        let mut rng = jumpshard::verify::SplitMix64::new(0x11E5);
        for round in 0..40 {
            let (mut bytes, mut decimal) = (Vec::new(), Vec::new());
            for i in 0..300 {
                let end: &[u8] = if rng.next_u64().is_multiple_of(4) {
                    b"\r\n"
                } else {
                    b"\n"
                };
                let len = (rng.next_u64() % 101) as usize;
                bytes.extend(
                    (0..len).map(|_| [b'a', b'\r', b'0', 0xFF][rng.next_u64() as usize % 4]),
                );
                bytes.extend_from_slice(end);
                // 1 to 20 digits, some with leading zeros up to 24; on odd
                // rounds line 251 is past u64::MAX.
                let value = rng.next_u64() >> (rng.next_u64() % 64);
                let width = if i % 8 == 3 {
                    (rng.next_u64() % 25) as usize
                } else {
                    0
                };
                let mut key = format!("{value:0width$}").into_bytes();
                if i == 250 && round % 2 == 1 {
                    key = b"18446744073709551616".to_vec();
                }
                decimal.extend_from_slice(&key);
                decimal.extend_from_slice(end);
            }
            let cut = (rng.next_u64() % 3) as usize;
            for (format, text) in [
                (SequentialFormat::Bytes, &bytes),
                (SequentialFormat::Decimal, &decimal),
            ] {
                let text = &text[..text.len() - cut];
                let want: Vec<Result<u64, String>> = naive_lines(text)
                    .into_iter()
                    .map(|line| match format {
                        SequentialFormat::Bytes => Ok(jumpshard::bytes::prehash(line)),
                        _ => parse_decimal(line).map_err(|e| e.to_string()),
                    })
                    .collect();
                for max in [1, 7, 100, 1 << 20] {
                    let got = blocks(text, format, max);
                    let keys: Vec<u64> =
                        got.iter().flatten().flat_map(|(_, k)| k.clone()).collect();
                    let good = want.iter().take_while(|k| k.is_ok()).count();
                    assert!(good >= 250, "{format:?}: only {good} good lines");
                    let want_keys: Vec<u64> =
                        want[..good].iter().map(|k| *k.as_ref().unwrap()).collect();
                    match &want.get(good) {
                        None => assert_eq!(keys, want_keys, "{format:?}, max {max}"),
                        Some(Err(why)) => {
                            let err = got.unwrap_err();
                            assert!(err.ends_with(why.as_str()), "{err} / {why}");
                            assert!(err.contains(&format!("line {}:", good + 1)), "{err}");
                        }
                        Some(Ok(_)) => unreachable!(),
                    }
                }
            }
        }
    }

    #[test]
    fn u64le_blocks_hold_whole_keys() {
        let keys: Vec<u64> = (1..=10).collect();
        let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
        for max in [1, 8, 9, 24, 1000] {
            let got: Vec<u64> = blocks(&bytes, SequentialFormat::U64le, max)
                .unwrap()
                .into_iter()
                .flat_map(|(_, k)| k)
                .collect();
            assert_eq!(got, keys, "max {max}");
        }
        let err = blocks(&bytes[..77], SequentialFormat::U64le, 16).unwrap_err();
        assert!(
            err.contains("77 bytes") && err.contains("multiple of 8"),
            "{err}"
        );
    }

    #[test]
    fn a_long_decimal_line_stops_the_read_early() {
        let mut input = b"7\n".to_vec();
        input.extend(std::iter::repeat_n(b'1', 1 << 20));
        let err = blocks(&input, SequentialFormat::Decimal, 1 << 16).unwrap_err();
        assert!(
            err.contains("line 2") && err.contains("longer than 4096"),
            "{err}"
        );
        // Byte keys may be long.
        let got = blocks(&input, SequentialFormat::Bytes, 1 << 16).unwrap();
        assert_eq!(got.iter().map(|(_, k)| k.len()).sum::<usize>(), 2);
    }
}

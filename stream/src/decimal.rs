//! Decimal keys: one u64 per line (or CSV field), digits only, parsed
//! eight digits at a time.

use std::fmt;

/// Why a line (or field) is not a decimal u64 key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadDecimal {
    /// Nothing where a key was expected.
    Empty,
    /// Digits beyond `u64::MAX` (the text, shortened).
    OutOfRange(String),
    /// Something other than digits (the text, shortened).
    NotDecimal(String),
}

impl fmt::Display for BadDecimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadDecimal::Empty => f.write_str("empty line where a decimal u64 key was expected"),
            BadDecimal::OutOfRange(text) => write!(
                f,
                "{text} is out of range for a u64 key (0 to {})",
                u64::MAX
            ),
            BadDecimal::NotDecimal(text) => write!(f, "{text:?} is not a decimal u64 key"),
        }
    }
}

impl std::error::Error for BadDecimal {}

/// One decimal key (the line without its end), or why not: digits only,
/// no sign, no spaces, at most `u64::MAX`.
///
/// ```
/// use jumpshard_stream::{parse_decimal, BadDecimal};
///
/// assert_eq!(parse_decimal(b"007"), Ok(7));
/// assert_eq!(parse_decimal(b"18446744073709551615"), Ok(u64::MAX));
/// assert_eq!(parse_decimal(b""), Err(BadDecimal::Empty));
/// assert_eq!(
///     parse_decimal(b"+1").unwrap_err().to_string(),
///     "\"+1\" is not a decimal u64 key"
/// );
/// ```
pub fn parse_decimal(line: &[u8]) -> Result<u64, BadDecimal> {
    // Up to 19 digits cannot exceed u64::MAX: no overflow check but for a
    // 20th digit.
    if !line.is_empty() && line.len() <= 20 {
        let (head, last) = line.split_at(line.len().min(19));
        let value = digits(head).and_then(|value| match last {
            [] => Some(value),
            [b] if b.is_ascii_digit() => value.checked_mul(10)?.checked_add(u64::from(b - b'0')),
            _ => None,
        });
        if let Some(value) = value {
            return Ok(value);
        }
    }
    if line.is_empty() {
        return Err(BadDecimal::Empty);
    }
    let text = String::from_utf8_lossy(line);
    if line.iter().all(u8::is_ascii_digit) {
        return text
            .parse()
            .map_err(|_| BadDecimal::OutOfRange(shorten(&text)));
    }
    Err(BadDecimal::NotDecimal(shorten(&text)))
}

/// The value of at most 19 ASCII digits, `None` if any byte is not one.
/// Eight digits at a time: one digit per step would make a chain of 19
/// dependent multiply-adds, the bulk of a decimal key's cost.
fn digits(text: &[u8]) -> Option<u64> {
    debug_assert!(text.len() <= 19);
    let mut value = 0u64;
    let mut groups = text.chunks_exact(8);
    for group in &mut groups {
        value = value * 100_000_000 + eight_digits(group.try_into().expect("8 bytes"))?;
    }
    for &b in groups.remainder() {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u64::from(b - b'0');
    }
    Some(value)
}

/// The key `bytes[start..end]` when it is 1 to 20 digits at most
/// `u64::MAX` and `end` is at least 24, read as the three 8-byte words
/// ending at `end`, the bytes in them before `start` taken as zeros: no
/// loop and no branch per digit, where [`parse_decimal`] branches on the
/// length of each line. `None` otherwise, for [`parse_decimal`] to answer.
#[inline]
pub(crate) fn decimal_ending_at(bytes: &[u8], start: usize, end: usize) -> Option<u64> {
    if !(1..=20).contains(&end.wrapping_sub(start)) || end < 24 || end > bytes.len() {
        return None;
    }
    let group = |at: usize| {
        let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        // The low bytes come first: those before `start` become '0'.
        let before = start.saturating_sub(at).min(8) as u32;
        let keep = u64::MAX.checked_shl(8 * before).unwrap_or(0);
        eight_digits_word(word & keep | ZEROS & !keep)
    };
    let (high, middle, low) = (group(end - 24)?, group(end - 16)?, group(end - 8)?);
    high.checked_mul(10_000_000_000_000_000)?
        .checked_add(middle * 100_000_000 + low)
}

/// Eight ASCII zeros in a little-endian word.
const ZEROS: u64 = 0x3030_3030_3030_3030;

/// The value of 8 ASCII digits, the first in the lowest byte of a
/// little-endian word, combined in three multiply steps (pairs, quads,
/// the whole), or `None` if any byte is not a digit.
fn eight_digits(text: [u8; 8]) -> Option<u64> {
    eight_digits_word(u64::from_le_bytes(text))
}

/// [`eight_digits`] of the bytes of `word`, the first the lowest.
#[inline]
fn eight_digits_word(word: u64) -> Option<u64> {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    // '0'..='9' are 0x30..=0x39: a high nibble of 3 that adding 6 keeps.
    if word & HIGH != ZEROS || word.wrapping_add(0x0606_0606_0606_0606) & HIGH != ZEROS {
        return None;
    }
    let v = word - ZEROS;
    let pairs = (v * 10 + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let quads = (pairs * 100 + (pairs >> 16)) & 0x0000_FFFF_0000_FFFF;
    Some((quads * 10_000 + (quads >> 32)) & 0xFFFF_FFFF)
}

/// At most 40 characters of a bad line, so that a binary file fed as text
/// does not flood the terminal.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_strict() {
        assert_eq!(parse_decimal(b"0"), Ok(0));
        assert_eq!(parse_decimal(b"007"), Ok(7));
        assert_eq!(
            parse_decimal(b"9999999999999999999"),
            Ok(9_999_999_999_999_999_999)
        );
        assert_eq!(parse_decimal(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_decimal(b"10000000000000000000"),
            Ok(10_000_000_000_000_000_000)
        );
        assert_eq!(parse_decimal(b"00000000000000000001"), Ok(1));
        for bad in [
            &b"1844674407370955161x"[..],
            b"x8446744073709551615",
            b"99999999999999999999",
        ] {
            assert!(parse_decimal(bad).is_err(), "{bad:?}");
        }
        for bad in [
            &b""[..],
            b"+1",
            b"-1",
            b" 1",
            b"1 ",
            b"0x10",
            b"1e3",
            b"\xff",
            b"1/",
            b"1:",
        ] {
            assert!(parse_decimal(bad).is_err(), "{bad:?}");
        }
        let err = parse_decimal(b"18446744073709551616").unwrap_err();
        assert!(err.to_string().contains("out of range"), "{err}");
    }

    #[test]
    fn eight_digit_groups_match_one_digit_at_a_time() {
        let mut rng = jumpshard::verify::SplitMix64::new(8);
        for _ in 0..100_000 {
            let r = rng.next_u64();
            let text: [u8; 8] = std::array::from_fn(|i| b'0' + ((r >> (8 * i)) % 10) as u8);
            let want = text.iter().fold(0, |v, &b| v * 10 + u64::from(b - b'0'));
            assert_eq!(eight_digits(text), Some(want), "{text:?}");
            let mut bad = text;
            bad[(r >> 60) as usize % 8] =
                [b'/', b':', b' ', 0xB0, 0x39 + 0x80][(r >> 61) as usize % 5];
            assert_eq!(eight_digits(bad), None, "{bad:?}");
        }
        assert_eq!(eight_digits(*b"00000000"), Some(0));
        assert_eq!(eight_digits(*b"99999999"), Some(99_999_999));
    }

    /// The three-word read against `parse_decimal` for keys of 0 to 22
    /// bytes after 0 to 30 bytes of digits (which it must not read as the
    /// key's) or other bytes: where it answers, it answers as
    /// `parse_decimal`, and for every key of 1 to 20 digits at most
    /// `u64::MAX` ending 24 bytes or more into the buffer, it answers.
    #[test]
    fn the_three_word_read_is_parse_decimal() {
        let mut rng = jumpshard::verify::SplitMix64::new(0xDEC);
        let edges: Vec<String> = (0..=20u32)
            .flat_map(|p| {
                let ten = 10u128.pow(p);
                [ten - 1, ten, ten + 1]
            })
            .chain([
                u128::from(u64::MAX),
                u128::from(u64::MAX) + 1,
                1 << 64 | 1 << 63,
            ])
            .map(|v| v.to_string())
            .collect();
        for round in 0..200_000 {
            let len = (round % 23) as usize;
            let mut key: Vec<u8> = (0..len)
                .map(|_| b'0' + (rng.next_u64() % 10) as u8)
                .collect();
            if round % 7 == 0 {
                key = edges[(rng.next_u64() % edges.len() as u64) as usize]
                    .clone()
                    .into_bytes();
            }
            if round % 5 == 0 && !key.is_empty() {
                let at = (rng.next_u64() % key.len() as u64) as usize;
                key[at] = [b'/', b':', b' ', b'\r', 0xB0, b'a'][(rng.next_u64() % 6) as usize];
            }
            let before = (rng.next_u64() % 31) as usize;
            let fill = [b'9', b'0', b'\n', 0xFF][(round / 23 % 4) as usize];
            let mut bytes = vec![fill; before];
            bytes.extend_from_slice(&key);
            bytes.extend(std::iter::repeat_n(b'7', (rng.next_u64() % 9) as usize));
            let (start, end) = (before, before + key.len());
            let want = parse_decimal(&key);
            match decimal_ending_at(&bytes, start, end) {
                Some(got) => assert_eq!(Ok(got), want, "{:?}", String::from_utf8_lossy(&key)),
                None => assert!(
                    want.is_err() || end < 24 || key.len() > 20,
                    "{:?} after {before} bytes",
                    String::from_utf8_lossy(&key)
                ),
            }
        }
    }

    #[test]
    fn long_bad_lines_are_shortened() {
        let err = parse_decimal(&[b'x'; 1000]).unwrap_err().to_string();
        assert!(err.len() < 80, "{err}");
    }
}

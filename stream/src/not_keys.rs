//! Inputs that are recognisably not raw u64le keys, which
//! `--key-format auto` refuses instead of reading 8 bytes at a time:
//! compressed files (by their magic bytes), Unicode text with a byte order
//! mark, UTF-16 text without one, and text in a single-byte encoding such
//! as Latin-1. UTF-8 text without a mark is [`crate::looks_like_text`]'s.
//!
//! Each test asks for more than a two-byte signature where raw keys could
//! hold it by chance (one file of random keys in 65536 starts with `FF
//! FE`): the gzip header's method and reserved bits, a byte order mark
//! followed by text in its encoding (no NUL, no control character but
//! tab, line feed, form feed and carriage return), UTF-16 without a mark
//! only with a line end and mostly ASCII characters. On a few kilobytes
//! of random keys every test fails; on one or two keys it rarely holds,
//! and the message says how to read such a file as keys all the same.

use std::fmt;

/// A compressed format, told by its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// gzip (`1F 8B`, deflate).
    Gzip,
    /// Zstandard (`28 B5 2F FD`).
    Zstd,
    /// xz (`FD 37 7A 58 5A 00`).
    Xz,
    /// bzip2 (`BZh` and a block size digit).
    Bzip2,
    /// LZ4 frame (`04 22 4D 18`).
    Lz4,
    /// A zip archive (`PK 03 04`).
    Zip,
}

impl Compression {
    /// The format's name and a command that writes the decompressed bytes
    /// of FILE to standard output.
    fn name_and_tool(self) -> (&'static str, &'static str) {
        match self {
            Compression::Gzip => ("gzip", "gzip -dc"),
            Compression::Zstd => ("zstd", "zstd -dc"),
            Compression::Xz => ("xz", "xz -dc"),
            Compression::Bzip2 => ("bzip2", "bzip2 -dc"),
            Compression::Lz4 => ("LZ4", "lz4 -dc"),
            Compression::Zip => ("zip", "unzip -p"),
        }
    }
}

/// A Unicode encoding of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// UTF-8.
    Utf8,
    /// UTF-16, little-endian.
    Utf16Le,
    /// UTF-16, big-endian.
    Utf16Be,
    /// UTF-32, little-endian.
    Utf32Le,
    /// UTF-32, big-endian.
    Utf32Be,
}

impl Encoding {
    fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16Le => "UTF-16LE",
            Encoding::Utf16Be => "UTF-16BE",
            Encoding::Utf32Le => "UTF-32LE",
            Encoding::Utf32Be => "UTF-32BE",
        }
    }
}

/// What an input that is not raw keys looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Looks {
    /// Compressed data.
    Compressed(Compression),
    /// Unicode text, starting with a byte order mark (`bom`) or, for
    /// UTF-16, recognised without one.
    Unicode {
        /// Its encoding.
        encoding: Encoding,
        /// Whether it starts with a byte order mark.
        bom: bool,
    },
    /// Text in a single-byte encoding (Latin-1, Windows-1252): not UTF-8,
    /// mostly ASCII, with line ends.
    SingleByte,
}

impl Looks {
    /// Whether `--key-format csv` reads such an input as it is: the CSV
    /// reader drops a UTF-8 byte order mark and reads the decimal keys of
    /// a file whose other columns hold Latin-1 text.
    pub fn read_as_csv(self) -> bool {
        matches!(
            self,
            Looks::SingleByte
                | Looks::Unicode {
                    encoding: Encoding::Utf8,
                    ..
                }
        )
    }

    /// The message for the input `name`: what it looks like and what to
    /// give instead.
    pub(crate) fn describe(self, f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
        let formats = "--key-format decimal (one decimal key per line), --key-format bytes (each \
                       line hashed as a byte-string key) or --key-format csv --column NAME|INDEX";
        match self {
            Looks::Compressed(c) => {
                let (format, tool) = c.name_and_tool();
                // Standard input has no name to give the tool: its file does.
                let file = match name {
                    "standard input" => "FILE",
                    name => name,
                };
                write!(
                    f,
                    "{name} looks {format}-compressed (it starts with {format}'s magic bytes), \
                     not like u64le keys; jumpshard reads keys uncompressed: decompress it \
                     first, for instance `{tool} {file} | jumpshard ...` with `-` (standard \
                     input) as the input"
                )?;
            }
            Looks::Unicode {
                encoding: Encoding::Utf8,
                ..
            } => write!(
                f,
                "{name} looks like UTF-8 text starting with a byte order mark, not like u64le \
                 keys: --key-format csv --column NAME|INDEX reads it (the mark dropped); for \
                 --key-format decimal or bytes, remove the mark first (for instance `sed \
                 '1s/^\\xEF\\xBB\\xBF//'`)"
            )?,
            Looks::Unicode { encoding, bom } => {
                let mark = if bom { ", with a byte order mark" } else { "" };
                write!(
                    f,
                    "{name} looks like {} text{mark}, not like u64le keys; jumpshard reads \
                     text in UTF-8: convert it first (for instance `iconv -f {} -t UTF-8`), \
                     then give {formats}",
                    encoding.name(),
                    encoding.name(),
                )?;
            }
            Looks::SingleByte => write!(
                f,
                "{name} looks like text in a single-byte encoding such as Latin-1 (bytes above \
                 0x7F that are not UTF-8), not like u64le keys: --key-format bytes reads each \
                 line's bytes as they are, --key-format csv --column NAME|INDEX a column of \
                 decimal keys; or convert it to UTF-8 first (`iconv -f LATIN1 -t UTF-8`)"
            )?,
        }
        f.write_str("; if it does hold raw keys, say so with --key-format u64le")
    }
}

/// What `prefix`, the first bytes of an input (up to
/// [`crate::SNIFF_BYTES`], fewer only at its end), looks like, if it is
/// recognisably not raw u64le keys.
///
/// ```
/// use jumpshard_stream::not_keys::{recognise, Compression, Encoding, Looks};
///
/// assert_eq!(
///     recognise(b"\x1f\x8b\x08\x00\x00\x00\x00\x00"),
///     Some(Looks::Compressed(Compression::Gzip))
/// );
/// let utf16: Vec<u8> = "\u{feff}1\n2\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
/// assert_eq!(
///     recognise(&utf16),
///     Some(Looks::Unicode { encoding: Encoding::Utf16Le, bom: true })
/// );
/// assert_eq!(recognise(&7u64.to_le_bytes()), None);
/// ```
pub fn recognise(prefix: &[u8]) -> Option<Looks> {
    if let Some(c) = compression(prefix) {
        return Some(Looks::Compressed(c));
    }
    if let Some(encoding) = marked(prefix) {
        return Some(Looks::Unicode {
            encoding,
            bom: true,
        });
    }
    for encoding in [Encoding::Utf16Le, Encoding::Utf16Be] {
        if let Some(chars) = decode(prefix, encoding) {
            let ascii = chars.iter().filter(|c| c.is_ascii()).count();
            if chars.contains(&'\n') && ascii * 2 >= chars.len() {
                return Some(Looks::Unicode {
                    encoding,
                    bom: false,
                });
            }
        }
    }
    single_byte(prefix).then_some(Looks::SingleByte)
}

fn compression(prefix: &[u8]) -> Option<Compression> {
    Some(match prefix {
        // Method 8 (deflate, the only one defined), reserved flags 0.
        [0x1F, 0x8B, 0x08, flags, ..] if flags & 0xE0 == 0 => Compression::Gzip,
        [0x28, 0xB5, 0x2F, 0xFD, ..] => Compression::Zstd,
        [0xFD, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Xz,
        [b'B', b'Z', b'h', b'1'..=b'9', ..] => Compression::Bzip2,
        [0x04, 0x22, 0x4D, 0x18, ..] => Compression::Lz4,
        [b'P', b'K', 0x03, 0x04, ..] => Compression::Zip,
        _ => return None,
    })
}

/// The encoding whose byte order mark starts `prefix`, if text in that
/// encoding follows it.
fn marked(prefix: &[u8]) -> Option<Encoding> {
    let marks: [(&[u8], Encoding); 5] = [
        // UTF-32LE's mark starts with UTF-16LE's: tried first.
        (&[0xFF, 0xFE, 0x00, 0x00], Encoding::Utf32Le),
        (&[0x00, 0x00, 0xFE, 0xFF], Encoding::Utf32Be),
        (&[0xEF, 0xBB, 0xBF], Encoding::Utf8),
        (&[0xFF, 0xFE], Encoding::Utf16Le),
        (&[0xFE, 0xFF], Encoding::Utf16Be),
    ];
    marks.into_iter().find_map(|(mark, encoding)| {
        let text = prefix.strip_prefix(mark)?;
        decode(text, encoding).map(|_| encoding)
    })
}

/// Whether `c` is found in text: not NUL nor a control character but
/// tab, line feed, form feed and carriage return.
fn textual(c: char) -> bool {
    !c.is_control() || matches!(c, '\t' | '\n' | '\x0C' | '\r')
}

/// The characters of `bytes` in `encoding`, if they are text: valid but
/// for a character cut by the end, every character [`textual`].
fn decode(bytes: &[u8], encoding: Encoding) -> Option<Vec<char>> {
    let chars: Vec<char> = match encoding {
        Encoding::Utf8 => {
            let valid = match std::str::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) if e.error_len().is_none() => {
                    std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?
                }
                Err(_) => return None,
            };
            valid.chars().collect()
        }
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let units = bytes.chunks_exact(2).map(|u| match encoding {
                Encoding::Utf16Le => u16::from_le_bytes([u[0], u[1]]),
                _ => u16::from_be_bytes([u[0], u[1]]),
            });
            let mut chars = Vec::with_capacity(bytes.len() / 2);
            let mut decoded = char::decode_utf16(units).peekable();
            while let Some(c) = decoded.next() {
                match c {
                    Ok(c) => chars.push(c),
                    // A high surrogate whose pair the end cut off.
                    Err(e)
                        if decoded.peek().is_none()
                            && (0xD800..0xDC00).contains(&e.unpaired_surrogate()) => {}
                    Err(_) => return None,
                }
            }
            chars
        }
        Encoding::Utf32Le | Encoding::Utf32Be => bytes
            .chunks_exact(4)
            .map(|u| {
                let u = [u[0], u[1], u[2], u[3]];
                char::from_u32(match encoding {
                    Encoding::Utf32Le => u32::from_le_bytes(u),
                    _ => u32::from_be_bytes(u),
                })
            })
            .collect::<Option<Vec<char>>>()?,
    };
    chars.iter().all(|&c| textual(c)).then_some(chars)
}

/// Whether `prefix` looks like text in a single-byte encoding: not UTF-8,
/// with a line end, no NUL nor C0 control character but tab, line feed,
/// form feed and carriage return, no DEL, and three bytes in four ASCII.
fn single_byte(prefix: &[u8]) -> bool {
    let ascii = prefix.iter().filter(|b| b.is_ascii()).count();
    std::str::from_utf8(prefix).is_err()
        && prefix.contains(&b'\n')
        && prefix.iter().all(|&b| b >= 0x80 || textual(char::from(b)))
        && ascii * 4 >= prefix.len() * 3
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, le: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
            .collect()
    }

    #[test]
    fn each_kind_is_recognised() {
        let gzip = Looks::Compressed(Compression::Gzip);
        assert_eq!(recognise(b"\x1f\x8b\x08\x08abcd"), Some(gzip));
        // Reserved flag bits set: not gzip.
        assert_eq!(recognise(b"\x1f\x8b\x08\xe0abcd"), None);
        for (magic, c) in [
            (&b"\x28\xb5\x2f\xfdxxxx"[..], Compression::Zstd),
            (b"\xfd7zXZ\x00xx", Compression::Xz),
            (b"BZh91AY&SY", Compression::Bzip2),
            (b"\x04\x22\x4d\x18\x64\x40\xa7\x00", Compression::Lz4),
            (b"PK\x03\x04\x14\x00\x00\x00", Compression::Zip),
        ] {
            assert_eq!(recognise(magic), Some(Looks::Compressed(c)));
        }
        let text = "1\nzwölf\n\u{1F600}\n";
        let bom = |encoding| {
            Some(Looks::Unicode {
                encoding,
                bom: true,
            })
        };
        let plain = |encoding| {
            Some(Looks::Unicode {
                encoding,
                bom: false,
            })
        };
        let mut utf8 = b"\xef\xbb\xbf".to_vec();
        utf8.extend(text.as_bytes());
        assert_eq!(recognise(&utf8), bom(Encoding::Utf8));
        assert_eq!(
            recognise(&utf16(&format!("\u{feff}{text}"), true)),
            bom(Encoding::Utf16Le)
        );
        assert_eq!(
            recognise(&utf16(&format!("\u{feff}{text}"), false)),
            bom(Encoding::Utf16Be)
        );
        let utf32 = |le: bool| -> Vec<u8> {
            format!("\u{feff}{text}")
                .chars()
                .flat_map(|c| {
                    if le {
                        (c as u32).to_le_bytes()
                    } else {
                        (c as u32).to_be_bytes()
                    }
                })
                .collect()
        };
        assert_eq!(recognise(&utf32(true)), bom(Encoding::Utf32Le));
        assert_eq!(recognise(&utf32(false)), bom(Encoding::Utf32Be));
        assert_eq!(recognise(&utf16(text, true)), plain(Encoding::Utf16Le));
        assert_eq!(recognise(&utf16(text, false)), plain(Encoding::Utf16Be));
        // A surrogate pair cut by the prefix's end.
        let cut = utf16(&format!("\u{feff}{text}"), true);
        assert_eq!(recognise(&cut[..cut.len() - 4]), bom(Encoding::Utf16Le));
        assert_eq!(recognise(b"caf\xe9\nna\xefve\n"), Some(Looks::SingleByte));
    }

    #[test]
    fn keys_are_not_recognised() {
        // A mark followed by what is not text in its encoding.
        assert_eq!(recognise(b"\xff\xfe\x00\xd8\x00\xd8\x01\x02"), None);
        assert_eq!(recognise(&0xFEFFu64.to_le_bytes()), None);
        let keys: Vec<u8> = (1..512u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .flat_map(u64::to_le_bytes)
            .collect();
        assert_eq!(recognise(&keys), None);
        let small: Vec<u8> = (0..512u64).flat_map(u64::to_le_bytes).collect();
        assert_eq!(recognise(&small), None);
        assert_eq!(recognise(b""), None);
    }
}

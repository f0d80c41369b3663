//! Telling an input's format from the input: what `KeyFormat::Auto`
//! resolves to.
//!
//! - a directory is a Parquet dataset (checked by the caller, which sees
//!   the file system);
//! - data starting with Parquet's magic bytes `PAR1` is Parquet (refused
//!   on a stream, which the Parquet reader cannot seek);
//! - a file named `*.parquet` without the magic is refused rather than
//!   read as anything else;
//! - compressed data and UTF-16 or UTF-32 text are refused, with the
//!   step to take first ([`crate::not_keys`]);
//! - a file named `*.csv` is CSV;
//! - other text is refused with the choices named: Latin-1 text or UTF-8
//!   with a byte order mark with what reads them ([`crate::not_keys`]),
//!   UTF-8 text (with a line end, or only printable characters) with the
//!   text formats: one decimal key per line and one byte-string key per
//!   line look alike, and reading either as u64le would give garbage keys;
//! - anything else, empty input included (zero keys), is u64le.

use std::path::Path;

use crate::error::Error;
use crate::format::KeyFormat;
use crate::not_keys::recognise;

/// Bytes looked at to tell text from binary keys: enough to see a few
/// lines, few enough that a pipe's reader waits for nothing more.
pub const SNIFF_BYTES: usize = 4096;

/// The first (and last) four bytes of every Parquet file.
pub const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// The format of an input named `name`, read from `path` (`None` for
/// standard input), whose first bytes are `prefix` (up to
/// [`SNIFF_BYTES`], fewer only at its end).
///
/// ```
/// use std::path::Path;
/// use jumpshard_stream::{detect, KeyFormat};
///
/// let keys: Vec<u8> = [1u64, 2, 3].iter().flat_map(|k| k.to_le_bytes()).collect();
/// assert_eq!(detect("k.bin", Some(Path::new("k.bin")), &keys)?, KeyFormat::U64le);
/// assert_eq!(detect("k.csv", Some(Path::new("k.csv")), b"key\n1\n")?, KeyFormat::Csv);
/// let text = detect("standard input", None, b"1\n2\n3\n").unwrap_err().to_string();
/// assert!(text.contains("--key-format decimal") && text.contains("--key-format bytes"));
/// # Ok::<(), jumpshard_stream::Error>(())
/// ```
pub fn detect(name: &str, path: Option<&Path>, prefix: &[u8]) -> Result<KeyFormat, Error> {
    let extension = path.and_then(Path::extension);
    if prefix.starts_with(PARQUET_MAGIC) {
        return match path {
            Some(_) => Ok(KeyFormat::Parquet),
            None => Err(Error::ParquetFromStdin),
        };
    }
    let csv = extension.is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if let Some(looks) = recognise(prefix).filter(|l| !(csv && l.read_as_csv())) {
        return Err(Error::NotKeys {
            name: name.to_owned(),
            looks,
        });
    }
    if extension.is_some_and(|e| e.eq_ignore_ascii_case("parquet")) {
        return Err(Error::ParquetNameOnly {
            name: name.to_owned(),
        });
    }
    if csv {
        return Ok(KeyFormat::Csv);
    }
    if looks_like_text(prefix) {
        return Err(Error::LooksLikeText {
            name: name.to_owned(),
        });
    }
    Ok(KeyFormat::U64le)
}

/// Whether `prefix` (the first bytes of an input) looks like text: valid
/// UTF-8 (a character cut by the prefix's end allowed) without NUL bytes,
/// holding a line end or only printable characters (`naïve`, with no line
/// end). u64le keys almost never do: small keys have NUL bytes, large ones
/// bytes that are not UTF-8.
///
/// ```
/// use jumpshard_stream::looks_like_text;
///
/// assert!(looks_like_text(b"1\n2\n3\n"));
/// assert!(looks_like_text(b"12345678"));
/// assert!(!looks_like_text(&7u64.to_le_bytes()));
/// assert!(!looks_like_text(b""));
/// ```
pub fn looks_like_text(prefix: &[u8]) -> bool {
    if prefix.is_empty() || prefix.contains(&0) {
        return false;
    }
    let text = match std::str::from_utf8(prefix) {
        Ok(text) => text,
        // Only a character cut at the end of the prefix.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&prefix[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    prefix.contains(&b'\n')
        || text
            .chars()
            .all(|c| !c.is_control() || c == '\t' || c == '\r')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detected(path: Option<&str>, prefix: &[u8]) -> Result<KeyFormat, String> {
        detect("in", path.map(Path::new), prefix).map_err(|e| e.to_string())
    }

    #[test]
    fn magic_extension_and_content_decide() {
        assert_eq!(
            detected(Some("k.bin"), b"PAR1\x15\x04"),
            Ok(KeyFormat::Parquet)
        );
        assert_eq!(detected(Some("k"), b"PAR1"), Ok(KeyFormat::Parquet));
        assert!(detected(None, b"PAR1xxxx")
            .unwrap_err()
            .contains("standard input"));
        assert!(detected(Some("k.parquet"), &[1; 16])
            .unwrap_err()
            .contains("PAR1"));
        assert_eq!(detected(Some("K.CSV"), b"a,b\n"), Ok(KeyFormat::Csv));
        assert_eq!(detected(Some("k.bin"), b""), Ok(KeyFormat::U64le));
        assert_eq!(detected(None, &[7; 8005]), Ok(KeyFormat::U64le));
        let keys: Vec<u8> = (0..512u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .flat_map(u64::to_le_bytes)
            .collect();
        assert_eq!(detected(None, &keys), Ok(KeyFormat::U64le));
    }

    #[test]
    fn text_is_refused_with_the_choices() {
        for text in [
            &b"1\n2\n3\n4\n5\n6\n7\n8\n"[..],
            b"alpha\nbeta\n+alpha\n",
            b"caf\xc3\xa9\n",
        ] {
            let err = detected(Some("keys.txt"), text).unwrap_err();
            for choice in [
                "--key-format decimal",
                "--key-format bytes",
                "--key-format csv",
            ] {
                assert!(err.contains(choice), "{err}");
            }
        }
        // UTF-8 text without a line end.
        assert!(detected(None, "naïve café".as_bytes())
            .unwrap_err()
            .contains("looks like text"));
        // A character cut by the end of the prefix is still text.
        assert!(looks_like_text(b"x\n\xc3"));
        assert!(!looks_like_text(b"x\n\xff"));
        assert!(!looks_like_text(b"x\n\0"));
    }

    #[test]
    fn what_is_not_keys_is_refused_before_its_name_is_read() {
        let utf16: Vec<u8> = "\u{feff}1\n2\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let gzip = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03";
        for path in [None, Some("k.bin"), Some("k.csv"), Some("k.parquet")] {
            let err = detected(path, &utf16).unwrap_err();
            assert!(
                err.contains("UTF-16LE text, with a byte order mark"),
                "{err}"
            );
            assert!(err.contains("iconv -f UTF-16LE -t UTF-8"), "{err}");
            let err = detected(path, gzip).unwrap_err();
            assert!(
                err.contains("gzip-compressed") && err.contains("gzip -dc in |"),
                "{err}"
            );
        }
        // Standard input's file is not named "standard input".
        let err = detect("standard input", None, gzip)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`gzip -dc FILE | jumpshard ...`"), "{err}");
        let latin1 = b"caf\xe9\nna\xefve\n";
        let err = detected(Some("k.txt"), latin1).unwrap_err();
        assert!(
            err.contains("Latin-1") && err.contains("--key-format bytes"),
            "{err}"
        );
        // What the CSV reader reads as it is stays CSV by the name.
        assert_eq!(detected(Some("k.csv"), latin1), Ok(KeyFormat::Csv));
        assert_eq!(
            detected(Some("k.csv"), b"\xef\xbb\xbfk\n1\n"),
            Ok(KeyFormat::Csv)
        );
        let err = detected(None, b"\xef\xbb\xbf1\n2\n").unwrap_err();
        assert!(
            err.contains("byte order mark") && err.contains("--key-format csv"),
            "{err}"
        );
        assert!(err.contains("--key-format u64le"), "{err}");
    }
}

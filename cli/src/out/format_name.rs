//! The format an output file's name says it holds. A file named
//! `moves.parquet` must hold Parquet: without `--output-format`, the name
//! picks the format; with it, a name that says another format is refused
//! before anything is written, so that no command ever writes a format its
//! file's name contradicts. A name whose extension says nothing known
//! (`moves`, `moves.out`) keeps the command's default format.

use std::path::Path;

/// The extensions whose format is known, lower case, and the format each
/// names (as `--output-format` spells it where a command writes it).
const EXTENSIONS: &[(&str, &str)] = &[
    ("csv", "csv"),
    ("parquet", "parquet"),
    ("pq", "parquet"),
    ("bin", "binary"),
    ("txt", "text"),
    ("svg", "svg"),
    ("json", "JSON"),
    ("jsonl", "JSON lines"),
    ("ndjson", "JSON lines"),
    ("tsv", "TSV"),
    ("arrow", "Arrow IPC"),
    ("feather", "Arrow IPC"),
    ("orc", "ORC"),
    ("avro", "Avro"),
    ("xlsx", "Excel"),
    ("png", "PNG"),
    ("jpg", "JPEG"),
    ("jpeg", "JPEG"),
    ("gif", "GIF"),
    ("webp", "WebP"),
    ("pdf", "PDF"),
    ("html", "HTML"),
    ("gz", "gzip"),
    ("zst", "zstd"),
    ("xz", "xz"),
    ("bz2", "bzip2"),
    ("lz4", "LZ4"),
    ("zip", "zip"),
];

/// The format `path`'s extension names, if it is a known one.
pub fn named_format(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    EXTENSIONS
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|&(_, format)| format)
}

/// The format to write the output `path` of `option` in.
///
/// `given` is the format asked for (`--output-format`), if any; `offered`
/// lists what this output can be, by the format names of [`EXTENSIONS`]
/// (several names may give one format: `assign`'s text is also a valid
/// one-column CSV); `default` is today's format for names that say
/// nothing. An error, before anything is written, when the name says a
/// format that `given` contradicts or that this output cannot be.
/// Standard output (`-`) has no name to consult.
pub fn choose<T: Copy + PartialEq>(
    option: &str,
    path: &Path,
    given: Option<T>,
    offered: &[(&'static str, T)],
    default: T,
    describe: impl Fn(T) -> &'static str,
) -> Result<T, String> {
    let Some(said) = named_format(path).filter(|_| path.as_os_str() != "-") else {
        return Ok(given.unwrap_or(default));
    };
    let shown = path.display();
    let Some(&(_, by_name)) = offered.iter().find(|(name, _)| *name == said) else {
        let mut names: Vec<&str> = Vec::new();
        for (name, _) in offered {
            for (ext, format) in EXTENSIONS {
                if format == name && !names.contains(ext) {
                    names.push(ext);
                }
            }
        }
        let names: Vec<String> = names.iter().map(|e| format!(".{e}")).collect();
        return Err(format!(
            "{option} {shown}: its name says {said}, which this output is not (it can be {}); \
             name the file {} or with no such extension, so that it never holds what its name \
             denies (nothing was written)",
            or_list(offered.iter().map(|(_, t)| describe(*t))),
            names.join(", ")
        ));
    };
    match given {
        Some(asked) if asked != by_name => Err(format!(
            "{option} {shown}: its name says {said}, but --output-format {} was given; give \
             --output-format {} or a name that matches (nothing was written)",
            describe(asked),
            describe(by_name)
        )),
        _ => Ok(by_name),
    }
}

/// The outputs that always hold one format, by option: a plot is SVG, a
/// node table text.
const FIXED: &[(&str, &str)] = &[("--plot", "svg"), ("--write-table", "text")];

/// Checks that the output `path` of `option`, which is always `what`
/// (`svg`, a node table's `text`), is not named for another format.
fn check_fixed(option: &str, path: &Path, what: &'static str) -> Result<(), String> {
    choose(option, path, None, &[(what, ())], (), |_| what)
}

/// Checks each of `outputs` (an option and its path, if given) that
/// always holds one format (`--plot`, `--write-table`) against its name,
/// as every command that writes a plot or a node table does before
/// anything is read.
pub fn check_fixed_outputs(outputs: &[(&str, Option<&Path>)]) -> Result<(), String> {
    for &(option, path) in outputs {
        let fixed = FIXED.iter().find(|(name, _)| *name == option);
        if let (Some(path), Some(&(_, what))) = (path, fixed) {
            check_fixed(option, path, what)?;
        }
    }
    Ok(())
}

/// `a`, `a or b`, `a, b or c`, without repeats.
fn or_list(items: impl Iterator<Item = &'static str>) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    match seen.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => (*last).to_owned(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, PartialEq, Debug)]
    enum F {
        Csv,
        Parquet,
    }

    fn describe(f: F) -> &'static str {
        match f {
            F::Csv => "csv",
            F::Parquet => "parquet",
        }
    }

    const OFFERED: &[(&str, F)] = &[("csv", F::Csv), ("parquet", F::Parquet)];

    #[test]
    fn the_name_picks_and_refuses() {
        let pick =
            |p: &str, given| choose("--output", Path::new(p), given, OFFERED, F::Csv, describe);
        assert_eq!(pick("m.PARQUET", None), Ok(F::Parquet));
        assert_eq!(pick("m.csv", None), Ok(F::Csv));
        assert_eq!(pick("m.out", Some(F::Parquet)), Ok(F::Parquet));
        assert_eq!(pick("m", None), Ok(F::Csv));
        assert_eq!(pick("-", Some(F::Parquet)), Ok(F::Parquet));
        assert!(pick("m.parquet", Some(F::Csv))
            .unwrap_err()
            .contains("--output-format parquet"));
        assert!(pick("m.jsonl", None).unwrap_err().contains("JSON lines"));
    }
}

//! Keys from a column: `--key-format csv` (`crate::csv_keys`) and
//! `--key-format parquet` (`crate::parquet_keys`), with the checks of the
//! options that only some formats take.

use std::path::Path;

use crate::input::{Input, InputArgs, KeyFormat};

/// The input when `args` ask for a column format, after checking that
/// each option given fits the format; `None` for the other formats.
pub fn open(args: &InputArgs, path: Option<&Path>) -> Result<Option<Input>, String> {
    let format = args.key_format;
    let columns = match format {
        KeyFormat::Csv => true,
        #[cfg(feature = "parquet")]
        KeyFormat::Parquet => true,
        _ => false,
    };
    if args.hash_seed != 0 && format != KeyFormat::Bytes {
        return Err(
            "--hash-seed: only with --key-format bytes (it seeds the pre-hash of byte keys; \
             --seed is the seed of --generate)"
                .into(),
        );
    }
    if args.no_header && format != KeyFormat::Csv {
        return Err("--no-header: only with --key-format csv".into());
    }
    if !columns {
        if args.column.is_some() {
            return Err("--column: only with --key-format csv or parquet".into());
        }
        return Ok(None);
    }
    if args.generate.is_some() {
        return Err("--generate makes keys up; --key-format csv and parquet read them".into());
    }
    let Some(column) = args.column.as_deref() else {
        return Err("--key-format csv and parquet need --column, the column of the keys".into());
    };
    let path = path.filter(|p| p.as_os_str() != "-");
    match format {
        #[cfg(feature = "parquet")]
        KeyFormat::Parquet => {
            let Some(path) = path else {
                return Err("--key-format parquet reads a file or a directory of them, \
                     not standard input"
                    .into());
            };
            crate::parquet_keys::open(path, column).map(Some)
        }
        _ => crate::csv_keys::open(path, column, !args.no_header).map(Some),
    }
}

//! The scratch directory a doc's examples run in, and what its directives
//! put there before a block runs: key files (`keys`), shell set-ups
//! (`setup`) and the text of `file` blocks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, UInt64Array};
use parquet::arrow::ArrowWriter;

use crate::blocks::{Block, Directive, Kind};

/// The CLI the tests built, which examples call as `jumpshard`.
pub const BIN: &str = env!("CARGO_BIN_EXE_jumpshard");

/// One doc's scratch directory: its blocks run in order, each seeing the
/// files the earlier ones left.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("a scratch directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A shell command run in the directory, with the built CLI first on
    /// PATH as `jumpshard`.
    pub fn shell(&self, script: &str) -> Command {
        let bin_dir = Path::new(BIN).parent().expect("the CLI's directory");
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![bin_dir.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        let mut c = Command::new("sh");
        c.arg("-c").arg(script).current_dir(self.path());
        c.env("PATH", std::env::join_paths(dirs).expect("a PATH"));
        c
    }

    /// Runs the block's `keys` and `setup` directives, and writes a `file`
    /// block's text. An error names the block and what failed.
    pub fn prepare(&self, block: &Block) -> Result<(), String> {
        for d in &block.directives {
            match d.word.as_str() {
                "keys" => self
                    .keys(d)
                    .map_err(|e| format!("{}: keys: {e}", block.place()))?,
                "setup" => {
                    let script = d.body.join("\n");
                    let out = self.shell(&script).output().expect("run sh");
                    if !out.status.success() {
                        return Err(format!(
                            "{}: setup failed ({}):\n{script}\n{}{}",
                            block.place(),
                            out.status,
                            String::from_utf8_lossy(&out.stdout),
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                }
                _ => {}
            }
        }
        if let Ok(Kind::File(name)) = block.kind() {
            let mut text = block.lines.join("\n");
            text.push('\n');
            std::fs::write(self.path().join(&name), text).map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(())
    }

    /// `keys FILE FORMAT COUNT`: COUNT keys, those of `--generate COUNT`,
    /// written as FORMAT: `u64le`, `decimal`, `bytes` (lines `user:KEY`),
    /// `csv:COLUMN` or `parquet:COLUMN` (a uint64 column).
    fn keys(&self, d: &Directive) -> Result<(), String> {
        let words: Vec<&str> = d.args.split_whitespace().collect();
        let [file, format, count] = words[..] else {
            return Err(format!("`{}`: give FILE FORMAT COUNT", d.args));
        };
        let count: usize = count.parse().map_err(|e| format!("count {count}: {e}"))?;
        // The seed `--generate` uses by default, so the keys are its keys.
        let keys = jumpshard::verify::SplitMix64::new(0x6A75_6D70).keys(count);
        let path: PathBuf = self.path().join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let lines =
            |f: &dyn Fn(u64) -> String| keys.iter().map(|&k| f(k) + "\n").collect::<String>();
        let bytes: Vec<u8> = match format.split_once(':') {
            None if format == "u64le" => keys.iter().flat_map(|k| k.to_le_bytes()).collect(),
            None if format == "decimal" => lines(&|k| k.to_string()).into_bytes(),
            None if format == "bytes" => lines(&|k| format!("user:{k}")).into_bytes(),
            Some(("csv", column)) => (format!("{column}\n") + &lines(&|k| k.to_string())).into(),
            Some(("parquet", column)) => return parquet(&path, column, keys),
            _ => return Err(format!("unknown key format `{format}`")),
        };
        std::fs::write(&path, bytes).map_err(|e| format!("{file}: {e}"))
    }
}

/// `keys` as the uint64 column `column` of a Parquet file.
fn parquet(path: &Path, column: &str, keys: Vec<u64>) -> Result<(), String> {
    let array = Arc::new(UInt64Array::from(keys)) as ArrayRef;
    let batch = RecordBatch::try_from_iter([(column, array)]).map_err(|e| e.to_string())?;
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut writer = ArrowWriter::try_new(file, batch.schema(), None).map_err(|e| e.to_string())?;
    writer.write(&batch).map_err(|e| e.to_string())?;
    writer.close().map_err(|e| e.to_string())?;
    Ok(())
}

#[test]
fn file_blocks_key_files_and_set_ups_land_in_the_scratch_directory() {
    let text = "<!-- doctest: file t.txt -->\n```text\ndb-a\ndb-b\n```\n\
                <!-- doctest: keys k.u64 u64le 3 -->\n<!-- doctest: keys d/k.txt decimal 2 -->\n\
                <!-- doctest: keys k.parquet parquet:id 5 -->\n\
                <!-- doctest: setup\njumpshard bucket 7 10 > b\n-->\n```sh\ntrue\n```\n";
    let blocks = crate::blocks::parse("d.md", text).unwrap();
    let scratch = Scratch::new();
    for block in &blocks {
        scratch.prepare(block).unwrap();
    }
    let read = |name: &str| std::fs::read(scratch.path().join(name)).unwrap();
    assert_eq!(read("t.txt"), b"db-a\ndb-b\n");
    let keys = jumpshard::verify::SplitMix64::new(0x6A75_6D70).keys(3);
    assert_eq!(
        read("k.u64"),
        keys.iter()
            .flat_map(|k| k.to_le_bytes())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        read("d/k.txt"),
        format!("{}\n{}\n", keys[0], keys[1]).into_bytes()
    );
    assert_eq!(&read("k.parquet")[..4], b"PAR1");
    assert_eq!(
        read("b"),
        format!(
            "{}\n",
            jumpshard::bucket(7, jumpshard::BucketCount::new(10).unwrap())
        )
        .into_bytes()
    );
    let bad = crate::blocks::parse("d.md", "<!-- doctest: keys k x 3 -->\n```sh\ntrue\n```\n");
    assert!(scratch.prepare(&bad.unwrap()[0]).is_err());
}

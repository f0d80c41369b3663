//! Keys from a Parquet file through the streaming engine's public reader
//! (`KeyOptions::open` with `--key-format parquet`, column `k`): a
//! malformed footer, page, codec stream or type is an error, never a panic
//! nor a key count other than the footer's.
//!
//! The parquet crate itself still panics on some corrupt files (a length
//! from the file given to `Vec::with_capacity`, say); the engine contains
//! those panics and returns an error, which is what is checked here. So a
//! panic raised inside the parquet crate unwinds to the engine instead of
//! aborting, as libFuzzer's hook would; any other panic still aborts.

#![no_main]
#![deny(missing_docs)]

use std::sync::Once;

use jumpshard_stream::{KeyFormat, KeyOptions, Source};
use libfuzzer_sys::fuzz_target;

/// Lets panics raised inside the parquet crate unwind to the engine,
/// which turns them into errors; others go to libFuzzer's hook.
fn contain_parquet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // The crates' sources are named in the frames, as
            // `.../parquet-60.1.0/src/...` (and arrow-ipc's, which parquet
            // calls).
            let trace = std::backtrace::Backtrace::force_capture().to_string();
            if !trace.contains("/parquet-") && !trace.contains("/arrow-") {
                abort(info);
            }
        }));
    });
}

/// A file of this process's own, rewritten for each input.
fn scratch() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("jumpshard-fuzz-{}.parquet", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    contain_parquet_panics();
    let path = scratch();
    std::fs::write(&path, data).unwrap();
    let options = KeyOptions {
        path: Some(path),
        format: KeyFormat::Parquet,
        column: Some("k".into()),
        ..KeyOptions::default()
    };
    let Ok(opened) = options.open() else {
        return;
    };
    let Source::Pieces(pieces) = opened.source else {
        panic!("Parquet is read in pieces");
    };
    let mut keys = Vec::new();
    let mut total = 0;
    for index in 0..pieces.count() {
        match pieces.read(index, &mut keys) {
            Ok(_) => total += keys.len() as u64,
            Err(_) => return,
        }
    }
    assert_eq!(Some(total), opened.size);
});

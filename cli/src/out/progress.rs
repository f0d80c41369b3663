//! The progress bar of the streaming commands: on standard error, only
//! when it is a terminal, so that pipes, files and logs get nothing.

use std::fmt;
use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use jumpshard_stream::Unit;

/// A bar for `size` units (a spinner with a rate when the size is not
/// known), hidden unless standard error is a terminal.
pub fn bar(size: Option<u64>, unit: Unit) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let template = match (unit, size.is_some()) {
        (Unit::Keys, true) => {
            "{elapsed_precise} {wide_bar} {human_pos}/{human_len} keys {rate} ETA {eta}"
        }
        (Unit::Keys, false) => "{spinner} {elapsed_precise} {human_pos} keys {rate}",
        (Unit::Bytes, true) => {
            "{elapsed_precise} {wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}"
        }
        (Unit::Bytes, false) => "{spinner} {elapsed_precise} {bytes} {binary_bytes_per_sec}",
    };
    let bar = ProgressBar::with_draw_target(size, ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key("rate", |state: &ProgressState, w: &mut dyn fmt::Write| {
            let _ = write!(w, "{:.1} M keys/s", state.per_sec() / 1e6);
        });
    bar.set_style(style);
    bar
}

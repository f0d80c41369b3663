//! Messages on standard error.

use std::io::Write as _;

/// Says `message` on standard error, after `jumpshard: `. A standard error
/// that cannot take it (`2> /dev/full`, `2>&-`) loses the message and
/// nothing else: `eprintln!` would panic, and the command exit 101 instead
/// of its own status.
pub fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "jumpshard: {message}");
}

//! Python examples: doctests when they show `>>>` prompts, scripts
//! otherwise, run by the interpreter that has the jumpshard wheel.

use crate::blocks::Block;
use crate::scratch::Scratch;

/// The interpreter with the wheel installed: `.ci/python` names its
/// environment's in this variable.
pub const PYTHON_ENV: &str = "JUMPSHARD_DOCTEST_PYTHON";

/// Runs the block with `python`; a doctest compares every output shown
/// (`...` stands for any text, and runs of blanks compare equal).
pub fn check(python: &str, scratch: &Scratch, block: &Block) -> Result<(), String> {
    let doctest = block
        .lines
        .iter()
        .any(|l| l.trim_start().starts_with(">>> "));
    let name = format!("block{}.{}", block.line, if doctest { "txt" } else { "py" });
    let mut text = block.lines.join("\n");
    text.push('\n');
    std::fs::write(scratch.path().join(&name), &text).map_err(|e| e.to_string())?;
    let command = if doctest {
        format!("exec 2>&1; '{python}' -m doctest -o ELLIPSIS -o NORMALIZE_WHITESPACE {name}")
    } else {
        format!("exec 2>&1; '{python}' {name}")
    };
    let out = scratch
        .shell(&command)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{}: the Python example failed ({}):\n{}",
        block.place(),
        out.status,
        String::from_utf8_lossy(&out.stdout)
    ))
}

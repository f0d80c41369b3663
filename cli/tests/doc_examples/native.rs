//! C and C++ examples: compiled against include/ and the C++ wrapper;
//! given the static C library, linked with it and run.

use std::path::Path;
use std::process::Command;

use crate::blocks::Block;
use crate::scratch::Scratch;

/// The static C library to link the examples with: `.ci/consumers` names
/// the one it builds. Without it the examples are compiled, not linked.
pub const LIBRARY_ENV: &str = "JUMPSHARD_DOCTEST_CLIB";

/// The block as a source file: as written when it is a whole program;
/// with `wrap main`, inside `main` after the usual includes, or with `wrap
/// unit` at file scope after them. The directive's body is code placed
/// before the block, and after it from a line `...` on.
fn source(block: &Block, cpp: bool) -> Result<String, String> {
    let code = block.lines.join("\n");
    let Some(wrap) = block.directive("wrap") else {
        if code.contains("main(") {
            return Ok(code + "\n");
        }
        return Err(format!(
            "{}: a fragment: say how to compile it (`wrap main` or `wrap unit`)",
            block.place()
        ));
    };
    let split = wrap.body.iter().position(|l| l.trim() == "...");
    let (before, after) = match split {
        Some(at) => (&wrap.body[..at], &wrap.body[at + 1..]),
        None => (&wrap.body[..], &[][..]),
    };
    let includes = if cpp {
        "#include <cstdint>\n#include <vector>\n#include \"jumpshard.hpp\"\n"
    } else {
        "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include \"jumpshard.h\"\n"
    };
    let (before, after) = (before.join("\n"), after.join("\n"));
    match wrap.args.as_str() {
        "main" => Ok(format!(
            "{includes}int main(void) {{\n{before}\n{code}\n{after}\nreturn 0;\n}}\n"
        )),
        "unit" => Ok(format!("{includes}{before}\n{code}\n{after}\n")),
        other => Err(format!(
            "{}: `wrap {other}`: give main or unit",
            block.place()
        )),
    }
}

/// Compiles the block (warnings about unused names aside, every warning
/// is an error); links it with `library` and runs it when it has a `main`.
pub fn check(
    scratch: &Scratch,
    block: &Block,
    cpp: bool,
    library: Option<&Path>,
) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository");
    let text = source(block, cpp)?;
    let name = format!("block{}", block.line);
    let file = scratch
        .path()
        .join(format!("{name}.{}", if cpp { "cpp" } else { "c" }));
    std::fs::write(&file, &text).map_err(|e| e.to_string())?;
    let mut cc = Command::new(if cpp { "c++" } else { "cc" });
    cc.arg(if cpp { "-std=c++17" } else { "-std=c11" });
    cc.args([
        "-Wall",
        "-Werror",
        "-Wno-unused-variable",
        "-Wno-unused-but-set-variable",
    ]);
    cc.arg(format!("-I{}", root.join("include").display()));
    cc.arg(format!("-I{}", root.join("bindings/cpp").display()));
    cc.arg(&file).current_dir(scratch.path());
    let program = text.contains("main(") && library.is_some();
    if let (true, Some(library)) = (program, library) {
        // The link line docs/c-abi.md gives for the static library.
        cc.arg(library);
        cc.args([
            "-lgcc_s",
            "-lutil",
            "-lrt",
            "-lpthread",
            "-lm",
            "-ldl",
            "-lc",
            "-o",
            &name,
        ]);
    } else {
        cc.args(["-c", "-o", &format!("{name}.o")]);
    }
    let out = cc
        .output()
        .map_err(|e| format!("run the C compiler: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{}: does not compile:\n{text}\n{}",
            block.place(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if !program {
        return Ok(());
    }
    let out = Command::new(scratch.path().join(&name))
        .current_dir(scratch.path())
        .output();
    let out = out.map_err(|e| format!("run {name}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{}: the program failed ({}):\n{text}\n{}{}",
        block.place(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

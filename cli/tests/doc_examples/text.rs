//! Text blocks checked against the repository: directory trees whose
//! paths must exist, and excerpts whose lines must be in their file.

use std::path::Path;

use crate::blocks::Block;

/// A tree (`paths`): each line starts with one or more paths, separated by
/// `, `, before a description two blanks away; an indented line's paths
/// are inside the last unindented line's directory. Each must exist.
pub fn paths(root: &Path, block: &Block) -> Result<(), String> {
    let mut parent = String::new();
    for line in block.lines.iter().filter(|l| !l.trim().is_empty()) {
        let indented = line.starts_with(' ');
        let names = line.trim_start().split("  ").next().unwrap_or("");
        for name in names.split(", ").map(str::trim) {
            let path = if indented {
                format!("{parent}{name}")
            } else {
                name.to_string()
            };
            if !root.join(&path).exists() {
                return Err(format!("{}: `{path}` does not exist", block.place()));
            }
        }
        if !indented {
            parent = names.split(", ").next().unwrap_or("").trim().to_string();
        }
    }
    Ok(())
}

/// An excerpt (`excerpt FILE`): every line of the block, trimmed, is a
/// line of FILE.
pub fn excerpt(root: &Path, block: &Block, file: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(root.join(file)).map_err(|e| format!("{file}: {e}"))?;
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for line in block
        .lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
    {
        if !lines.contains(&line) {
            return Err(format!(
                "{}: `{line}` is not a line of {file}",
                block.place()
            ));
        }
    }
    Ok(())
}

#[test]
fn trees_and_excerpts_name_what_is_not_there() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let block = |lines: &[&str]| Block {
        doc: "d.md".into(),
        line: 1,
        lang: "text".into(),
        lines: lines.iter().map(|l| l.to_string()).collect(),
        directives: Vec::new(),
    };
    assert_eq!(
        paths(
            root,
            &block(&["src/    the CLI", "  main.rs, args.rs   its parts"])
        ),
        Ok(())
    );
    let missing = paths(root, &block(&["src/    the CLI", "  gone.rs   not there"]));
    assert_eq!(
        missing,
        Err("d.md:1: `src/gone.rs` does not exist".to_string())
    );
    assert_eq!(
        excerpt(
            root,
            &block(&["[[bin]]", "  name = \"jumpshard\""]),
            "Cargo.toml"
        ),
        Ok(())
    );
    assert!(excerpt(root, &block(&["name = \"other\""]), "Cargo.toml").is_err());
}

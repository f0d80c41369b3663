//! The fenced blocks of a Markdown file, with the `<!-- doctest: ... -->`
//! comments before each, and what kind of check each block gets.

use std::path::Path;

/// One `<!-- doctest: WORD ARGS` comment: its word, the rest of its first
/// line, and the lines after it up to `-->`.
#[derive(Clone, Debug)]
pub struct Directive {
    pub word: String,
    pub args: String,
    pub body: Vec<String>,
}

/// A fenced block of a doc, with the directives written before it.
#[derive(Clone, Debug)]
pub struct Block {
    /// The doc's path, as given, and the line of the opening fence.
    pub doc: String,
    pub line: usize,
    /// The info string's first word (`sh`, `text`, `c`, ...).
    pub lang: String,
    pub lines: Vec<String>,
    pub directives: Vec<Directive>,
}

/// How a block is checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// `$ command` lines, each followed by the output it prints.
    Session,
    /// Shell commands, each of which must succeed.
    Script,
    /// A synopsis: every option it names must be in the command's `--help`.
    Synopsis,
    /// Python: a doctest when it has `>>>` prompts, else a script.
    Python,
    /// C or C++ (`cpp` is true), compiled, linked and run.
    Native { cpp: bool },
    /// Rust, which rustdoc compiles and runs (src/lib.rs includes the doc).
    Rust,
    /// A file the later blocks of the doc read (`file NAME`).
    File(String),
    /// A directory tree: every path it names exists (`paths`).
    Paths,
    /// An excerpt: every line is in the named file (`excerpt PATH`).
    Excerpt(String),
    /// Not run, for the reason given (`skip REASON`).
    Skipped(String),
}

impl Kind {
    /// The kind's name, for the counts.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Session => "session",
            Kind::Script => "script",
            Kind::Synopsis => "synopsis",
            Kind::Python => "python",
            Kind::Native { cpp: false } => "c",
            Kind::Native { cpp: true } => "c++",
            Kind::Rust => "rust",
            Kind::File(_) => "file",
            Kind::Paths => "paths",
            Kind::Excerpt(_) => "excerpt",
            Kind::Skipped(_) => "skipped",
        }
    }
}

impl Block {
    /// The first directive with this word.
    pub fn directive(&self, word: &str) -> Option<&Directive> {
        self.directives.iter().find(|d| d.word == word)
    }

    /// `doc:line`, for messages.
    pub fn place(&self) -> String {
        format!("{}:{}", self.doc, self.line)
    }

    /// The reason of an `xfail` mark: a block that fails for a known bug,
    /// which must still fail (a pass asks for the mark to go).
    pub fn xfail(&self) -> Option<&str> {
        self.directive("xfail").map(|d| d.args.as_str())
    }

    /// How the block is checked, or why it cannot be.
    pub fn kind(&self) -> Result<Kind, String> {
        if let Some(d) = self.directive("skip") {
            if d.args.trim().is_empty() {
                return Err(format!("{}: `skip` needs a reason", self.place()));
            }
            return Ok(Kind::Skipped(d.args.trim().to_string()));
        }
        if let Some(d) = self.directive("file") {
            return Ok(Kind::File(d.args.trim().to_string()));
        }
        if self.directive("paths").is_some() {
            return Ok(Kind::Paths);
        }
        if let Some(d) = self.directive("excerpt") {
            return Ok(Kind::Excerpt(d.args.trim().to_string()));
        }
        if self.directive("synopsis").is_some() {
            return Ok(Kind::Synopsis);
        }
        let prompt = self.lines.iter().find(|l| !l.trim().is_empty());
        let session = prompt.is_some_and(|l| l.starts_with("$ "));
        match self.lang.as_str() {
            "rust" => Ok(Kind::Rust),
            "python" | "py" => Ok(Kind::Python),
            "c" => Ok(Kind::Native { cpp: false }),
            "cpp" | "c++" => Ok(Kind::Native { cpp: true }),
            "sh" | "shell" | "bash" | "console" | "text" if session => Ok(Kind::Session),
            "sh" | "shell" | "bash" => Ok(Kind::Script),
            _ => Err(format!(
                "{}: a `{}` block that is not checked: give it a `<!-- doctest: ... -->` \
                 comment (file, paths, excerpt, synopsis, or skip with a reason)",
                self.place(),
                self.lang
            )),
        }
    }
}

/// The directives a comment line opens, if it is a `<!-- doctest:` one.
fn directive_start(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix("<!-- doctest:")
}

/// Every fenced block of `text`, the directives before each attached to
/// it. A directive with no block after it, an unclosed comment or fence,
/// and an unknown directive word are errors.
pub fn parse(doc: &str, text: &str) -> Result<Vec<Block>, String> {
    const WORDS: &[&str] = &[
        "skip", "xfail", "file", "paths", "excerpt", "synopsis", "setup", "keys", "wrap",
    ];
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut pending: Vec<Directive> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = directive_start(line) {
            let start = i + 1;
            let mut first = rest.to_string();
            let mut body = Vec::new();
            let closed_on_first = first.trim_end().ends_with("-->");
            if closed_on_first {
                first = first.trim_end().trim_end_matches("-->").to_string();
            } else {
                i += 1;
                loop {
                    let Some(l) = lines.get(i) else {
                        return Err(format!("{doc}:{start}: a doctest comment never closed"));
                    };
                    if l.trim() == "-->" {
                        break;
                    }
                    body.push(l.to_string());
                    i += 1;
                }
            }
            let first = first.trim();
            let (word, args) = first.split_once(' ').unwrap_or((first, ""));
            if !WORDS.contains(&word) {
                return Err(format!("{doc}:{start}: unknown doctest directive `{word}`"));
            }
            pending.push(Directive {
                word: word.to_string(),
                args: args.trim().to_string(),
                body,
            });
            i += 1;
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("~~~") {
            return Err(format!(
                "{doc}:{}: a ~~~ fence: write ``` so that it is checked",
                i + 1
            ));
        }
        if let Some(info) = trimmed.strip_prefix("```") {
            let indent = line.len() - trimmed.len();
            let start = i + 1;
            let mut body = Vec::new();
            i += 1;
            loop {
                let Some(l) = lines.get(i) else {
                    return Err(format!("{doc}:{start}: a fence never closed"));
                };
                if l.trim() == "```" {
                    break;
                }
                // Blocks inside list items are indented with their item.
                let cut = l.len() - l.trim_start().len();
                body.push(l[cut.min(indent)..].to_string());
                i += 1;
            }
            blocks.push(Block {
                doc: doc.to_string(),
                line: start,
                lang: info.split_whitespace().next().unwrap_or("").to_string(),
                lines: body,
                directives: std::mem::take(&mut pending),
            });
        }
        i += 1;
    }
    if let Some(d) = pending.first() {
        return Err(format!(
            "{doc}: a `{}` doctest directive with no block after it",
            d.word
        ));
    }
    Ok(blocks)
}

/// The docs whose blocks are checked: the READMEs (the repository's and
/// the Python package's) and every docs/*.md.
pub fn docs(root: &Path) -> Vec<String> {
    let mut docs = vec![
        "README.md".to_string(),
        "bindings/python/README.md".to_string(),
    ];
    let mut manual: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("read docs/")
        .map(|e| {
            e.expect("read docs/")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    manual.sort();
    docs.extend(manual);
    docs
}

/// Every block of every doc, parsed; panics naming every malformed doc.
pub fn all(root: &Path) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut errors = Vec::new();
    for doc in docs(root) {
        let text = std::fs::read_to_string(root.join(&doc)).expect("read a doc");
        match parse(&doc, &text) {
            Ok(b) => blocks.extend(b),
            Err(e) => errors.push(e),
        }
    }
    assert!(errors.is_empty(), "malformed docs:\n{}", errors.join("\n"));
    blocks
}

#[test]
fn directives_attach_to_the_next_block_and_nothing_goes_unchecked() {
    let text = "<!-- doctest: skip a reason -->\n```sh\nmake\n```\n\
                <!-- doctest: setup\nprintf 'a\\n' > t\n-->\n```console\n$ cat t\na\n```\n\
                ```text\nplain\n```\n";
    let blocks = parse("d.md", text).unwrap();
    assert_eq!(blocks[0].kind(), Ok(Kind::Skipped("a reason".into())));
    assert_eq!(blocks[1].kind(), Ok(Kind::Session));
    assert_eq!(
        blocks[1].directive("setup").unwrap().body,
        ["printf 'a\\n' > t"]
    );
    assert!(blocks[2]
        .kind()
        .unwrap_err()
        .contains("d.md:12: a `text` block that is not checked"));
    let no_reason = parse("d.md", "<!-- doctest: skip -->\n```sh\nx\n```\n").unwrap();
    assert!(no_reason[0].kind().is_err());
    assert!(parse("d.md", "<!-- doctest: skip why -->\ntext\n").is_err());
    assert!(parse("d.md", "<!-- doctest: skipp why -->\n```sh\nx\n```\n").is_err());
    assert!(parse("d.md", "```sh\nx\n").is_err());
    assert!(parse("d.md", "~~~sh\nx\n~~~\n").is_err());
}

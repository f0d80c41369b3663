//! What node names may be: the characters a name cannot hold, and the
//! names that print alike.

/// Why `name` cannot be a node name, if it cannot.
pub(crate) fn name_problem(name: &str) -> Option<&'static str> {
    if name.starts_with('+') {
        return Some("starts with '+', which marks a repeated node");
    }
    name.chars().find_map(|c| {
        if c.is_whitespace() {
            Some("contains whitespace")
        } else if c.is_control() {
            Some("contains a control character")
        } else if c == ',' || c == '"' {
            Some("contains ',' or '\"', which CSV move lists would have to quote")
        } else if is_invisible(c) {
            Some(
                "contains an invisible character (a zero-width space, joiner or mark, a byte \
                 order mark, a direction control), which would make two names that print alike",
            )
        } else {
            None
        }
    })
}

/// Whether `c` prints as nothing: Unicode's format characters that
/// editors and copy-paste leave in text (soft hyphen, zero-width space,
/// joiners and marks, direction controls, word joiner, byte order mark,
/// interlinear annotation, the Mongolian vowel separator).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
    )
}

/// The text `name` prints as, the form that tells look-alike names apart:
/// its Unicode NFKC form (an ASCII name is its own), or the name as
/// written without Unicode's tables.
pub(super) fn printed(name: &str) -> std::borrow::Cow<'_, str> {
    #[cfg(feature = "unicode-names")]
    if !name.is_ascii() {
        use unicode_normalization::UnicodeNormalization;
        return std::borrow::Cow::Owned(name.nfkc().collect());
    }
    std::borrow::Cow::Borrowed(name)
}

/// A table's names by their Unicode NFKC form, so that a name that prints
/// like another (`café` in NFC and in NFD, `ｄｂ` and `db`) is found. The
/// forms are kept from the first name that is not ASCII on: an ASCII name
/// is its own form, so that a table of ASCII names needs none.
#[derive(Default)]
pub(super) struct Forms {
    #[cfg(feature = "unicode-names")]
    by_form: Option<std::collections::HashMap<String, u32>>,
}

impl Forms {
    /// The index in `names` (the table's distinct names so far) of one
    /// that prints like `name`, a name not among them; otherwise `None`,
    /// `name` then counted as the next name.
    #[cfg(feature = "unicode-names")]
    pub(super) fn look_alike(&mut self, names: &[String], name: &str) -> Option<u32> {
        if self.by_form.is_none() && name.is_ascii() {
            return None;
        }
        let by_form = self.by_form.get_or_insert_with(|| {
            (0..names.len() as u32)
                .map(|i| (names[i as usize].clone(), i))
                .collect()
        });
        let form = printed(name).into_owned();
        match by_form.get(&form) {
            Some(&other) => Some(other),
            None => {
                by_form.insert(form, names.len() as u32);
                None
            }
        }
    }

    /// Without Unicode's tables, names are told apart as written.
    #[cfg(not(feature = "unicode-names"))]
    pub(super) fn look_alike(&mut self, _names: &[String], _name: &str) -> Option<u32> {
        None
    }
}

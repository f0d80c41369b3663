//! Text columns of names.

/// Names wider than this are printed whole but not padded to: a table of
/// ordinary names stays aligned, and a 64 KiB name is data, not a reason
/// to pad every row to 64 KiB (nor to exceed the formatter's width limit).
const WIDEST: usize = 48;

/// The column width for `names`: the widest up to [`WIDEST`], at least
/// `min`.
pub fn name_width<'a>(names: impl IntoIterator<Item = &'a str>, min: usize) -> usize {
    names
        .into_iter()
        .map(|n| n.chars().count().min(WIDEST))
        .max()
        .unwrap_or(0)
        .max(min)
}

//! Parts of a whole, as the summaries print them.

/// `part / whole`, 0 for an empty whole (no keys, nothing moved).
pub fn fraction(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

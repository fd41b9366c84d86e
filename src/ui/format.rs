//! Numbers as the lesson writes them.

/// 49152 → "49,152".
pub fn count(n: usize) -> String {
    crate::ui::digits::grouped(n)
}

/// A probability with three decimals, or in scientific notation when that would read 0.000.
pub fn prob(p: f64) -> String {
    if p == 0.0 || p >= 0.0005 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

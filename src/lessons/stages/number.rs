//! How the lesson writes its measurements.

/// Milliseconds below 10 s, seconds above.
pub fn ms(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} s", v / 1000.0)
    } else if v >= 100.0 {
        format!("{v:.0} ms")
    } else {
        format!("{v:.1} ms")
    }
}

pub fn tps(v: f64) -> String {
    format!("{v:.1} tokens/s")
}

/// Bytes with thousands separators, as the formula writes them.
pub fn bytes(v: usize) -> String {
    crate::digits::grouped(v)
}

pub fn mb(v: f64) -> String {
    format!("{:.1} MB", v / 1e6)
}

pub fn ratio(v: f64) -> String {
    format!("{v:.2}×")
}

/// Small shares keep a decimal: 0.7%, not 1%.
pub fn percent(v: f64) -> String {
    if v < 0.1 {
        format!("{:.1}%", v * 100.0)
    } else {
        format!("{:.0}%", v * 100.0)
    }
}

//! Numbers as the lesson writes them.

/// 49152 → "49,152".
pub fn count(n: usize) -> String {
    crate::digits::grouped(n)
}

/// A probability with three decimals, or in scientific notation when that would read 0.000.
pub fn prob(p: f64) -> String {
    if p == 0.0 || p >= 0.0005 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

/// A wait, rounded as a person says it: "8 s", "2 min 10 s" (to 10 s past a minute).
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s < 60 {
        format!("{s} s")
    } else {
        let tens = (s % 60) / 10 * 10;
        match tens {
            0 => format!("{} min", s / 60),
            _ => format!("{} min {tens} s", s / 60),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    #[wasm_bindgen_test]
    fn waits_read_as_a_person_says_them() {
        assert_eq!(duration(-3.0), "0 s");
        assert_eq!(duration(8.4), "8 s");
        assert_eq!(duration(59.6), "1 min");
        assert_eq!(duration(130.0), "2 min 10 s");
        assert_eq!(duration(139.0), "2 min 10 s");
    }
}

//! Distinct-2, for the lesson's comparison of two settings (the goodness of fit of "Sample
//! 1000×" is `engine::chi_square`, shared with Lesson 2).

/// Distinct adjacent token pairs over all pairs, within each sequence and pooled over all;
/// `None` when no sequence has two tokens.
pub fn distinct_2(sequences: &[Vec<u32>]) -> Option<f64> {
    let pairs: Vec<(u32, u32)> = sequences
        .iter()
        .flat_map(|s| s.windows(2).map(|w| (w[0], w[1])))
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let distinct: std::collections::HashSet<_> = pairs.iter().collect();
    Some(distinct.len() as f64 / pairs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn distinct_2_counts_pairs_within_sequences() {
        assert_eq!(distinct_2(&[vec![1, 2, 3, 1, 2], vec![1, 2]]), Some(0.6));
        assert_eq!(distinct_2(&[vec![1], vec![]]), None);
    }
}

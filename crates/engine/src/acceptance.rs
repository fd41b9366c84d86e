//! The acceptance predictor of speculative decoding (Leviathan et al. 2023, §3.1 and eq. 1).
//! A drafted token is accepted with probability min(1, p/q); averaged over what the draft
//! proposes, a position accepts with probability β = Σₓ min(p(x), q(x)), where p is the
//! target's distribution and q the draft's. α is β's mean over a run. If every position
//! accepted independently with probability α, a cycle of K drafts would yield
//! (1 − α^(K+1)) / (1 − α) tokens on average (the accepted drafts and the target's own
//! token), which the lesson sets beside the tokens per cycle it measured.

use crate::sampler::Distribution;

/// β = Σₓ min(p(x), q(x)) at one drafted position: the probability that the target accepts
/// what the draft proposes there. `q` is `None` for a draft that proposes `drafted` with
/// certainty (prompt lookup, or any greedy draft): then β = p(drafted).
pub fn overlap(p: &Distribution, q: Option<&Distribution>, drafted: u32) -> f64 {
    let p_of = |id: u32| p.get(id).map_or(0.0, |c| c.final_prob as f64);
    let Some(q) = q else {
        return p_of(drafted);
    };
    // p's kept tokens by id, so that the sum costs one pass over each distribution.
    let vocab = p.candidates.len().max(q.candidates.len());
    let mut dense = vec![0.0f64; vocab];
    for c in p.candidates.iter().filter(|c| c.eligible()) {
        if let Some(slot) = dense.get_mut(c.id as usize) {
            *slot = c.final_prob as f64;
        }
    }
    q.candidates
        .iter()
        .filter(|c| c.eligible())
        .map(|c| dense.get(c.id as usize).map_or(0.0, |&pc| pc.min(c.final_prob as f64)))
        .sum()
}

/// α: the mean of β over every drafted position the target judged (each accepted draft and
/// the first rejected one; positions after a rejection are never judged). `None` when
/// nothing was judged.
pub fn alpha(betas: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, n) = betas.into_iter().fold((0.0, 0usize), |(s, n), b| (s + b, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// The expected tokens per cycle with `k` drafts when each position accepts independently
/// with probability `alpha`: 1 + α + … + α^K = (1 − α^(K+1)) / (1 − α), and K + 1 at α = 1.
pub fn expected_tokens_per_cycle(alpha: f64, k: usize) -> f64 {
    if alpha >= 1.0 {
        return k as f64 + 1.0;
    }
    (1.0 - alpha.powi(k as i32 + 1)) / (1.0 - alpha)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampler::{distribution, SamplerSettings};

    #[test]
    fn expected_tokens_per_cycle_is_the_geometric_sum() {
        assert_eq!(expected_tokens_per_cycle(0.0, 4), 1.0);
        assert_eq!(expected_tokens_per_cycle(1.0, 4), 5.0);
        // 1 + ½ + ¼ + ⅛ = 1.875.
        assert!((expected_tokens_per_cycle(0.5, 3) - 1.875).abs() < 1e-12);
        // Leviathan et al.'s figure 2: α = 0.8, γ = 5 gives about 3.69.
        assert!((expected_tokens_per_cycle(0.8, 5) - 3.6893).abs() < 1e-4);
        // Close to 1 it approaches K + 1 continuously.
        assert!((expected_tokens_per_cycle(1.0 - 1e-9, 6) - 7.0).abs() < 1e-6);
    }

    #[test]
    fn beta_is_the_overlap_of_hand_made_rows() {
        // Logits ln(0.5), ln(0.3), ln(0.2): at T = 1 the row is exactly (0.5, 0.3, 0.2).
        let row = |ps: [f32; 3]| {
            let logits: Vec<f32> = ps.iter().map(|p| p.ln()).collect();
            distribution(&logits, &SamplerSettings::plain(1.0, 0), &[])
        };
        let p = row([0.5, 0.3, 0.2]);
        let q = row([0.2, 0.2, 0.6]);
        // min(0.5, 0.2) + min(0.3, 0.2) + min(0.2, 0.6) = 0.6.
        assert!((overlap(&p, Some(&q), 0) - 0.6).abs() < 1e-6);
        assert!((overlap(&p, Some(&p), 0) - 1.0).abs() < 1e-6, "a draft equal to the target is always accepted");
        // A deterministic draft of token 1: β = p(1).
        assert!((overlap(&p, None, 1) - 0.3).abs() < 1e-6);
        // Greedy rows are one-hot: β is 1 when the draft is the target's top, else 0.
        let greedy = distribution(&[0.5f32.ln(), 0.3f32.ln(), 0.2f32.ln()], &SamplerSettings::greedy(), &[]);
        assert_eq!(overlap(&greedy, None, 0), 1.0);
        assert_eq!(overlap(&greedy, None, 2), 0.0);
        assert!((alpha([1.0, 0.0, 0.5, 0.5]).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(alpha([]), None);
    }
}

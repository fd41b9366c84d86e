//! "Sample 1000×"'s arithmetic: the next token drawn many times from the final distribution
//! by the engine's own `Distribution::draw` with the seed's generator, and the fit of the
//! counts to the probabilities.

use engine::chi_square::{chi_square, expected_total_variation, total_variation, ChiSquare};
use engine::sampler::{distribution, Rng, SamplerSettings};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub struct SampleResult {
    pub n: u64,
    pub counts: HashMap<u32, u64>,
    pub chi: Option<ChiSquare>,
    pub tvd: f64,
    /// The total variation distance a correct sampler shows on average at `n` draws from
    /// these probabilities (`engine::chi_square::expected_total_variation`).
    pub chance_tvd: f64,
    /// How many tokens the cuts kept.
    pub kept: usize,
    /// Draws and expected probability of the eligible tokens not shown on the bars.
    pub rest: (u64, f64),
}

/// `n` draws from the final distribution; `shown` tokens are the ones with bars.
pub fn sample(
    logits: &[f32],
    settings: &SamplerSettings,
    context: &[u32],
    shown: &[u32],
    n: u64,
) -> SampleResult {
    let dist = distribution(logits, settings, context);
    let mut rng = Rng::new(settings.seed);
    let mut counts = HashMap::new();
    for _ in 0..n {
        *counts.entry(dist.draw(rng.next_f64())).or_insert(0u64) += 1;
    }
    let cells: Vec<(u64, f64)> = dist
        .candidates
        .iter()
        .filter(|c| c.eligible())
        .map(|c| (counts.get(&c.id).copied().unwrap_or(0), c.final_prob as f64))
        .collect();
    let rest = dist
        .candidates
        .iter()
        .filter(|c| c.eligible() && !shown.contains(&c.id))
        .fold((0, 0.0), |(o, p), c| {
            (
                o + counts.get(&c.id).copied().unwrap_or(0),
                p + c.final_prob as f64,
            )
        });
    let probs: Vec<f64> = cells.iter().map(|c| c.1).collect();
    SampleResult {
        n,
        chi: chi_square(&cells, n),
        tvd: total_variation(&cells, n),
        chance_tvd: expected_total_variation(&probs, n),
        kept: cells.len(),
        counts,
        rest,
    }
}

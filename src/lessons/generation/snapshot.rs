//! Everything the page draws about the next token, computed from the model's logits by the
//! engine's own sampler (`engine::sampler::distribution`), so that moving a slider redraws
//! without running the model. One pass over the whole vocabulary; the page keeps the result.

use engine::sampler::{distribution, Candidate, Rng, SamplerSettings, Stage};

#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The most likely candidates after the repetition penalty, most likely first.
    pub top: Vec<Candidate>,
    pub vocab: usize,
    /// Candidates left after each stage, in the settings' order (temperature cuts only at
    /// T = 0, where greedy leaves one).
    pub left: Vec<(Stage, usize)>,
    pub eligible: usize,
    pub entropy_bits: f64,
    pub final_entropy_bits: f64,
    /// Top-p's view of `top`: the cumulative probability up to and including each
    /// candidate, among those the stages before top-p left, as a share of their mass (in
    /// the probabilities top-p saw: at T, or at T = 1 when it runs before temperature).
    pub top_p_cumulative: Vec<f64>,
    /// Min-p's line: min-p × the probability of the most likely candidate still eligible,
    /// in the probabilities min-p saw.
    pub min_p_line: f64,
    /// The probability top-p saw (before the cuts) of the eligible set, and of its least
    /// likely member.
    pub eligible_mass: f64,
    pub least_eligible_prob: f64,
    /// The final (renormalised) probability of the least likely eligible candidate.
    pub least_final_prob: f64,
    /// The number the next Step draws with (the n-th of the seed's generator), and the token
    /// it picks: the worker draws exactly this with the same logits and settings.
    pub next_u: f64,
    pub next_token: u32,
    pub next_prob: f32,
}

impl Snapshot {
    /// `generated` counts the tokens generated so far: the next draw is number `generated`.
    pub fn new(
        logits: &[f32],
        settings: &SamplerSettings,
        context: &[u32],
        generated: usize,
        shown: usize,
    ) -> Self {
        let dist = distribution(logits, settings, context);
        let all = &dist.candidates;
        let mut left: Vec<(Stage, usize)> = Vec::new();
        for &stage in &settings.order {
            let cut_as = if stage == Stage::Temperature { Stage::Greedy } else { stage };
            let gone = count(all, |c| c.cut_by == Some(cut_as));
            left.push((stage, left.last().map_or(all.len(), |l| l.1) - gone));
        }

        let order = &settings.order;
        let p_seen = |c: &Candidate| seen_prob(c, Stage::TopP, order);
        let alive_at_p = |c: &Candidate| !cut_before(c, Stage::TopP, order);
        let mass_at_p: f64 = all.iter().filter(|c| alive_at_p(c)).map(p_seen).sum();
        let mut cum = 0.0;
        let top_p_cumulative = all[..shown.min(all.len())]
            .iter()
            .map(|c| {
                if alive_at_p(c) {
                    cum += p_seen(c);
                }
                cum / mass_at_p
            })
            .collect();

        let leader = all.iter().find(|c| !cut_before(c, Stage::MinP, order));
        let min_p_line = settings.min_p as f64 * leader.map_or(0.0, |c| seen_prob(c, Stage::MinP, order));

        let eligible: Vec<&Candidate> = all.iter().filter(|c| c.eligible()).collect();
        let next_u = Rng::at(settings.seed, generated as u64).next_f64();
        let next_token = dist.draw(next_u);
        Snapshot {
            top: dist.top(shown).to_vec(),
            vocab: all.len(),
            left,
            eligible: dist.eligible,
            entropy_bits: dist.entropy_bits,
            final_entropy_bits: dist.final_entropy_bits,
            top_p_cumulative,
            min_p_line,
            eligible_mass: eligible.iter().map(|c| p_seen(c)).sum(),
            least_eligible_prob: eligible.last().map_or(0.0, |c| p_seen(c)),
            least_final_prob: eligible.last().map_or(0.0, |c| c.final_prob as f64),
            next_u,
            next_token,
            next_prob: dist.get(next_token).map_or(0.0, |c| c.final_prob),
        }
    }
}

/// Where a stage sits in the pipeline; greedy is temperature 0, where temperature sits.
fn position(stage: Stage, order: &[Stage]) -> usize {
    let stage = if stage == Stage::Greedy { Stage::Temperature } else { stage };
    order.iter().position(|&s| s == stage).unwrap_or(0)
}

/// Whether `stage` runs after temperature, and so sees the probabilities at T.
pub fn after_temperature(stage: Stage, order: &[Stage]) -> bool {
    position(Stage::Temperature, order) < position(stage, order)
}

/// The probability of `c` that `stage` saw: at T after temperature, the model's own before it.
pub fn seen_prob(c: &Candidate, stage: Stage, order: &[Stage]) -> f64 {
    if after_temperature(stage, order) { c.prob as f64 } else { c.model_prob as f64 }
}

/// Whether a stage before `stage` excluded the candidate.
pub fn cut_before(c: &Candidate, stage: Stage, order: &[Stage]) -> bool {
    c.cut_by
        .is_some_and(|s| position(s, order) < position(stage, order))
}

/// Whether the candidate is greyed in `stage`'s picture: cut there or earlier.
pub fn greyed_at(c: &Candidate, stage: Stage, order: &[Stage]) -> bool {
    c.cut_by
        .is_some_and(|s| position(s, order) <= position(stage, order))
}

fn count(all: &[Candidate], f: impl Fn(&Candidate) -> bool) -> usize {
    all.iter().filter(|c| f(c)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn stage_counts_top_p_curve_and_min_p_line_follow_the_engine() {
        // Softmax of [2, 1, 0, −1]: 0.6439, 0.2369, 0.0871, 0.0321.
        let logits = [2.0f32, 1.0, 0.0, -1.0];
        let s = SamplerSettings {
            temperature: 1.0,
            top_k: 0,
            top_p: 0.8,
            min_p: 0.5,
            ..SamplerSettings::default()
        };
        let snap = Snapshot::new(&logits, &s, &[], 0, 4);
        assert_eq!(
            snap.left,
            vec![
                (Stage::Temperature, 4),
                (Stage::TopK, 4),
                (Stage::TopP, 2),
                (Stage::MinP, 1)
            ]
        );
        let want = [0.6439, 0.8808, 0.9679, 1.0];
        assert!(
            snap.top_p_cumulative
                .iter()
                .zip(want)
                .all(|(a, b)| (a - b).abs() < 1e-4),
            "{:?}",
            snap.top_p_cumulative
        );
        assert!((snap.min_p_line - 0.5 * 0.6439).abs() < 1e-4);
        assert_eq!((snap.eligible, snap.top[1].cut_by), (1, Some(Stage::MinP)));
        assert!(
            (snap.eligible_mass - 0.6439).abs() < 1e-4
                && snap.least_eligible_prob == snap.eligible_mass
        );
        assert!(
            greyed_at(&snap.top[2], Stage::TopP, &s.order)
                && !greyed_at(&snap.top[2], Stage::TopK, &s.order)
        );
    }

    #[wasm_bindgen_test]
    fn with_temperature_last_the_cuts_are_drawn_in_the_models_own_probabilities() {
        // Softmax of [2, 1, 0, −1] at T = 1: 0.6439, 0.2369, 0.0871, 0.0321; at T = 3 flatter.
        let logits = [2.0f32, 1.0, 0.0, -1.0];
        let s = SamplerSettings {
            temperature: 3.0,
            top_k: 0,
            top_p: 0.8,
            min_p: 0.0,
            order: vec![Stage::TopK, Stage::TopP, Stage::MinP, Stage::Temperature],
            ..SamplerSettings::default()
        };
        let snap = Snapshot::new(&logits, &s, &[], 0, 4);
        assert!((snap.top_p_cumulative[0] - 0.6439).abs() < 1e-4, "{:?}", snap.top_p_cumulative);
        assert_eq!(snap.left.last(), Some(&(Stage::Temperature, 2)));
        assert!((snap.eligible_mass - 0.8808).abs() < 1e-4);
        assert!(!after_temperature(Stage::TopP, &s.order) && after_temperature(Stage::TopP, &SamplerSettings::default().order));
    }

    #[wasm_bindgen_test]
    fn the_next_draw_is_the_seeds_nth_number() {
        let logits: Vec<f32> = (0..50).map(|i| (i % 7) as f32 * 0.5).collect();
        let s = SamplerSettings::plain(1.0, 5);
        let dist = distribution(&logits, &s, &[]);
        for n in 0..5 {
            let snap = Snapshot::new(&logits, &s, &[], n, 10);
            let u = Rng::at(5, n as u64).next_f64();
            assert_eq!((snap.next_u, snap.next_token), (u, dist.draw(u)));
        }
    }
}

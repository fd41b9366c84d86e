//! Everything the page draws about the next token, computed from the model's logits by the
//! engine's own sampler (`engine::sampler::distribution`), so that moving a slider redraws
//! without running the model. One pass over the whole vocabulary; the page keeps the result.

use engine::sampler::{distribution, Candidate, Rng, SamplerSettings, Stage};

#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The most likely candidates after the repetition penalty, most likely first.
    pub top: Vec<Candidate>,
    pub vocab: usize,
    /// Candidates left after each stage, in pipeline order: temperature (greedy leaves one),
    /// then the cut stages in the settings' order.
    pub left: Vec<(Stage, usize)>,
    pub eligible: usize,
    pub entropy_bits: f64,
    pub final_entropy_bits: f64,
    /// Top-p's view of `top`: the cumulative probability up to and including each
    /// candidate, among those the stages before top-p left, as a share of their mass.
    pub top_p_cumulative: Vec<f64>,
    /// Min-p's line: min-p × the probability of the most likely candidate still eligible.
    pub min_p_line: f64,
    /// Softmax probability (before the cuts) of the eligible set, and of its least likely member.
    pub eligible_mass: f64,
    pub least_eligible_prob: f64,
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
        let mut left = vec![(
            Stage::Greedy,
            all.len() - count(all, |c| c.cut_by == Some(Stage::Greedy)),
        )];
        for &stage in &settings.order {
            let gone = count(all, |c| c.cut_by == Some(stage));
            left.push((stage, left.last().map_or(all.len(), |l| l.1) - gone));
        }

        let order = &settings.order;
        let alive_at_p = |c: &Candidate| !cut_before(c, Stage::TopP, order);
        let mass_at_p: f64 = all
            .iter()
            .filter(|c| alive_at_p(c))
            .map(|c| c.prob as f64)
            .sum();
        let mut cum = 0.0;
        let top_p_cumulative = all[..shown.min(all.len())]
            .iter()
            .map(|c| {
                if alive_at_p(c) {
                    cum += c.prob as f64;
                }
                cum / mass_at_p
            })
            .collect();

        let leader = all.iter().find(|c| !cut_before(c, Stage::MinP, order));
        let min_p_line = settings.min_p as f64 * leader.map_or(0.0, |c| c.prob as f64);

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
            eligible_mass: eligible.iter().map(|c| c.prob as f64).sum(),
            least_eligible_prob: eligible.last().map_or(0.0, |c| c.prob as f64),
            next_u,
            next_token,
            next_prob: dist.get(next_token).map_or(0.0, |c| c.final_prob),
        }
    }
}

/// Where a stage sits in the pipeline: greedy (temperature 0) first, then the cut stages.
fn position(stage: Stage, order: &[Stage]) -> usize {
    order.iter().position(|&s| s == stage).map_or(0, |i| i + 1)
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
                (Stage::Greedy, 4),
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

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
    pub fn new(logits: &[f32], settings: &SamplerSettings, context: &[u32], generated: usize, shown: usize) -> Self {
        let dist = distribution(logits, settings, context);
        let all = &dist.candidates;
        let mut left = vec![(Stage::Greedy, all.len() - count(all, |c| c.cut_by == Some(Stage::Greedy)))];
        for &stage in &settings.order {
            let gone = count(all, |c| c.cut_by == Some(stage));
            left.push((stage, left.last().map_or(all.len(), |l| l.1) - gone));
        }

        let order = &settings.order;
        let alive_at_p = |c: &Candidate| !cut_before(c, Stage::TopP, order);
        let mass_at_p: f64 = all.iter().filter(|c| alive_at_p(c)).map(|c| c.prob as f64).sum();
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
    c.cut_by.is_some_and(|s| position(s, order) < position(stage, order))
}

/// Whether the candidate is greyed in `stage`'s picture: cut there or earlier.
pub fn greyed_at(c: &Candidate, stage: Stage, order: &[Stage]) -> bool {
    c.cut_by.is_some_and(|s| position(s, order) <= position(stage, order))
}

fn count(all: &[Candidate], f: impl Fn(&Candidate) -> bool) -> usize {
    all.iter().filter(|c| f(c)).count()
}

//! Speculative decoding against plain decoding, as measured: each run's cycles, and the
//! figures derived from them. Both runs are timed by the worker the same way, per cycle
//! (a plain cycle is one step), and only the tokens after the first count as decoding.
//! Also the draws: many cycles' first tokens against plain sampling's probabilities.

use super::prompt_field::chat_prompt;
use crate::protocol::{CycleReport, DrawCell, Request, Response, SecondDraws, TokenCost};
use crate::ui::lab::LabEngine;
use engine::acceptance::{alpha, expected_tokens_per_cycle};
use engine::chi_square::{chi_square, expected_total_variation, total_variation, ChiSquare};
use engine::speculative::Draft;
use engine::{SamplerSettings, StopReason};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// Serialised, in a `Comparison`, as a saved measurement (`saved_measurements.rs`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SpecRun {
    /// The first token, from the prefill.
    pub first: Option<TokenCost>,
    pub cycles: Vec<CycleReport>,
    pub text: String,
    pub stop: Option<StopReason>,
    pub error: Option<String>,
}

impl SpecRun {
    pub fn complete(&self) -> bool {
        matches!(
            self.stop,
            Some(StopReason::EndOfTurn | StopReason::MaxTokens | StopReason::ContextFull)
        )
    }

    fn sum(&self, f: impl Fn(&CycleReport) -> f64) -> f64 {
        self.cycles.iter().map(f).sum()
    }

    pub fn drafted(&self) -> usize {
        self.cycles.iter().map(|c| c.drafted.len()).sum()
    }

    pub fn accepted(&self) -> usize {
        self.cycles.iter().map(|c| c.accepted).sum()
    }

    /// accepted / drafted, once something was drafted.
    pub fn acceptance_rate(&self) -> Option<f64> {
        let drafted = self.drafted();
        (drafted > 0).then(|| self.accepted() as f64 / drafted as f64)
    }

    /// Accepted drafts per cycle.
    pub fn mean_accepted(&self) -> Option<f64> {
        (!self.cycles.is_empty()).then(|| self.accepted() as f64 / self.cycles.len() as f64)
    }

    /// α: the mean β = Σ min(p, q) over every drafted position the target judged.
    pub fn alpha(&self) -> Option<f64> {
        alpha(self.cycles.iter().flat_map(|c| c.betas.iter().copied()))
    }

    pub fn tokens_per_cycle(&self) -> Option<f64> {
        (!self.cycles.is_empty()).then(|| self.decode_tokens() as f64 / self.cycles.len() as f64)
    }

    pub fn draft_ms(&self) -> f64 {
        self.sum(|c| c.draft_ms)
    }

    pub fn verify_ms(&self) -> f64 {
        self.sum(|c| c.verify_ms)
    }

    pub fn decode_ms(&self) -> f64 {
        self.sum(|c| c.ms)
    }

    pub fn decode_tokens(&self) -> usize {
        self.cycles.iter().map(|c| c.tokens).sum()
    }

    pub fn decode_tps(&self) -> Option<f64> {
        let ms = self.decode_ms();
        (ms > 0.0).then(|| self.decode_tokens() as f64 * 1000.0 / ms)
    }

    fn apply(&mut self, response: Response) {
        match response {
            Response::StagePrompt { .. } => {}
            Response::StageCost { cost } => self.first = Some(cost),
            Response::StageCycle { cycle } => self.cycles.push(cycle),
            Response::StageDone { text, stop } => (self.text, self.stop) = (text, Some(stop)),
            Response::Error { message } => self.error = Some(message),
            other => self.error = Some(format!("Unexpected answer from the engine: {other:?}")),
        }
    }
}

/// What was compared: the same prompt and settings, with and without a draft. Saved as it
/// is, with the prompt and the settings the panel shows again when it is restored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The chat message both runs answered.
    pub prompt: String,
    pub max_tokens: usize,
    pub draft: Option<Draft>,
    pub draft_len: usize,
    pub temperature: f32,
    pub plain: SpecRun,
    pub spec: SpecRun,
}

impl Comparison {
    /// Speculative tokens/s over plain tokens/s, once both ran to their end.
    pub fn speedup(&self) -> Option<f64> {
        if self.draft.is_none() || !self.plain.complete() || !self.spec.complete() {
            return None;
        }
        Some(self.spec.decode_tps()? / self.plain.decode_tps()?)
    }

    /// Under greedy, whether the two texts are identical (speculation must change nothing).
    pub fn lossless(&self) -> Option<bool> {
        let comparable = self.draft.is_some()
            && self.temperature == 0.0
            && self.plain.complete()
            && self.spec.complete();
        comparable.then(|| self.plain.text == self.spec.text)
    }

    /// The tokens per cycle α predicts for this K: (1 − α^(K+1)) / (1 − α).
    pub fn predicted_tokens_per_cycle(&self) -> Option<f64> {
        self.draft?;
        Some(expected_tokens_per_cycle(self.spec.alpha()?, self.draft_len))
    }

    /// Plain milliseconds per decoded token.
    pub fn plain_ms_per_token(&self) -> Option<f64> {
        self.plain.decode_tps().map(|tps| 1000.0 / tps)
    }

    /// A speculative cycle's mean time, in plain decode steps: the speed-up is tokens per
    /// cycle divided by this.
    pub fn cycle_cost_in_steps(&self) -> Option<f64> {
        if self.spec.cycles.is_empty() {
            return None;
        }
        Some(self.spec.decode_ms() / self.spec.cycles.len() as f64 / self.plain_ms_per_token()?)
    }

    /// Every run it asked for ran to its end: plain decoding, and speculation with a draft.
    pub fn finished(&self) -> bool {
        self.plain.complete() && (self.draft.is_none() || self.spec.complete())
    }
}

/// Runs plain decoding, then (with a draft) speculative decoding, of the same prompt and
/// settings, filling `comparison` as the cycles stream in; `finished` is handed the
/// comparison once every run ran to its end (not when one is stopped or fails).
#[allow(clippy::too_many_arguments)]
pub fn compare(
    engine: LabEngine,
    prompt: String,
    settings: SamplerSettings,
    draft: Option<Draft>,
    draft_len: usize,
    max_tokens: usize,
    comparison: RwSignal<Comparison>,
    finished: impl Fn(Comparison) + Clone + 'static,
) {
    // A second press before Run is disabled (effects run a tick later) is ignored.
    if engine.busy_untracked() {
        return;
    }
    let temperature = settings.temperature;
    comparison.set(Comparison {
        prompt: prompt.clone(),
        max_tokens,
        draft,
        draft_len,
        temperature,
        ..Comparison::default()
    });
    let request = move |draft| Request::StageSpeculate {
        prompt: chat_prompt(engine, vec![engine::Message::user(&prompt)]),
        settings: settings.clone(),
        draft,
        draft_len,
        max_tokens,
    };
    let second = request(draft);
    let report = move || {
        if let Some(done) = comparison.try_get_untracked().filter(Comparison::finished) {
            finished(done);
        }
    };
    engine.send(PANEL, request(None), move |response| {
        let last = response.is_final();
        comparison.try_update(|c| c.plain.apply(response));
        let plain_done = comparison
            .try_with_untracked(|c| c.plain.complete())
            .unwrap_or(false);
        if !(last && plain_done) {
            return;
        }
        if draft.is_none() {
            report();
            return;
        }
        let report = report.clone();
        engine.send(PANEL, second.clone(), move |response| {
            let last = response.is_final();
            comparison.try_update(|c| c.spec.apply(response));
            if last {
                report();
            }
        });
    });
}

pub const PANEL: &str = "spec";

/// "prompt lookup", "early exit at 8 layers".
pub fn draft_name(draft: Draft) -> String {
    match draft {
        Draft::PromptLookup => "prompt lookup".into(),
        Draft::EarlyExit { layers } => format!("early exit at {layers} layers"),
    }
}

/// The first token of many draft-and-verify cycles from one prompt, each with its own seed,
/// counted against plain sampling's probabilities; with the prompt and the settings they
/// ran with (saved as it is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draws {
    pub prompt: String,
    pub draft: Draft,
    pub draft_len: usize,
    pub temperature: f32,
    pub cells: Vec<DrawCell>,
    pub trials: usize,
    pub first_accepted: usize,
    /// The second tokens given the most likely first one (none in draws saved before them).
    #[serde(default)]
    pub second: Option<SecondDraws>,
}

/// Counts of `trials` draws in cells that cover every outcome, against their probabilities.
pub struct Counted<'a> {
    pub cells: &'a [DrawCell],
    pub trials: usize,
}

impl Counted<'_> {
    fn pairs(&self) -> Vec<(u64, f64)> {
        self.cells.iter().map(|c| (c.count, c.prob as f64)).collect()
    }

    /// Pearson's chi-square of the counts against the probabilities.
    pub fn fit(&self) -> Option<ChiSquare> {
        chi_square(&self.pairs(), self.trials as u64)
    }

    /// The total variation distance of the counts from the probabilities, and the distance a
    /// correct sampler shows on average at this many draws over these cells.
    pub fn distance(&self) -> Option<(f64, f64)> {
        let n = self.trials as u64;
        let probs: Vec<f64> = self.cells.iter().map(|c| c.prob as f64).collect();
        (n > 0).then(|| (total_variation(&self.pairs(), n), expected_total_variation(&probs, n)))
    }
}

impl Draws {
    pub fn first(&self) -> Counted<'_> {
        Counted { cells: &self.cells, trials: self.trials }
    }

    pub fn second(&self) -> Option<Counted<'_>> {
        self.second.as_ref().map(|s| Counted { cells: &s.cells, trials: s.trials })
    }

    /// Pearson's chi-square of the first tokens' counts against the probabilities.
    pub fn fit(&self) -> Option<ChiSquare> {
        self.first().fit()
    }
}

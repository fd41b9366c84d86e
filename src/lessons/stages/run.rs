//! A measured generation as the page keeps it: the prompt's tokens, what each generated
//! token cost, and the text. Every figure the panels show is derived here, from those costs.

use crate::protocol::{CacheMode, Request, Response, StagePrompt, TokenCost};
use crate::ui::lab::LabEngine;
use engine::{SamplerSettings, StopReason};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// Serialised as a saved measurement (`saved_measurements.rs`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub prompt: Vec<String>,
    /// Leading prompt tokens whose keys and values came from the cache.
    pub reused: usize,
    pub costs: Vec<TokenCost>,
    pub text: String,
    /// Why it ended; `None` while it runs (or before it ran).
    pub stop: Option<StopReason>,
    pub error: Option<String>,
}

impl Run {
    /// Ran to its end (not stopped, not failed).
    pub fn complete(&self) -> bool {
        matches!(
            self.stop,
            Some(StopReason::EndOfTurn | StopReason::MaxTokens | StopReason::ContextFull)
        )
    }

    /// The first token costs the whole prefill: its time is the time to first token.
    pub fn ttft_ms(&self) -> Option<f64> {
        self.costs.first().map(|c| c.ms)
    }

    /// Prompt tokens computed per second in the prefill.
    pub fn prefill_tps(&self) -> Option<f64> {
        self.costs
            .first()
            .filter(|c| c.ms > 0.0)
            .map(|c| c.computed as f64 * 1000.0 / c.ms)
    }

    /// The tokens after the first: one decode step each.
    pub fn decode_costs(&self) -> &[TokenCost] {
        self.costs.get(1..).unwrap_or_default()
    }

    pub fn decode_ms(&self) -> f64 {
        self.decode_costs().iter().map(|c| c.ms).sum()
    }

    pub fn decode_tps(&self) -> Option<f64> {
        let ms = self.decode_ms();
        (ms > 0.0).then(|| self.decode_costs().len() as f64 * 1000.0 / ms)
    }

    pub fn total_ms(&self) -> f64 {
        self.costs.iter().map(|c| c.ms).sum()
    }

    pub fn kv_bytes(&self) -> Option<usize> {
        self.costs.last().map(|c| c.kv_bytes)
    }

    /// Folds in one response to the request.
    pub(super) fn apply(&mut self, response: Response) {
        match response {
            Response::StagePrompt { tokens, reused } => {
                (self.prompt, self.reused) = (tokens, reused)
            }
            Response::StageCost { cost } => {
                self.text.push_str(&cost.piece);
                self.costs.push(cost);
            }
            Response::StageDone { text, stop } => (self.text, self.stop) = (text, Some(stop)),
            Response::Error { message } => self.error = Some(message),
            other => self.error = Some(format!("Unexpected answer from the engine: {other:?}")),
        }
    }
}

/// Generates greedily from `prompt` for `panel`, filling `run` as the costs stream in;
/// `then` sees the finished run.
pub fn measure(
    engine: LabEngine,
    panel: &'static str,
    prompt: StagePrompt,
    cache: CacheMode,
    max_tokens: usize,
    run: RwSignal<Run>,
    mut then: impl FnMut(&Run) + 'static,
) {
    // A second press before Run is disabled (effects run a tick later) is ignored.
    if engine.busy_untracked() {
        return;
    }
    run.set(Run::default());
    // Greedy: the lesson measures cost, and greedy runs are comparable token for token.
    let request = Request::StageMeasure {
        prompt,
        cache,
        settings: SamplerSettings::greedy(),
        max_tokens,
    };
    engine.send(panel, request, move |response| {
        let last = response.is_final();
        run.try_update(|r| r.apply(response));
        if last {
            if let Some(r) = run.try_get_untracked() {
                then(&r);
            }
        }
    });
}

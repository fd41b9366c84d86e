//! A generation with a look inside, as the page keeps it: the context's tokens, the chosen
//! layer's attention rows for every head, the logit lens, and which turn wrote each cached
//! position. Filled from the worker's `StageInspect` responses.

use super::prompt_field::chat_prompt;
use super::run::Run;
use crate::protocol::{CacheMode, Request, Response, StagePrompt};
use crate::ui::lab::LabEngine;
use engine::probe::{AttentionCapture, LensLayer};
use engine::{Message, SamplerSettings};
use leptos::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// 1 for the first turn of a conversation, 2 for the next…
    pub turn: usize,
    /// The chat so far, up to this turn's message (empty for raw text).
    pub messages: Vec<Message>,
    /// The rows' layer (0-based) and every head's rows, by position.
    pub attention: AttentionCapture,
    /// The turn that wrote each cached position (the prompt's, then the generated tokens').
    pub written_by: Vec<usize>,
    pub lens: Vec<LensLayer>,
    /// The prompt, what each token cost, the text and how it ended.
    pub run: Run,
}

impl Inspection {
    /// A first turn, on layer `layer`.
    pub fn new(layer: usize) -> Self {
        Self {
            turn: 1,
            messages: Vec::new(),
            attention: AttentionCapture::new(layer, None),
            written_by: Vec::new(),
            lens: Vec::new(),
            run: Run::default(),
        }
    }

    /// The next turn of the same conversation: the reused positions keep the turn that
    /// wrote them, and their rows (a position's attention never changes once computed: it
    /// sees only earlier positions).
    pub fn next_turn(&self, layer: usize, message: &str) -> Self {
        let mut next = Self::new(layer);
        next.turn = self.turn + 1;
        next.messages = self.messages.clone();
        next.messages
            .extend([Message::assistant(&self.run.text), Message::user(message)]);
        next.written_by = self.written_by[..self.cached()].to_vec();
        if self.attention.layer == layer {
            next.attention.rows = self.attention.rows.clone();
        }
        next
    }

    /// Prompt tokens, then generated ones (by the text each completes).
    pub fn tokens(&self) -> Vec<String> {
        let generated = self.run.costs.iter().map(|c| {
            if c.piece.is_empty() {
                "·".to_string()
            } else {
                c.piece.clone()
            }
        });
        self.run.prompt.iter().cloned().chain(generated).collect()
    }

    /// Positions whose keys and values are in the cache: all but the last generated token,
    /// which no pass has run yet.
    pub fn cached(&self) -> usize {
        (self.run.prompt.len() + self.run.costs.len())
            .saturating_sub(1)
            .min(self.written_by.len())
    }

    /// Bytes one cached position takes, as measured: the cache's size over its positions.
    pub fn measured_bytes_per_position(&self) -> Option<f64> {
        let last = self.run.costs.last()?;
        // `position` is 1-based and counts the token just drawn, which is not cached yet.
        let cached = last.position.checked_sub(1).filter(|&n| n > 0)?;
        Some(last.kv_bytes as f64 / cached as f64)
    }

    /// A chat turn that finished: a next turn may follow it.
    pub fn can_follow(&self) -> bool {
        !self.messages.is_empty() && self.run.complete()
    }

    fn apply(&mut self, response: Response) {
        match response {
            Response::StageLens { layers } => self.lens = layers,
            Response::StageAttention { rows } => self.attention.rows.extend(rows),
            other => {
                let new_prompt = matches!(other, Response::StagePrompt { .. });
                self.run.apply(other);
                let reused = self.run.reused;
                if new_prompt {
                    // Past the reused prefix, what the last turn wrote belongs to its old context.
                    self.written_by.truncate(reused);
                    self.attention.rows.retain(|r| r.position < reused);
                }
                self.written_by
                    .resize(self.run.prompt.len() + self.run.costs.len(), self.turn);
            }
        }
    }
}

/// Generates greedily from `inspection`'s messages (or `raw` text), looking at layer
/// `inspection.attention.layer`.
pub fn inspect(
    engine: LabEngine,
    panel: &'static str,
    raw: Option<String>,
    cache: CacheMode,
    max_tokens: usize,
    inspection: Inspection,
    into: RwSignal<Inspection>,
) {
    if engine.busy_untracked() {
        return;
    }
    let layer = inspection.attention.layer;
    let prompt = raw.map_or_else(
        || chat_prompt(engine, inspection.messages.clone()),
        StagePrompt::Raw,
    );
    into.set(inspection);
    let request = Request::StageInspect {
        prompt,
        cache,
        layer,
        settings: SamplerSettings::greedy(),
        max_tokens,
    };
    engine.send(panel, request, move |response| {
        into.try_update(|i| i.apply(response));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::TokenCost;
    use engine::probe::AttentionRow;
    use engine::StopReason;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn cost(position: usize, piece: &str) -> TokenCost {
        TokenCost {
            position,
            piece: piece.into(),
            ms: 1.0,
            computed: 1,
            kv_bytes: 100 * (position - 1),
        }
    }

    #[wasm_bindgen_test]
    fn a_second_turn_keeps_what_the_first_wrote_and_cached() {
        let mut first = Inspection::new(3);
        first.messages = vec![Message::user("q")];
        first.apply(Response::StagePrompt {
            tokens: vec!["a".into(), "b".into(), "c".into()],
            reused: 0,
        });
        first.apply(Response::StageAttention {
            rows: (0..3)
                .map(|p| AttentionRow {
                    position: p,
                    head: 0,
                    weights: vec![1.0 / (p + 1) as f32; p + 1],
                })
                .collect(),
        });
        first.apply(Response::StageCost { cost: cost(4, "d") });
        first.apply(Response::StageCost { cost: cost(5, "e") });
        assert_eq!(first.tokens(), ["a", "b", "c", "d", "e"]);
        assert_eq!(first.cached(), 4, "the last token was never run");
        assert_eq!(first.measured_bytes_per_position(), Some(100.0));
        first.apply(Response::StageDone {
            text: "de".into(),
            stop: StopReason::EndOfTurn,
        });
        assert!(first.can_follow());
        let mut second = first.next_turn(3, "again");
        assert_eq!(second.turn, 2);
        assert_eq!(
            second.messages,
            [
                Message::user("q"),
                Message::assistant("de"),
                Message::user("again")
            ]
        );
        second.apply(Response::StagePrompt {
            tokens: vec!["a".into(), "b".into(), "x".into(), "y".into(), "z".into()],
            reused: 2,
        });
        assert_eq!(second.written_by, [1, 1, 2, 2, 2]);
        assert_eq!(
            second
                .attention
                .rows
                .iter()
                .map(|r| r.position)
                .collect::<Vec<_>>(),
            [0, 1]
        );
        // On another layer the reused positions have no rows: they were not recomputed.
        assert!(first.next_turn(4, "again").attention.rows.is_empty());
    }
}

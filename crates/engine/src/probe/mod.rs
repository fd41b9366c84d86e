//! Lesson 2's windows into the forward pass: one layer's attention weights and every
//! layer's hidden state, copied out of the real pass on request (`Model::forward_probed`);
//! the logit lens built from those states; and the time of one pass over n tokens.

use crate::error::{EngineError, Result};
use crate::kv_cache::KvCache;
use crate::arch::{Logits, Model};
use crate::sampler::{distribution, SamplerSettings};
use serde::{Deserialize, Serialize};

/// What a forward pass copies out. Both hooks are off by default, and then the pass is
/// the plain one.
#[derive(Debug, Default)]
pub struct Probe {
    pub attention: Option<AttentionCapture>,
    /// When `Some`, refilled by each pass with the last position's hidden state after each
    /// layer it ran (the residual stream, before the final norm).
    pub hidden: Option<Vec<Vec<f32>>>,
}

/// The softmax rows of one layer (0-based), for every query head or one.
#[derive(Debug, Clone, PartialEq)]
pub struct AttentionCapture {
    pub layer: usize,
    pub head: Option<usize>,
    /// In the order the pass computed them.
    pub rows: Vec<AttentionRow>,
}

/// Query `head` at `position` over positions `0..=position`: `weights` sums to 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttentionRow {
    pub position: usize,
    pub head: usize,
    pub weights: Vec<f32>,
}

impl AttentionCapture {
    pub fn new(layer: usize, head: Option<usize>) -> Self {
        Self { layer, head, rows: Vec::new() }
    }

    pub(crate) fn record(&mut self, position: usize, head: usize, weights: &[f32]) {
        if self.head.is_none_or(|h| h == head) {
            self.rows.push(AttentionRow { position, head, weights: weights.to_vec() });
        }
    }

    /// Head `head`'s rows by position, `positions` of them, each padded with zeros to
    /// `positions` columns (above the diagonal nothing is attended). A position recomputed
    /// later (after a rewind) keeps its latest row; one never computed stays `None`.
    pub fn matrix(&self, head: usize, positions: usize) -> Vec<Option<Vec<f32>>> {
        let mut out = vec![None; positions];
        for r in self.rows.iter().filter(|r| r.head == head && r.position < positions) {
            let mut row = vec![0.0; positions];
            row[..r.weights.len()].copy_from_slice(&r.weights);
            out[r.position] = Some(row);
        }
        out
    }
}

/// One layer's most likely next tokens through the logit lens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LensLayer {
    /// 1-based, as the page names layers.
    pub layer: usize,
    pub top: Vec<LensToken>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LensToken {
    pub id: u32,
    pub token: String,
    /// Softmax at temperature 1 over the whole vocabulary.
    pub prob: f32,
}

/// The logit lens: each layer's `hidden` state through the final norm and the output head,
/// its `top` most likely tokens. The last layer's is the model's own next-token distribution.
pub fn logit_lens(model: &Model, hidden: &[Vec<f32>], top: usize) -> Result<Vec<LensLayer>> {
    let plain = SamplerSettings::plain(1.0, 0);
    hidden
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let dist = distribution(&model.head(h)?, &plain, &[]);
            let top = dist
                .top(top)
                .iter()
                .map(|c| LensToken { id: c.id, token: model.tokenizer.token_text(c.id), prob: c.prob })
                .collect();
            Ok(LensLayer { layer: i + 1, top })
        })
        .collect()
}

/// The first layer from which the last layer's top token is every later layer's top token.
pub fn settled_layer(layers: &[LensLayer]) -> Option<usize> {
    let top1 = |l: &LensLayer| l.top.first().map(|t| t.id);
    let last = top1(layers.last()?)?;
    let stays = layers.iter().rev().take_while(|l| top1(l) == Some(last)).count();
    Some(layers[layers.len() - stays].layer)
}

/// Times one forward pass over n tokens at a fixed position: the cache holds the first `at`
/// tokens of a context, and is cut back to them after every pass, so each pass does the
/// same work. Every position's logits are computed, as a draft verification needs.
pub struct PassBench {
    cache: KvCache,
    tokens: Vec<u32>,
    at: usize,
}

impl PassBench {
    /// `tokens` must hold `at` plus the largest pass to time.
    pub fn new(model: &Model, tokens: Vec<u32>, at: usize) -> Result<Self> {
        if at == 0 || at >= tokens.len() {
            return Err(EngineError::InvalidState(format!("a pass at position {at} needs more than {at} tokens")));
        }
        let mut cache = KvCache::new(&model.config);
        model.forward(&tokens[..at], 0, &mut cache, model.config.layers, Logits::Last)?;
        Ok(Self { cache, tokens, at })
    }

    /// The largest pass this context has room for.
    pub fn max_tokens(&self) -> usize {
        self.tokens.len() - self.at
    }

    /// The median of `rounds` passes over `n` tokens, in the milliseconds of `clock`.
    pub fn median_ms(&mut self, model: &Model, n: usize, rounds: usize, clock: &dyn Fn() -> f64) -> Result<f64> {
        if n == 0 || n > self.max_tokens() {
            return Err(EngineError::InvalidState(format!(
                "a pass of {n} tokens; this bench holds 1 to {}",
                self.max_tokens()
            )));
        }
        let chunk = &self.tokens[self.at..self.at + n];
        let mut ms = Vec::with_capacity(rounds.max(1));
        for _ in 0..rounds.max(1) {
            let t0 = clock();
            model.forward(chunk, self.at, &mut self.cache, model.config.layers, Logits::All)?;
            ms.push(clock() - t0);
            self.cache.truncate(self.at);
        }
        ms.sort_by(f64::total_cmp);
        Ok(ms[ms.len() / 2])
    }
}

//! One forward pass taken apart (`Model::forward_timed`, Lesson 2's drawing of a pass): the
//! parts a token goes through, in order, each with the time the pass spent in it (summed
//! over the blocks), its parameters, and the bytes it read and wrote, counted from the real
//! tensors' sizes in memory and the real cache's. Filled by the pass; read by hosts through
//! `engine::probe`.

use serde::{Deserialize, Serialize};

/// A part of the pass, in the order a token goes through them. The seven block parts are
/// summed over every block the pass ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Part {
    /// Each token's row of the embedding matrix (and the activations' room).
    Embedding,
    /// Per block: the RMS norm before attention.
    AttentionNorm,
    /// Per block: queries, keys and values from the normalised stream (with Q/K biases and
    /// norms where the architecture has them).
    QkvProjections,
    /// Per block: RoPE on queries and keys, and the keys and values written to the cache.
    PositionsAndCache,
    /// Per block: every query against every cached key, the softmax, the weighted sum of
    /// cached values.
    Scores,
    /// Per block: attention's output projection, added to the residual stream.
    OutputProjection,
    /// Per block: the RMS norm before the MLP.
    MlpNorm,
    /// Per block: gate and up projections, the activation, the down projection, the add.
    Mlp,
    FinalNorm,
    /// The logits of the last position: the output head (tied to the embedding in SmolLM2).
    OutputHead,
}

pub const PARTS: [Part; 10] = [
    Part::Embedding,
    Part::AttentionNorm,
    Part::QkvProjections,
    Part::PositionsAndCache,
    Part::Scores,
    Part::OutputProjection,
    Part::MlpNorm,
    Part::Mlp,
    Part::FinalNorm,
    Part::OutputHead,
];

/// One part of a timed pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassPart {
    pub part: Part,
    /// Milliseconds of the host's clock spent in it (all blocks together).
    pub ms: f64,
    /// The weights it owns (a tied output head owns none: it reads the embedding's).
    pub parameters: u64,
    /// Weight bytes it read: a matrix's whole size per pass, however many tokens; the
    /// embedding only the tokens' rows.
    pub weight_bytes: u64,
    /// KV cache bytes it read (attention's scores) and wrote (the new positions).
    pub cache_read: u64,
    pub cache_written: u64,
}

/// A pass over `tokens` tokens at positions `start..start + tokens`, taken apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassParts {
    pub tokens: usize,
    pub start: usize,
    pub blocks: usize,
    pub parts: Vec<PassPart>,
}

impl PassParts {
    pub fn total_ms(&self) -> f64 {
        self.parts.iter().map(|p| p.ms).sum()
    }

    /// Each part's share of the measured time, in `parts`' order (all 0 if nothing was
    /// timed, which a clock too coarse for the pass can give).
    pub fn shares(&self) -> Vec<f64> {
        let total = self.total_ms();
        self.parts.iter().map(|p| if total > 0.0 { p.ms / total } else { 0.0 }).collect()
    }
}

/// Adds the host clock's time since the last lap to a part.
pub(crate) struct PartTimer<'a> {
    clock: &'a dyn Fn() -> f64,
    last: f64,
    pub(crate) ms: [f64; PARTS.len()],
}

impl<'a> PartTimer<'a> {
    pub(crate) fn start(clock: &'a dyn Fn() -> f64) -> Self {
        Self { clock, last: clock(), ms: [0.0; PARTS.len()] }
    }

    pub(crate) fn lap(&mut self, part: Part) {
        let now = (self.clock)();
        // A clock that steps back (never, from performance.now) must not give a negative time.
        self.ms[part as usize] += (now - self.last).max(0.0);
        self.last = now;
    }
}

/// `lap` when the pass is timed, nothing otherwise.
pub(crate) fn lap(timer: &mut Option<&mut PartTimer<'_>>, part: Part) {
    if let Some(t) = timer.as_deref_mut() {
        t.lap(part);
    }
}

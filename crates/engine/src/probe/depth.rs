//! Depth, not length: how deep inside the model each token of a reply settles (Chen et al.
//! 2026, "Think Deep, Not Just Long"). For the position that produced token t and each layer
//! l = 1..L, p_{t,l} = softmax(head(final_norm(h_{t,l}))) over the whole vocabulary (the
//! logit lens of every layer); D_{t,l} is the Jensen–Shannon divergence between the model's
//! own p_{t,L} and p_{t,l}. The token settles at c_t = the smallest l with
//! min_{j ≤ l} D_{t,j} ≤ g, and is deep-thinking when c_t ≥ ⌈ρ · L⌉; a reply's
//! deep-thinking ratio (DTR) is deep tokens / tokens.
//!
//! Units: D is computed and kept in nats (natural logarithms, 0 to ln 2), so that saved runs
//! keep their meaning; g and every D compared with it or shown are in a `Unit`, bits by
//! default (D_bits = D_nats / ln 2, 0 to 1), the study's unit (docs/REASONING.md says how
//! that was established).
//!
//! The reply is scored teacher-forced: one prefill over prompt + reply keeps every layer's
//! hidden state at the reply-producing positions (`Model::forward_states`), then the output
//! head takes positions × layers rows in chunks (one matmul per chunk, the head read once
//! per chunk), so the distributions of only one chunk exist at a time. The divergences are
//! kept, so settling depths and the DTR for any g and ρ are a pure function of them
//! (`settle`, `Thresholds::deep`), without the model.
//!
//! Replies that share a prompt (a task's self-consistency samples) are scored after one
//! prefill of it (`SharedPrompt`), with the same divergences, bit for bit.

use crate::arch::{Logits, Model};
use crate::error::{EngineError, Result};
use crate::kv_cache::KvCache;
use crate::parallel;
use crate::quant::FEW_TOKENS;
use serde::{Deserialize, Serialize};

pub use super::depth_thresholds::{settle, Thresholds, Unit, DEFAULT_G, DEFAULT_RHO};

/// Rows (positions × layers) the output head takes at once: 128 rows of a 49,152-token
/// vocabulary are 25 MB of logits, small enough for the browser's worker, large enough that
/// the head's weights are read once for many rows (the prefill kernel's regime).
const CHUNK_ROWS: usize = 128;

/// One scored token: its id and, per layer 1..=L, D_{t,l} (the last is 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenDepth {
    pub id: u32,
    pub jsd: Vec<f32>,
}

/// Scores `reply` as if the model had written it after `prompt` (teacher forcing): one
/// prefill over both, then every reply token's D_{t,l} for l = 1..L.
pub fn score(model: &Model, prompt: &[u32], reply: &[u32]) -> Result<Vec<TokenDepth>> {
    check_prompt(prompt)?;
    score_after(model, prompt, reply, KvCache::new(&model.config))
}

/// A prompt prefilled once, so that several replies after it are scored without prefilling
/// it again (`score` does for each).
pub struct SharedPrompt {
    tokens: Vec<u32>,
    cache: KvCache,
}

impl SharedPrompt {
    pub fn new(model: &Model, prompt: &[u32]) -> Result<Self> {
        check_prompt(prompt)?;
        let mut cache = KvCache::new(&model.config);
        // A prompt of a few tokens would take the decode kernels, which `score`'s pass over
        // prompt and reply does not: each reply's pass takes it whole then.
        if prompt.len() > FEW_TOKENS {
            model.forward(prompt, 0, &mut cache, model.config.layers, Logits::Last)?;
        }
        Ok(Self { tokens: prompt.to_vec(), cache })
    }

    /// `score(model, prompt, reply)`, bit for bit. The pass starts from a copy of the
    /// prompt's cache cut back so that it runs the prompt's last token again (its position
    /// produces the reply's first) and more than `FEW_TOKENS` tokens (so it takes the tiled
    /// kernel, as the one pass over prompt and reply does; each position's arithmetic is
    /// then the same).
    pub fn score(&self, model: &Model, reply: &[u32]) -> Result<Vec<TokenDepth>> {
        let total = self.tokens.len() + reply.len();
        let from = (self.tokens.len() - 1).min(total.saturating_sub(FEW_TOKENS + 1));
        let mut cache = self.cache.clone();
        // A local layer that no longer holds its window empties the cache: the pass then
        // starts at 0 (`KvCache::truncate`).
        cache.truncate(from);
        score_after(model, &self.tokens, reply, cache)
    }
}

fn check_prompt(prompt: &[u32]) -> Result<()> {
    if prompt.is_empty() {
        return Err(EngineError::InvalidPrompt("the prompt is empty".into()));
    }
    Ok(())
}

/// `reply` scored after `prompt`, whose first `cache.len()` positions `cache` holds.
fn score_after(model: &Model, prompt: &[u32], reply: &[u32], mut cache: KvCache) -> Result<Vec<TokenDepth>> {
    if reply.is_empty() {
        return Err(EngineError::InvalidPrompt("the reply has no tokens to score".into()));
    }
    let all: Vec<u32> = prompt.iter().chain(reply).copied().collect();
    // Token i of the reply is produced by the position just before it.
    let first = prompt.len() - 1;
    let keep = first..first + reply.len();
    let start = cache.len();
    let (_, states) = model.forward_states(&all[start..], start, &mut cache, keep)?;
    let jsd = divergences(model, &states.rows, states.layers)?;
    Ok(reply.iter().zip(jsd).map(|(&id, jsd)| TokenDepth { id, jsd }).collect())
}

/// D_{t,l} for hidden states `rows`, position-major with `layers` rows per position (as
/// `LayerStates` holds them; the last of each position is the final layer's): per position,
/// `layers` divergences from that position's last row.
pub fn divergences(model: &Model, rows: &[f32], layers: usize) -> Result<Vec<Vec<f32>>> {
    let (width, vocab) = (model.config.embedding, model.config.vocab);
    if layers == 0 || !rows.len().is_multiple_of(width * layers) {
        return Err(EngineError::InvalidState(format!(
            "{} values are not whole positions of {layers} rows of {width}",
            rows.len()
        )));
    }
    let positions = rows.len() / (width * layers);
    let per_chunk = (CHUNK_ROWS / layers).max(1);
    let mut out = Vec::with_capacity(positions);
    for chunk in rows.chunks(per_chunk * layers * width) {
        let n = chunk.len() / (width * layers);
        // Each row of logits becomes its log-probabilities, in place.
        let mut log_probs = model.head(chunk)?;
        parallel::items(&mut log_probs, n * layers, n * layers * vocab * 4, |_, part| {
            part.chunks_exact_mut(vocab).for_each(log_softmax)
        });
        // The final layer's probabilities, which every layer of its position is compared with.
        let mut last = vec![0f32; n * vocab];
        for (t, p) in last.chunks_exact_mut(vocab).enumerate() {
            let lp = &log_probs[((t + 1) * layers - 1) * vocab..][..vocab];
            p.iter_mut().zip(lp).for_each(|(p, &l)| *p = l.exp());
        }
        let mut d = vec![0f32; n * layers];
        parallel::items(&mut d, n * layers, n * layers * vocab * 8, |range, part| {
            for (r, slot) in range.zip(part) {
                let t = r / layers;
                let lp = &log_probs[((t + 1) * layers - 1) * vocab..][..vocab];
                *slot = jensen_shannon(&last[t * vocab..][..vocab], lp, &log_probs[r * vocab..][..vocab]);
            }
        });
        out.extend(d.chunks_exact(layers).map(<[f32]>::to_vec));
    }
    Ok(out)
}

/// ln softmax, in place: z - max - ln Σ exp(z - max), the sum in f64.
fn log_softmax(z: &mut [f32]) {
    let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = z.iter().map(|&v| ((v - max).exp()) as f64).sum();
    let shift = max + sum.ln() as f32;
    z.iter_mut().for_each(|v| *v -= shift);
}

/// JS(p, q) = ½ Σ p ln(p/m) + ½ Σ q ln(q/m), m = (p + q) / 2, from p's probabilities and
/// both log-probabilities (natural logarithms, so 0 to ln 2), summed in f64. Where p and q
/// are equal the term is exactly 0 and is not computed, so JS(p, p) is exactly 0 (the last
/// layer's D).
fn jensen_shannon(p: &[f32], lp: &[f32], lq: &[f32]) -> f32 {
    let mut sum = 0f64;
    for ((&p, &lp), &lq) in p.iter().zip(lp).zip(lq) {
        if lp == lq {
            continue;
        }
        let q = lq.exp();
        let m = 0.5 * (p + q);
        // Both below f32's range: the term is below 1e-36, and ln 0 would make it NaN.
        if m == 0.0 {
            continue;
        }
        let lm = m.ln();
        sum += (p * (lp - lm) + q * (lq - lm)) as f64;
    }
    // The divergence lies in [0, ln 2]; rounding can put a nearly equal pair a hair below 0.
    ((0.5 * sum) as f32).clamp(0.0, std::f32::consts::LN_2)
}

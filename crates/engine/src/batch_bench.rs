//! One round of the batch benchmark, the same natively (`playground bench --batch N`) and in
//! the browser's worker (bench/batch.mjs): N samples of one prompt at self-consistency's
//! settings, first one fresh `Session` after another, then all in one `BatchDecoder`. Both
//! must produce the very same tokens (tests/batch.rs), so the two times count the same work;
//! a round whose tokens differ is an error, not a figure.

use crate::arch::Model;
use crate::batch::{BatchDecoder, BatchSample};
use crate::error::{EngineError, Result};
use crate::sampler::SamplerSettings;
use crate::session::Session;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Most samples and tokens a round may ask for.
pub const MAX_SAMPLES: usize = 32;
pub const MAX_TOKENS: usize = 1024;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchRound {
    pub samples: usize,
    /// Tokens generated over all samples (each ends at end of turn or `max_tokens`).
    pub generated_tokens: usize,
    /// Whole runs, prefill included (the batch computes the prompt once).
    pub sequential_ms: f64,
    pub batched_ms: f64,
    /// Decode alone: every token after each sample's first.
    pub sequential_decode_ms: f64,
    pub batched_decode_ms: f64,
}

/// Sample `i` of `n`: self-consistency's sampler (T = 0.7, top-k 40), seed `i`.
pub fn samples(n: usize, max_tokens: usize) -> Result<Vec<BatchSample>> {
    let bad = |name, value: usize, reason| Err(EngineError::InvalidSetting { name, value: value.to_string(), reason });
    if !(1..=MAX_SAMPLES).contains(&n) {
        return bad("samples", n, "must be 1 to 32");
    }
    if !(1..=MAX_TOKENS).contains(&max_tokens) {
        return bad("max_tokens", max_tokens, "must be 1 to 1024");
    }
    let settings =
        SamplerSettings { temperature: 0.7, top_k: 40, top_p: 1.0, min_p: 0.0, ..SamplerSettings::default() };
    Ok((0..n as u64).map(|seed| BatchSample { seed, settings: settings.clone(), max_tokens }).collect())
}

/// Times one round. `new_session` makes a fresh session on `model`; `now` is the host's
/// clock in milliseconds.
pub fn round(
    model: &Arc<Model>,
    prompt: &[u32],
    samples: &[BatchSample],
    new_session: impl Fn() -> Session,
    now: impl Fn() -> f64,
) -> Result<BatchRound> {
    let t0 = now();
    let (mut tokens, mut sequential_decode_ms) = (Vec::new(), 0.0);
    for s in samples {
        let mut session = new_session();
        session.start(prompt, s.seed)?;
        let g = session.generate(&s.settings, s.max_tokens, |_| true)?;
        sequential_decode_ms += g.timings.decode_ms.iter().sum::<f64>();
        tokens.push(g.tokens);
    }
    let t1 = now();
    let mut batch = BatchDecoder::new(model.clone(), prompt, samples)?;
    let t2 = now();
    batch.run()?;
    let t3 = now();
    if batch.sequences().iter().zip(&tokens).any(|(b, t)| &b.tokens != t) {
        return Err(EngineError::InvalidState(
            "the batched samples differ from the sequential ones (an engine bug)".into(),
        ));
    }
    Ok(BatchRound {
        samples: samples.len(),
        generated_tokens: tokens.iter().map(Vec::len).sum(),
        sequential_ms: t1 - t0,
        batched_ms: t3 - t1,
        sequential_decode_ms,
        batched_decode_ms: t3 - t2,
    })
}

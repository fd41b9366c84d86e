//! The time of one forward pass over n tokens (Lesson 2's pass cost).

use crate::arch::{Logits, Model};
use crate::error::{EngineError, Result};
use crate::kv_cache::KvCache;

/// Times one forward pass over n tokens at a fixed position: the cache holds the first `at`
/// tokens of a context, and is put back to them after every pass (a copy: a local layer
/// cannot always be cut back), so each pass does the same work. Every position's logits are
/// computed, as a draft verification needs.
pub struct PassBench {
    cache: KvCache,
    /// The cache of the first `at` tokens, as it was before any pass.
    base: KvCache,
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
        Ok(Self { base: cache.clone(), cache, tokens, at })
    }

    /// The largest pass this context has room for.
    pub fn max_tokens(&self) -> usize {
        self.tokens.len() - self.at
    }

    /// Bytes of keys and values one position takes in the bench's real cache (the serving
    /// simulator's memory cost).
    pub fn kv_bytes_per_position(&self) -> f64 {
        self.cache.bytes() as f64 / self.cache.len() as f64
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
            self.cache.clone_from(&self.base);
        }
        ms.sort_by(f64::total_cmp);
        Ok(ms[ms.len() / 2])
    }
}

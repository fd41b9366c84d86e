//! Several samples of one prompt decoded together (self-consistency's N samples, the
//! CLI's `bench --batch`). The prompt is computed once and its KV cache copied to every
//! sequence; each step then runs one forward pass for all live sequences, the matmuls
//! over them as rows of one batch (each weight block unpacked once for up to 8 sequences)
//! and attention per sequence over its own cache. Decode is bound by reading the weights,
//! so sharing that read is where the speed comes from.
//!
//! Every sequence gets exactly the tokens that `Session::start(prompt, seed)` on a fresh
//! session, then `Session::generate(settings, max_tokens)`, would give: the same prefill
//! pass, bit-identical decode logits (`Model::forward_batch`), the same sampler and the
//! same seeded generator.

use crate::error::{EngineError, Result};
use crate::kv_cache::KvCache;
use crate::model::{Logits, Model};
use crate::sampler::{distribution, Rng, SamplerSettings};
use crate::session::{check_prompt, StopReason};
use std::sync::Arc;

/// What one sequence of a batch is asked for: as `Session::start(prompt, seed)` then
/// `Session::generate(&settings, max_tokens)`.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSample {
    pub seed: u64,
    pub settings: SamplerSettings,
    pub max_tokens: usize,
}

/// One sample being decoded.
pub struct Sequence {
    /// The tokens drawn so far, an end-of-turn token included.
    pub tokens: Vec<u32>,
    /// Why it ended; `None` while it is live.
    pub stop: Option<StopReason>,
    sample: BatchSample,
    rng: Rng,
    /// Prompt then drawn tokens: the repetition penalty's history.
    context: Vec<u32>,
    cache: KvCache,
    /// Next-token logits after `context`.
    logits: Vec<f32>,
}

pub struct BatchDecoder {
    model: Arc<Model>,
    sequences: Vec<Sequence>,
}

impl BatchDecoder {
    /// Computes `prompt` once and sets up one sequence per sample, each to stop at end of
    /// turn, after its `max_tokens` tokens, or when the context is full.
    pub fn new(model: Arc<Model>, prompt: &[u32], samples: &[BatchSample]) -> Result<Self> {
        let c = &model.config;
        check_prompt(prompt, c.context, c.vocab)?;
        if samples.is_empty() {
            return Err(EngineError::InvalidState("a batch needs at least one sample".into()));
        }
        for s in samples {
            s.settings.validate()?;
        }
        let mut cache = KvCache::new(c);
        let logits = model.forward(prompt, 0, &mut cache, c.layers, Logits::Last)?;
        let sequences = samples
            .iter()
            .map(|sample| Sequence {
                tokens: Vec::new(),
                stop: (sample.max_tokens == 0).then_some(StopReason::MaxTokens),
                sample: sample.clone(),
                rng: Rng::new(sample.seed),
                context: prompt.to_vec(),
                cache: cache.clone(),
                logits: logits.clone(),
            })
            .collect();
        Ok(Self { model, sequences })
    }

    pub fn sequences(&self) -> &[Sequence] {
        &self.sequences
    }

    pub fn is_done(&self) -> bool {
        self.sequences.iter().all(|s| s.stop.is_some())
    }

    /// Sequence `i`'s text so far, without a trailing end-of-turn token.
    pub fn text(&self, i: usize) -> String {
        let tokens = &self.sequences[i].tokens;
        let tokens = match tokens.last() {
            Some(&t) if self.model.tokenizer.ends_reply(t) => &tokens[..tokens.len() - 1],
            _ => tokens,
        };
        self.model.tokenizer.decode(tokens)
    }

    /// Draws one token for every live sequence, then runs one batched forward pass for
    /// those that go on. Returns the token each sequence drew (`None` for those already
    /// finished).
    pub fn step(&mut self) -> Result<Vec<Option<u32>>> {
        let (tok, context) = (&self.model.tokenizer, self.model.config.context);
        let mut drawn = vec![None; self.sequences.len()];
        for (s, d) in self.sequences.iter_mut().zip(&mut drawn).filter(|(s, _)| s.stop.is_none()) {
            let token = distribution(&s.logits, &s.sample.settings, &s.context).draw(s.rng.next_f64());
            s.tokens.push(token);
            s.context.push(token);
            *d = Some(token);
            // The order of `Session::generate`'s checks.
            s.stop = if tok.ends_reply(token) {
                Some(StopReason::EndOfTurn)
            } else if s.tokens.len() >= s.sample.max_tokens {
                Some(StopReason::MaxTokens)
            } else if s.context.len() >= context {
                Some(StopReason::ContextFull)
            } else {
                None
            };
        }
        let mut live: Vec<&mut Sequence> = self.sequences.iter_mut().filter(|s| s.stop.is_none()).collect();
        if !live.is_empty() {
            let tokens: Vec<u32> = live.iter().map(|s| s.tokens[s.tokens.len() - 1]).collect();
            let mut caches: Vec<&mut KvCache> = live.iter_mut().map(|s| &mut s.cache).collect();
            let logits = self.model.forward_batch(&tokens, &mut caches)?;
            for (s, l) in live.iter_mut().zip(logits.chunks_exact(self.model.config.vocab)) {
                s.logits.copy_from_slice(l);
            }
        }
        Ok(drawn)
    }

    /// Steps until every sequence has finished.
    pub fn run(&mut self) -> Result<()> {
        while !self.is_done() {
            self.step()?;
        }
        Ok(())
    }
}

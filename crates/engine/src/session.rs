//! A generation session: the context, its KV cache, the seeded sampler state and the
//! timings. The invariant that makes prefill, decode, rewind, forced tokens and prefix
//! reuse one mechanism: the cache holds the first `cache.len()` context tokens, and the
//! logits, when present, are the next-token logits after the whole context. Whatever is
//! missing is computed on demand, in one chunk.

use crate::arch::hooks::Probe;
use crate::arch::{Logits, Model};
use crate::error::{EngineError, Result};
use crate::kv_cache::KvCache;
use crate::sampler::{distribution, sample, Distribution, Rng, SamplerSettings};
use crate::tokenizer::TextStream;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Milliseconds from an arbitrary origin. The host supplies it: `Instant` natively,
/// `performance.now()` in a worker (wasm32 has no clock of its own).
pub type Clock = Box<dyn Fn() -> f64 + Send>;

/// What one step did and decided.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    pub token: u32,
    /// The token's own text (bytes that are not UTF-8 alone show as `<0xNN>`).
    pub token_text: String,
    /// The text this token completes in the stream: never half a character.
    pub piece: String,
    /// Its probability in the final distribution (1 for greedy, 0 if forced outside it).
    pub prob: f32,
    /// Its log-probability under the model itself: softmax of the raw logits at T = 1,
    /// before any penalty or cut. How plausible the model found it, whatever the sampler did.
    pub model_logprob: f32,
    pub forced: bool,
    /// Tokens run through the model to produce the logits it was drawn from, and how long
    /// that took: the whole prompt for the first token, one token per step after that.
    pub computed: usize,
    pub forward_ms: f64,
    pub sample_ms: f64,
    /// End of turn or end of text.
    pub stop: bool,
    #[serde(skip)]
    pub distribution: Option<Distribution>,
}

/// How a new prompt met the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Reuse {
    /// Leading tokens whose keys and values were already cached.
    pub reused: usize,
    /// Tokens left to compute.
    pub computed: usize,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Timings {
    pub prefill_ms: f64,
    pub prefill_tokens: usize,
    /// From the start of prefill to the first token drawn.
    pub ttft_ms: f64,
    /// Per generated token after the first: forward plus sampling.
    pub decode_ms: Vec<f64>,
}

impl Timings {
    pub fn prefill_tokens_per_s(&self) -> f64 {
        rate(self.prefill_tokens, self.prefill_ms)
    }
    pub fn decode_tokens_per_s(&self) -> f64 {
        rate(self.decode_ms.len(), self.decode_ms.iter().sum())
    }
}

fn rate(n: usize, ms: f64) -> f64 {
    if ms > 0.0 {
        n as f64 * 1000.0 / ms
    } else {
        0.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The model ended its turn (`<|im_end|>` or `<|endoftext|>`).
    EndOfTurn,
    MaxTokens,
    Cancelled,
    ContextFull,
    /// A stop sequence the host asked for appeared in the text (the playground's worker).
    StopSequence,
}

/// A finished (or stopped) generation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Generation {
    pub text: String,
    pub tokens: Vec<u32>,
    pub steps: Vec<Step>,
    pub stop: StopReason,
    pub reuse: Reuse,
    pub timings: Timings,
}

pub struct Session {
    pub(crate) model: Arc<Model>,
    pub(crate) cache: KvCache,
    pub(crate) tokens: Vec<u32>,
    prompt_len: usize,
    /// Next-token logits after all of `tokens`, when known.
    pub(crate) logits: Option<Vec<f32>>,
    pub(crate) rng: Rng,
    stream: TextStream,
    pub(crate) clock: Clock,
    /// With the cache off, every step recomputes the whole context from scratch.
    pub use_cache: bool,
    max_context: usize,
    pub(crate) timings: Timings,
    reuse: Reuse,
    /// Forward work since the last token was drawn: it is charged to the next token.
    pub(crate) pending_ms: f64,
    pub(crate) pending_computed: usize,
    /// What prefill and decode passes copy out for Lesson 2 (attention rows, hidden states);
    /// off unless the host turns it on. Speculative drafts and verifications are not probed.
    pub probe: Probe,
}

impl Session {
    pub fn new(model: Arc<Model>, clock: Clock) -> Self {
        let max_context = model.config.context;
        Self {
            cache: KvCache::new(&model.config),
            model,
            tokens: Vec::new(),
            prompt_len: 0,
            logits: None,
            rng: Rng::new(0),
            stream: TextStream::default(),
            clock,
            use_cache: true,
            max_context,
            timings: Timings::default(),
            reuse: Reuse::default(),
            pending_ms: 0.0,
            pending_computed: 0,
            probe: Probe::default(),
        }
    }

    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// Caps the context below the model's own: the cache grows with it.
    pub fn set_max_context(&mut self, n: usize) {
        self.max_context = n.clamp(2, self.model.config.context);
    }

    pub fn max_context(&self) -> usize {
        self.max_context
    }

    /// The whole context: prompt, then generated tokens.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    pub fn prompt_len(&self) -> usize {
        self.prompt_len
    }

    pub fn generated(&self) -> usize {
        self.tokens.len() - self.prompt_len
    }

    /// The generated text so far, without a trailing end-of-turn marker.
    pub fn text(&self) -> String {
        let gen = &self.tokens[self.prompt_len..];
        let gen = match gen.last() {
            Some(&t) if self.is_stop(t) => &gen[..gen.len() - 1],
            _ => gen,
        };
        self.model.tokenizer.decode(gen)
    }

    pub fn kv_len(&self) -> usize {
        self.cache.len()
    }

    /// Bytes of keys and values cached now: 2 × layers × kv_heads × head_dim × positions × 4.
    pub fn kv_bytes(&self) -> usize {
        self.cache.bytes()
    }

    pub fn timings(&self) -> &Timings {
        &self.timings
    }

    /// The next-token logits, once computed.
    pub fn logits(&self) -> Option<&[f32]> {
        self.logits.as_deref()
    }

    /// Replaces the generator that the next draws use (Lesson 1 seeds every position itself).
    pub fn set_rng(&mut self, rng: Rng) {
        self.rng = rng;
    }

    pub fn is_stop(&self, token: u32) -> bool {
        self.model.tokenizer.ends_reply(token)
    }

    /// Forgets the context and its cache: the next `start` computes its whole prompt, as on
    /// a fresh session.
    pub fn clear(&mut self) {
        self.tokens.clear();
        self.prompt_len = 0;
        self.cache.clear();
        self.logits = None;
    }

    /// Begins a new generation from `prompt`, reusing the cached keys and values of its
    /// longest common prefix with the current context. Nothing is computed yet.
    pub fn start(&mut self, prompt: &[u32], seed: u64) -> Result<Reuse> {
        check_prompt(prompt, self.max_context, self.model.config.vocab)?;
        let common = self.tokens.iter().zip(prompt).take_while(|(a, b)| a == b).count();
        // At least one token is computed: its logits give the first distribution.
        self.cache.truncate(common.min(prompt.len() - 1));
        // A local layer may not hold what position `keep` must see: then nothing is kept.
        let keep = self.cache.len();
        self.tokens = prompt.to_vec();
        self.prompt_len = prompt.len();
        self.logits = None;
        self.rng = Rng::new(seed);
        self.stream = TextStream::default();
        self.timings = Timings::default();
        self.reuse = Reuse { reused: keep, computed: prompt.len() - keep };
        self.pending_ms = 0.0;
        self.pending_computed = 0;
        Ok(self.reuse)
    }

    /// Computes up to `max` of the context tokens missing from the cache (the worker goes
    /// in slices so that Cancel is heard). Returns true once the logits are ready.
    pub fn prefill_chunk(&mut self, max: usize) -> Result<bool> {
        if self.logits.is_some() {
            return Ok(true);
        }
        if self.tokens.is_empty() {
            return Err(EngineError::InvalidState("there is no prompt yet".into()));
        }
        let t0 = (self.clock)();
        let (from, to) = if self.use_cache {
            let from = self.cache.len();
            (from, from.saturating_add(max.max(1)).min(self.tokens.len()))
        } else {
            // No cache: the whole context every time, and nothing kept afterwards.
            self.cache.clear();
            (0, self.tokens.len())
        };
        let layers = self.model.config.layers;
        let out = self.model.forward_probed(
            &self.tokens[from..to],
            from,
            &mut self.cache,
            layers,
            Logits::Last,
            &mut self.probe,
        )?;
        if !self.use_cache {
            self.cache.clear();
        }
        let ms = (self.clock)() - t0;
        if self.generated() == 0 {
            self.timings.prefill_ms += ms;
            self.timings.prefill_tokens += to - from;
        }
        self.pending_ms += ms;
        self.pending_computed += to - from;
        let done = to == self.tokens.len();
        if done {
            self.logits = Some(out);
        }
        Ok(done)
    }

    /// The prompt's tokens computed so far by `prefill_chunk`, of those it has to compute
    /// (the context minus what the cache already held).
    pub fn prefill_progress(&self) -> (usize, usize) {
        (self.pending_computed, self.reuse.computed)
    }

    pub(crate) fn ensure_logits(&mut self) -> Result<&[f32]> {
        while !self.prefill_chunk(usize::MAX)? {}
        Ok(self.logits.as_deref().unwrap_or_default())
    }

    /// The distribution of the next token under `settings`, computing logits if needed.
    pub fn distribution(&mut self, settings: &SamplerSettings) -> Result<Distribution> {
        settings.validate()?;
        self.ensure_logits()?;
        let logits = self.logits.as_deref().unwrap_or_default();
        Ok(distribution(logits, settings, &self.tokens))
    }

    pub(crate) fn check_room(&self) -> Result<()> {
        if self.tokens.len() >= self.max_context {
            return Err(EngineError::InvalidState(format!("the context is full ({} tokens)", self.max_context)));
        }
        Ok(())
    }

    /// Draws the next token with the session's seeded generator and appends it; the step
    /// keeps the whole distribution it was drawn from.
    pub fn step(&mut self, settings: &SamplerSettings) -> Result<Step> {
        self.sample_step(settings, true)
    }

    /// `step` without the distribution (`Step::distribution` is `None`): the same token, the
    /// same probability and the same generator, with the sampler ranking only as far as its
    /// cuts and its draw reach (`sampler::sample`) instead of all 49k candidates.
    pub fn step_without_distribution(&mut self, settings: &SamplerSettings) -> Result<Step> {
        self.sample_step(settings, false)
    }

    fn sample_step(&mut self, settings: &SamplerSettings, keep_distribution: bool) -> Result<Step> {
        self.check_room()?;
        settings.validate()?;
        // A forward pass still owed is charged to the forward time…
        self.ensure_logits()?;
        // …and the whole sampler (penalty, softmax, ranking candidates, cuts, draw) to the
        // sampling time. Timing only the draw left out about 2 ms a token in the browser.
        let t0 = (self.clock)();
        let (logits, u) = (self.logits.as_deref().unwrap_or_default(), self.rng.next_f64());
        let (token, prob, dist) = match keep_distribution {
            true => {
                let dist = distribution(logits, settings, &self.tokens);
                let token = dist.draw(u);
                (token, dist.get(token).map_or(0.0, |c| c.final_prob), Some(dist))
            }
            false => {
                let (token, prob) = sample(logits, settings, &self.tokens, u);
                (token, prob, None)
            }
        };
        let sample_ms = (self.clock)() - t0;
        Ok(self.push(token, prob, dist, sample_ms, false))
    }

    /// Appends `token` as if it had been drawn (the learner clicked its bar).
    pub fn force(&mut self, token: u32, settings: &SamplerSettings) -> Result<Step> {
        self.check_room()?;
        if token as usize >= self.model.config.vocab {
            return Err(EngineError::InvalidState(format!("token id {token} is outside the vocabulary")));
        }
        let dist = self.distribution(settings)?;
        let prob = dist.get(token).map_or(0.0, |c| c.final_prob);
        Ok(self.push(token, prob, Some(dist), 0.0, true))
    }

    /// Appends a decided token, charging it the forward work pending since the last one.
    pub(crate) fn push(
        &mut self,
        token: u32,
        prob: f32,
        dist: Option<Distribution>,
        sample_ms: f64,
        forced: bool,
    ) -> Step {
        let model_logprob = self.logits.as_deref().map_or(f32::NAN, |l| log_softmax_at(l, token));
        if self.generated() == 0 {
            self.timings.ttft_ms = self.timings.prefill_ms + sample_ms;
        } else {
            self.timings.decode_ms.push(self.pending_ms + sample_ms);
        }
        let stop = self.is_stop(token);
        let tok = &self.model.tokenizer;
        let piece = if stop { String::new() } else { self.stream.push(tok.token_bytes(token)) };
        let step = Step {
            token,
            token_text: tok.token_text(token),
            piece,
            prob,
            model_logprob,
            forced,
            computed: self.pending_computed,
            forward_ms: self.pending_ms,
            sample_ms,
            stop,
            distribution: dist,
        };
        self.tokens.push(token);
        self.logits = None;
        self.pending_ms = 0.0;
        self.pending_computed = 0;
        step
    }

    /// Removes the last `n` generated tokens; the cache is cut back so that the next step
    /// recomputes only the last remaining token.
    pub fn rewind(&mut self, n: usize) -> Result<()> {
        if n > self.generated() {
            return Err(EngineError::InvalidState(format!(
                "cannot rewind {n} tokens: {} were generated",
                self.generated()
            )));
        }
        let len = self.tokens.len() - n;
        self.tokens.truncate(len);
        self.cache.truncate(self.cache.len().min(len - 1));
        self.logits = None;
        self.pending_ms = 0.0;
        self.pending_computed = 0;
        self.stream = TextStream::default();
        for &t in &self.tokens[self.prompt_len..] {
            self.stream.push(self.model.tokenizer.token_bytes(t));
        }
        Ok(())
    }

    /// Runs to an end-of-turn token or `max_tokens`. `on_step` sees every step and may
    /// return false to cancel.
    pub fn generate(
        &mut self,
        settings: &SamplerSettings,
        max_tokens: usize,
        mut on_step: impl FnMut(&Step) -> bool,
    ) -> Result<Generation> {
        settings.validate()?;
        let mut steps = Vec::new();
        let stop = loop {
            if steps.len() >= max_tokens {
                break StopReason::MaxTokens;
            }
            if self.tokens.len() >= self.max_context {
                break StopReason::ContextFull;
            }
            let step = self.step_without_distribution(settings)?;
            let go_on = on_step(&step);
            let end = step.stop;
            steps.push(step);
            if end {
                break StopReason::EndOfTurn;
            }
            if !go_on {
                break StopReason::Cancelled;
            }
        };
        Ok(self.finish(steps, stop))
    }

    pub(crate) fn finish(&self, steps: Vec<Step>, stop: StopReason) -> Generation {
        Generation {
            text: self.text(),
            tokens: self.tokens[self.prompt_len..].to_vec(),
            steps,
            stop,
            reuse: self.reuse,
            timings: self.timings.clone(),
        }
    }
}

/// A prompt can start a generation: not empty, leaving room in a context of `max_context`
/// for at least one token, and every id in the vocabulary.
pub(crate) fn check_prompt(prompt: &[u32], max_context: usize, vocab: usize) -> Result<()> {
    if prompt.is_empty() {
        return Err(EngineError::InvalidPrompt("the prompt is empty".into()));
    }
    if prompt.len() >= max_context {
        return Err(EngineError::InvalidPrompt(format!(
            "the prompt is {} tokens, and the context holds {max_context}; shorten it so that there is room for an answer",
            prompt.len(),
        )));
    }
    if let Some(&bad) = prompt.iter().find(|&&t| t as usize >= vocab) {
        return Err(EngineError::InvalidPrompt(format!("token id {bad} is outside the vocabulary")));
    }
    Ok(())
}

/// ln softmax(logits)[token], computed stably in f64.
pub fn log_softmax_at(logits: &[f32], token: u32) -> f32 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let lse = max + logits.iter().map(|&l| (l as f64 - max).exp()).sum::<f64>().ln();
    (logits[token as usize] as f64 - lse) as f32
}

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
//!
//! A token is run through the model only when the next one is wanted (as in `Session`), so
//! between two steps the host may end a sequence or append tokens of its own to it (`force`:
//! Lesson 3's `Answer:` after a spent budget). A sequence with several tokens waiting
//! computes them in one chunk on its own, exactly as a session's prefill of the same tokens
//! would; the others go on together in the batch's pass.

use crate::arch::{Logits, Model};
use crate::error::{EngineError, Result};
use crate::kv_cache::KvCache;
use crate::sampler::{sample, Rng, SamplerSettings};
use crate::session::{check_prompt, Session, StopReason};
use std::sync::Arc;

/// What one sequence of a batch is asked for: as `Session::start(prompt, seed)` then
/// `Session::generate(&settings, max_tokens)`. `max_tokens` counts every token after the
/// prompt, forced ones included.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSample {
    pub seed: u64,
    pub settings: SamplerSettings,
    pub max_tokens: usize,
}

/// One sample being decoded.
pub struct Sequence {
    /// The tokens after the prompt so far (drawn and forced), an end-of-turn token included.
    pub tokens: Vec<u32>,
    /// Why it ended; `None` while it is live.
    pub stop: Option<StopReason>,
    sample: BatchSample,
    rng: Rng,
    /// Prompt then drawn tokens: the repetition penalty's history.
    context: Vec<u32>,
    cache: KvCache,
    /// The end of `context` not yet run through the model.
    pending: Vec<u32>,
    /// Next-token logits after `context`, once `pending` is empty.
    logits: Vec<f32>,
}

pub struct BatchDecoder {
    model: Arc<Model>,
    sequences: Vec<Sequence>,
    /// Most positions a sequence may reach.
    context: usize,
}

fn check_samples(samples: &[BatchSample]) -> Result<()> {
    if samples.is_empty() {
        return Err(EngineError::InvalidState("a batch needs at least one sample".into()));
    }
    samples.iter().try_for_each(|s| s.settings.validate())
}

impl Sequence {
    fn push(&mut self, token: u32) {
        self.tokens.push(token);
        self.context.push(token);
        self.pending.push(token);
    }

    /// `MaxTokens` or `ContextFull` when the sequence may not grow, else `None`.
    fn room_left(&self, context: usize) -> Option<StopReason> {
        if self.tokens.len() >= self.sample.max_tokens {
            Some(StopReason::MaxTokens)
        } else if self.context.len() >= context {
            Some(StopReason::ContextFull)
        } else {
            None
        }
    }
}

impl BatchDecoder {
    /// Computes `prompt` once and sets up one sequence per sample, each to stop at end of
    /// turn, after its `max_tokens` tokens, or when the model's context is full.
    pub fn new(model: Arc<Model>, prompt: &[u32], samples: &[BatchSample]) -> Result<Self> {
        let c = &model.config;
        check_prompt(prompt, c.context, c.vocab)?;
        check_samples(samples)?;
        let mut cache = KvCache::new(c);
        let logits = model.forward(prompt, 0, &mut cache, c.layers, Logits::Last)?;
        let context = c.context;
        Ok(Self::from_prefix(model, prompt, &cache, &logits, samples, context))
    }

    /// Continues the session's context instead, whose cache and next-token logits (computed
    /// already: prefill it first) every sequence starts from; they stop where its context is
    /// full. Each sequence gets exactly the tokens `Session::generate` would give on the
    /// session as it is, with the sample's seed.
    pub fn from_session(session: &Session, samples: &[BatchSample]) -> Result<Self> {
        check_samples(samples)?;
        let (prompt, logits) = (session.tokens(), session.logits());
        let logits = match logits {
            Some(l) if session.cache.len() == prompt.len() => l,
            _ => return Err(EngineError::InvalidState("the session's context is not computed and cached yet".into())),
        };
        if prompt.len() >= session.max_context() {
            return Err(EngineError::InvalidState(format!("the context is full ({} tokens)", session.max_context())));
        }
        let model = session.model().clone();
        Ok(Self::from_prefix(model, prompt, &session.cache, logits, samples, session.max_context()))
    }

    fn from_prefix(
        model: Arc<Model>,
        prompt: &[u32],
        cache: &KvCache,
        logits: &[f32],
        samples: &[BatchSample],
        context: usize,
    ) -> Self {
        let sequences = samples
            .iter()
            .map(|sample| Sequence {
                tokens: Vec::new(),
                stop: (sample.max_tokens == 0).then_some(StopReason::MaxTokens),
                sample: sample.clone(),
                rng: Rng::new(sample.seed),
                context: prompt.to_vec(),
                cache: cache.clone(),
                pending: Vec::new(),
                logits: logits.to_vec(),
            })
            .collect();
        Self { model, sequences, context }
    }

    /// How many sequences of at most `longest` positions each (prompt included) one batch
    /// should take: at most 8, since the batched matmul shares each weight read among up to
    /// 8 rows, so more would add memory, not speed; and, since every sequence keeps a KV
    /// cache of its own, together no more positions than `max_context`, the context the host
    /// allows one session (the page caps it to bound memory).
    pub fn width(max_context: usize, longest: usize) -> usize {
        (max_context / longest.max(1)).clamp(1, 8)
    }

    pub fn sequences(&self) -> &[Sequence] {
        &self.sequences
    }

    pub fn is_done(&self) -> bool {
        self.sequences.iter().all(|s| s.stop.is_some())
    }

    /// The next-token logits sequence `i` drew its last token from, until the next `step`
    /// (after a `force`, those before the forced tokens).
    pub fn logits(&self, i: usize) -> &[f32] {
        &self.sequences[i].logits
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

    /// Runs every live sequence's waiting tokens through the model (one batched pass for
    /// those with one token waiting), then draws one token for each. Returns the token each
    /// sequence drew (`None` for those already finished).
    pub fn step(&mut self) -> Result<Vec<Option<u32>>> {
        self.compute_pending()?;
        let (tok, context) = (&self.model.tokenizer, self.context);
        let mut drawn = vec![None; self.sequences.len()];
        for (s, d) in self.sequences.iter_mut().zip(&mut drawn).filter(|(s, _)| s.stop.is_none()) {
            let (token, _) = sample(&s.logits, &s.sample.settings, &s.context, s.rng.next_f64());
            s.push(token);
            *d = Some(token);
            // The order of `Session::generate`'s checks.
            s.stop = if tok.ends_reply(token) { Some(StopReason::EndOfTurn) } else { s.room_left(context) };
        }
        Ok(drawn)
    }

    /// Appends `tokens` to live sequence `i` as if drawn, and draws its next tokens with a
    /// generator started from `seed`: what `Session::start(context + tokens, seed)` does
    /// to the session's context. They are computed, in one chunk, at the next step.
    pub fn force(&mut self, i: usize, tokens: &[u32], seed: u64) -> Result<()> {
        let (vocab, context) = (self.model.config.vocab, self.context);
        let s = self.live(i)?;
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= vocab) {
            return Err(EngineError::InvalidState(format!("token id {bad} is outside the vocabulary")));
        }
        if s.context.len() + tokens.len() >= context {
            return Err(EngineError::InvalidState(format!("the context is full ({context} tokens)")));
        }
        for &t in tokens {
            s.push(t);
        }
        s.rng = Rng::new(seed);
        s.stop = s.room_left(context);
        Ok(())
    }

    /// Ends sequence `i`, if it is still live: the host has what it wanted from it.
    pub fn stop(&mut self, i: usize) -> Result<()> {
        let n = self.sequences.len();
        let s = self
            .sequences
            .get_mut(i)
            .ok_or_else(|| EngineError::InvalidState(format!("sequence {i} of a batch of {n}")))?;
        s.stop.get_or_insert(StopReason::StopSequence);
        Ok(())
    }

    fn live(&mut self, i: usize) -> Result<&mut Sequence> {
        match self.sequences.get_mut(i) {
            Some(s) if s.stop.is_none() => Ok(s),
            _ => Err(EngineError::InvalidState(format!("sequence {i} is not a live sequence of this batch"))),
        }
    }

    /// The live sequences' waiting tokens through the model: one token each in one batched
    /// pass, several (a forced chunk) in a pass of their own.
    fn compute_pending(&mut self) -> Result<()> {
        let (model, vocab) = (&self.model, self.model.config.vocab);
        let mut one: Vec<&mut Sequence> = Vec::new();
        for s in self.sequences.iter_mut().filter(|s| s.stop.is_none() && !s.pending.is_empty()) {
            if s.pending.len() == 1 {
                one.push(s);
            } else {
                let start = s.cache.len();
                s.logits = model.forward(&s.pending, start, &mut s.cache, model.config.layers, Logits::Last)?;
                s.pending.clear();
            }
        }
        if !one.is_empty() {
            let tokens: Vec<u32> = one.iter().map(|s| s.pending[0]).collect();
            let mut caches: Vec<&mut KvCache> = one.iter_mut().map(|s| &mut s.cache).collect();
            let logits = model.forward_batch(&tokens, &mut caches)?;
            for (s, l) in one.iter_mut().zip(logits.chunks_exact(vocab)) {
                s.logits.copy_from_slice(l);
                s.pending.clear();
            }
        }
        Ok(())
    }

    /// Steps until every sequence has finished.
    pub fn run(&mut self) -> Result<()> {
        while !self.is_done() {
            self.step()?;
        }
        Ok(())
    }
}

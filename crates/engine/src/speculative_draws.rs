//! What Lesson 2 counts to test speculative sampling: the first two tokens speculation emits
//! from one context with one seed. The first token tests the accept/reject rule and the
//! residual draw; the second, given the first, tests what a single token cannot: that the
//! drafts' history (the repetition penalty's window, the draft's own context) and the
//! bonus token after a fully accepted draft are right.

use crate::error::{EngineError, Result};
use crate::sampler::SamplerSettings;
use crate::session::Session;
use crate::speculative::Draft;

/// The first two tokens of a speculative generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoTokens {
    pub first: u32,
    /// `None` when the generation ended at the first token (an end of turn, a full context).
    pub second: Option<u32>,
    /// Whether the first cycle's first drafted token was accepted.
    pub first_accepted: bool,
}

impl Session {
    /// Starts `ids` with `seed` and runs draft-and-verify cycles until two tokens are out:
    /// one cycle when it accepted a draft, else a second cycle for the second token. Only
    /// the last prompt token is computed again when the cache already holds `ids`.
    pub fn speculative_two_tokens(
        &mut self,
        ids: &[u32],
        settings: &SamplerSettings,
        draft: Draft,
        k: usize,
        seed: u64,
    ) -> Result<TwoTokens> {
        self.start(ids, seed)?;
        let (cycle, steps) = self.speculative_step(settings, draft, k)?;
        let first = steps.first().ok_or_else(|| EngineError::InvalidState("a cycle emitted no token".into()))?;
        let first_accepted = cycle.accepted > 0;
        let (first, stopped) = (first.token, first.stop);
        let second = match steps.get(1) {
            Some(s) => Some(s.token),
            None if stopped || self.tokens().len() >= self.max_context() => None,
            None => self.speculative_step(settings, draft, k)?.1.first().map(|s| s.token),
        };
        Ok(TwoTokens { first, second, first_accepted })
    }
}

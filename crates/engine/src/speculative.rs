//! Speculative decoding: a cheap draft proposes K tokens, the full model scores them all in
//! one forward pass (logits for every position of the chunk), and the longest acceptable
//! prefix is kept, plus one token from the target itself. Under greedy the output is the
//! plain greedy output; under sampling the accept/reject rule (accept with
//! min(1, p/q), else draw from the normalised max(0, p − q)) keeps the target's
//! distribution exactly (Leviathan et al. 2023; Chen et al. 2023). Greedy picks, in the
//! draft and in the verification, are the sampler's at temperature 0: the repetition
//! penalty applies, over the context and the drafts before each position.

use crate::acceptance::{alpha, overlap};
use crate::arch::Logits;
use crate::error::{EngineError, Result};
use crate::sampler::{distribution, sample, Distribution, SamplerSettings};
use crate::session::{Generation, Session, Step, StopReason};
use serde::{Deserialize, Serialize};

/// The longest draft a cycle may propose.
pub const MAX_DRAFT: usize = 16;
// Rejected drafts roll back within a local layer's margin, never past what it must see.
const _: () = assert!(MAX_DRAFT < crate::kv_cache::WINDOW_MARGIN);

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "method")]
pub enum Draft {
    /// Copy what followed the most recent earlier occurrence of the context's last n-gram
    /// (n = 3, then 2, then 1). Free to compute; good when the answer repeats the prompt.
    PromptLookup,
    /// The first `layers` layers of the model itself, then its final norm and LM head.
    EarlyExit { layers: usize },
}

/// One draft-then-verify cycle, as the lesson draws it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Cycle {
    pub drafted: Vec<u32>,
    /// How many leading drafted tokens the target accepted.
    pub accepted: usize,
    /// The target's own token after the accepted ones: the correction at the first
    /// rejection, or a bonus token when every draft was accepted. `None` when the
    /// generation ended first.
    pub target_token: Option<u32>,
    pub draft_ms: f64,
    pub verify_ms: f64,
    /// β = Σ min(p, q) at each drafted position the target judged, in order (see
    /// `acceptance`): the probability it accepts what the draft proposes there.
    #[serde(default)]
    pub betas: Vec<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SpeculativeGeneration {
    pub generation: Generation,
    pub cycles: Vec<Cycle>,
    pub drafted: usize,
    pub accepted: usize,
}

impl SpeculativeGeneration {
    /// accepted / drafted (0 when nothing was drafted).
    pub fn acceptance_rate(&self) -> f64 {
        if self.drafted == 0 {
            0.0
        } else {
            self.accepted as f64 / self.drafted as f64
        }
    }

    /// α, the mean β over every position the target judged (`acceptance::alpha`).
    pub fn alpha(&self) -> Option<f64> {
        alpha(self.cycles.iter().flat_map(|c| c.betas.iter().copied()))
    }
}

/// The draft tokens and, for sampled early-exit drafts, the distribution each was drawn
/// from (prompt lookup proposes with certainty: its q is 1 on the proposed token).
struct Proposal {
    tokens: Vec<u32>,
    q: Vec<Option<Distribution>>,
}

/// Greedy's pick from `logits` after the context `history`: the top of
/// `distribution(logits, settings, history)` at temperature 0, penalty applied (what plain
/// greedy decoding appends), by `sample`, which ranks only the head.
fn greedy_pick(logits: &[f32], settings: &SamplerSettings, history: &[u32]) -> u32 {
    sample(logits, settings, history, 0.0).0
}

/// The index of the largest value (the first, on a tie).
pub(crate) fn argmax(v: &[f32]) -> u32 {
    (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b]).then(b.cmp(&a))).unwrap_or(0) as u32
}

impl Session {
    /// Generates like `generate`, drafting `k` tokens per cycle with `draft`.
    pub fn generate_speculative(
        &mut self,
        settings: &SamplerSettings,
        max_tokens: usize,
        draft: Draft,
        k: usize,
        mut on_cycle: impl FnMut(&Cycle, &[Step]) -> bool,
    ) -> Result<SpeculativeGeneration> {
        self.check_speculation(settings, draft, k)?;
        let (mut steps, mut cycles) = (Vec::new(), Vec::new());
        let (mut drafted, mut accepted) = (0, 0);
        let stop = 'run: loop {
            if steps.len() >= max_tokens {
                break StopReason::MaxTokens;
            }
            if self.tokens.len() >= self.max_context() {
                break StopReason::ContextFull;
            }
            // The first token comes from the prefill's logits, as in plain decoding, so
            // that time to first token is comparable.
            if steps.is_empty() {
                let mut s = self.step(settings)?;
                s.distribution = None;
                let end = s.stop;
                steps.push(s);
                if end {
                    break StopReason::EndOfTurn;
                }
                continue;
            }
            let room = (max_tokens - steps.len()).min(self.max_context() - self.tokens.len());
            let (cycle, new_steps) = self.cycle(settings, draft, k.min(room - 1))?;
            drafted += cycle.drafted.len();
            accepted += cycle.accepted;
            let go_on = on_cycle(&cycle, &new_steps);
            cycles.push(cycle);
            for s in new_steps {
                let end = s.stop;
                steps.push(s);
                if end {
                    break 'run StopReason::EndOfTurn;
                }
            }
            if !go_on {
                break StopReason::Cancelled;
            }
        };
        Ok(SpeculativeGeneration { generation: self.finish(steps, stop), cycles, drafted, accepted })
    }

    /// One draft-and-verify cycle on its own (the page runs cycles one at a time).
    pub fn speculative_step(
        &mut self,
        settings: &SamplerSettings,
        draft: Draft,
        k: usize,
    ) -> Result<(Cycle, Vec<Step>)> {
        self.check_speculation(settings, draft, k)?;
        self.check_room()?;
        let room = self.max_context() - self.tokens.len();
        self.cycle(settings, draft, k.min(room - 1))
    }

    fn check_speculation(&self, settings: &SamplerSettings, draft: Draft, k: usize) -> Result<()> {
        settings.validate()?;
        if k == 0 || k > MAX_DRAFT {
            return Err(EngineError::InvalidSetting {
                name: "draft_len",
                value: k.to_string(),
                reason: "must be 1 to 16",
            });
        }
        if let Draft::EarlyExit { layers } = draft {
            if layers == 0 || layers >= self.model.config.layers {
                return Err(EngineError::InvalidSetting {
                    name: "draft_layers",
                    value: layers.to_string(),
                    reason: "must be at least 1 and fewer than the model's layers",
                });
            }
        }
        Ok(())
    }

    fn propose(&mut self, settings: &SamplerSettings, draft: Draft, k: usize) -> Result<Proposal> {
        match draft {
            Draft::PromptLookup => {
                let tokens = prompt_lookup(&self.tokens, k);
                let q = vec![None; tokens.len()];
                Ok(Proposal { tokens, q })
            }
            Draft::EarlyExit { layers } => {
                let mut start = self.cache.len();
                let mut feed = self.tokens[start..].to_vec();
                let mut history = self.tokens.clone();
                let (mut tokens, mut q) = (Vec::new(), Vec::new());
                for _ in 0..k {
                    let logits = self.model.forward(&feed, start, &mut self.cache, layers, Logits::Last)?;
                    start += feed.len();
                    let (t, dist) = if settings.temperature == 0.0 {
                        (greedy_pick(&logits, settings, &history), None)
                    } else {
                        let d = distribution(&logits, settings, &history);
                        (d.draw(self.rng.next_f64()), Some(d))
                    };
                    tokens.push(t);
                    q.push(dist);
                    history.push(t);
                    feed = vec![t];
                }
                Ok(Proposal { tokens, q })
            }
        }
    }

    /// One cycle: draft, verify all drafts in one forward pass, accept, append.
    fn cycle(&mut self, settings: &SamplerSettings, draft: Draft, k: usize) -> Result<(Cycle, Vec<Step>)> {
        // The verify pass yields the distribution after the last context token only if that
        // token is in the chunk: uncache it when it was already computed.
        if self.cache.len() == self.tokens.len() {
            self.cache.truncate(self.tokens.len() - 1);
        }
        let t0 = (self.clock)();
        let proposal = self.propose(settings, draft, k)?;
        let t1 = (self.clock)();
        // Verify: the tokens not yet in the cache (usually the last one) plus the drafts.
        let base = self.cache.len();
        let pending = self.tokens.len() - base;
        let mut chunk = self.tokens[base..].to_vec();
        chunk.extend(&proposal.tokens);
        let layers = self.model.config.layers;
        let all = self.model.forward(&chunk, base, &mut self.cache, layers, Logits::All)?;
        let vocab = self.model.config.vocab;
        // Row i: the target's logits for the token after drafts[..i].
        let row = |i: usize| &all[(pending - 1 + i) * vocab..(pending + i) * vocab];
        let t2 = (self.clock)();

        let greedy = settings.temperature == 0.0;
        let mut history = self.tokens.clone();
        let mut decided: Vec<(u32, f32)> = Vec::new();
        let mut n_accepted = 0;
        let mut target_token = None;
        let mut betas = Vec::new();
        for i in 0..=proposal.tokens.len() {
            let logits = row(i);
            let drafted = proposal.tokens.get(i).copied();
            if greedy {
                let best = greedy_pick(logits, settings, &history);
                // Both picks are certain: β is 1 when they agree, else 0.
                if let Some(d) = drafted {
                    betas.push(f64::from(u8::from(d == best)));
                }
                if drafted == Some(best) {
                    n_accepted += 1;
                    decided.push((best, 1.0));
                    history.push(best);
                    continue;
                }
                target_token = Some(best);
                decided.push((best, 1.0));
                break;
            }
            let p = distribution(logits, settings, &history);
            let Some(d) = drafted else {
                // Every draft accepted: a bonus token from the target.
                let t = p.draw(self.rng.next_f64());
                target_token = Some(t);
                decided.push((t, p.get(t).map_or(0.0, |c| c.final_prob)));
                break;
            };
            betas.push(overlap(&p, proposal.q[i].as_ref(), d));
            let pd = p.get(d).map_or(0.0, |c| c.final_prob) as f64;
            let qd = proposal.q[i].as_ref().map_or(1.0, |q| q.get(d).map_or(0.0, |c| c.final_prob) as f64);
            if qd > 0.0 && self.rng.next_f64() < (pd / qd).min(1.0) {
                n_accepted += 1;
                decided.push((d, pd as f32));
                history.push(d);
                continue;
            }
            let t = residual_draw(&p, proposal.q[i].as_ref(), d, self.rng.next_f64());
            target_token = Some(t);
            decided.push((t, p.get(t).map_or(0.0, |c| c.final_prob)));
            break;
        }
        let t3 = (self.clock)();

        // Append the decided tokens, sharing the cycle's time among them, up to a stop.
        let share = (t3 - t0) / decided.len() as f64;
        let mut steps = Vec::new();
        for (j, &(t, prob)) in decided.iter().enumerate() {
            // Token j was decided from verify row j: let the step see those logits.
            self.logits = Some(row(j).to_vec());
            self.pending_ms = share;
            self.pending_computed = if j == 0 { chunk.len() } else { 0 };
            let s = self.push(t, prob, None, 0.0, false);
            let end = s.stop;
            steps.push(s);
            if end {
                if j < n_accepted {
                    n_accepted = j + 1;
                    target_token = None;
                }
                break;
            }
        }
        // Rejected drafts leave keys and values behind: roll the cache back so that it
        // holds only accepted context (the last token is fed with the next chunk).
        let keep = self.cache.len().min(self.tokens.len() - 1);
        self.cache.truncate(keep);
        self.logits = None;
        let cycle = Cycle {
            drafted: proposal.tokens,
            accepted: n_accepted,
            target_token,
            draft_ms: t1 - t0,
            verify_ms: t2 - t1,
            betas,
        };
        Ok((cycle, steps))
    }
}

/// After drafted token `d` is rejected: draw from max(0, p − q), normalised. For a
/// deterministic draft (q one-hot at `d`) that is p with `d` removed.
fn residual_draw(p: &Distribution, q: Option<&Distribution>, d: u32, u: f64) -> u32 {
    let q_of = |id: u32| match q {
        Some(q) => q.get(id).map_or(0.0, |c| c.final_prob as f64),
        None => f64::from(u8::from(id == d)),
    };
    let residual: Vec<(u32, f64)> = p
        .candidates
        .iter()
        .filter(|c| c.eligible())
        .map(|c| (c.id, (c.final_prob as f64 - q_of(c.id)).max(0.0)))
        .collect();
    let mass: f64 = residual.iter().map(|r| r.1).sum();
    if mass <= 0.0 {
        return p.draw(u);
    }
    let mut cum = 0.0;
    for &(id, w) in &residual {
        cum += w / mass;
        if u < cum {
            return id;
        }
    }
    residual.iter().rev().find(|r| r.1 > 0.0).map_or(d, |r| r.0)
}

/// The continuation after the most recent earlier occurrence of the context's last n-gram,
/// trying n = 3, 2, 1; up to `k` tokens.
pub fn prompt_lookup(tokens: &[u32], k: usize) -> Vec<u32> {
    let len = tokens.len();
    for n in (1..=3).rev() {
        if len <= n {
            continue;
        }
        let tail = &tokens[len - n..];
        if let Some(start) = (0..len - n).rev().find(|&s| &tokens[s..s + n] == tail) {
            let from = start + n;
            return tokens[from..(from + k).min(len)].to_vec();
        }
    }
    Vec::new()
}

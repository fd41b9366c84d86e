//! The four ways Lesson 3 spends inference compute on a task, run one token at a time (one
//! token of each sample, when self-consistency's samples decode together) so that the
//! page's worker can report progress and hear Cancel between tokens. The CLI runs the very
//! same state machine, so both give the same results for the same seed and items. How one
//! sample's text is read as it comes (reasoning, answer line, budget) is `trace.rs`.
//!
//! Token accounting: every generated token is either a reasoning token or an answer token,
//! so reasoning + answer = total. Tokens the runner itself inserts (the forced `Answer:`
//! after a spent budget) are prompt, not generated output, and are not counted.

use super::answer::{expected_key, majority_vote, VoteResult};
use super::stats::wilson_interval;
use super::tasks::Task;
use super::trace::{Next, Trace, FORCED_ANSWER};
use crate::batch::{BatchDecoder, BatchSample};
use crate::chat::{chat_tokens, Message, SystemPrompt};
use crate::error::{EngineError, Result};
use crate::sampler::SamplerSettings;
use crate::session::Session;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Answer only.
    Direct,
    /// "Think step by step", then an `Answer:` line, within a token budget.
    Cot,
    /// N chain-of-thought samples at temperature T, then a majority vote.
    SelfConsistency,
    /// Reasoning within the budget that the learner does not see, then a forced answer.
    Hidden,
}

impl Strategy {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "direct" => Some(Self::Direct),
            "cot" => Some(Self::Cot),
            "self-consistency" => Some(Self::SelfConsistency),
            "hidden" => Some(Self::Hidden),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    pub strategy: Strategy,
    /// Samples for self-consistency (1 for the others).
    pub samples: usize,
    /// Sampling temperature for self-consistency; the others decode greedily.
    pub temperature: f32,
    /// Most reasoning tokens per sample.
    pub budget: usize,
    pub seed: u64,
}

/// Most tokens an answer line may take.
pub const ANSWER_CAP: usize = 32;
pub const MAX_BUDGET: usize = 1024;
pub const MAX_SAMPLES: usize = 32;

impl RunConfig {
    pub fn validate(&self) -> Result<()> {
        let bad = |name, value: String, reason| Err(EngineError::InvalidSetting { name, value, reason });
        if self.samples == 0 || self.samples > MAX_SAMPLES {
            return bad("samples", self.samples.to_string(), "must be 1 to 32");
        }
        if self.budget == 0 || self.budget > MAX_BUDGET {
            return bad("budget", self.budget.to_string(), "must be 1 to 1024 tokens");
        }
        self.sampler(0).validate()
    }

    fn sampler(&self, sample: usize) -> SamplerSettings {
        match self.strategy {
            Strategy::SelfConsistency => SamplerSettings {
                temperature: self.temperature,
                top_k: 40,
                top_p: 1.0,
                min_p: 0.0,
                seed: self.seed.wrapping_add(sample as u64),
                ..SamplerSettings::default()
            },
            _ => SamplerSettings::greedy(),
        }
    }

    fn sample_count(&self) -> usize {
        if self.strategy == Strategy::SelfConsistency {
            self.samples
        } else {
            1
        }
    }
}

/// The prompt for a task under a strategy.
pub fn prompt(task: &Task, strategy: Strategy) -> String {
    match strategy {
        Strategy::Direct => format!("{}\nReply with only the final answer, as: Answer: <answer>", task.question),
        _ => format!(
            "{}\nThink step by step. Then give the final answer on its own line, as: Answer: <answer>",
            task.question
        ),
    }
}

/// One generated sample of an item.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub reasoning: String,
    pub answer_text: String,
    /// What the checker judged, the answer it settled on (the vote's key) and its verdict.
    pub extracted: Option<String>,
    pub canonical: Option<String>,
    pub correct: bool,
    pub reasoning_tokens: usize,
    pub answer_tokens: usize,
    /// The runner inserted `Answer:` because the budget ran out (or, hidden, always).
    pub forced_answer: bool,
    /// The budget ran out before the model wrote its own `Answer:` line.
    pub truncated: bool,
}

/// The result of one task under one strategy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemResult {
    pub task_id: String,
    pub category: String,
    pub question: String,
    pub strategy: Strategy,
    pub samples: Vec<Sample>,
    pub votes: Option<VoteResult>,
    /// The answer that was scored, as the checker's key (the vote's winner for
    /// self-consistency).
    pub final_answer: Option<String>,
    /// The key of a right answer, which `final_answer` is compared with.
    pub expected: Option<String>,
    pub correct: bool,
    pub reasoning_tokens: usize,
    pub answer_tokens: usize,
    pub total_tokens: usize,
    pub latency_ms: f64,
}

/// The generator a sample's answer is drawn with after a forced `Answer:`.
fn forced_seed(cfg: &RunConfig, sample: usize) -> u64 {
    cfg.sampler(sample).seed.wrapping_add(1 << 32)
}

/// What an `ItemRunner` is doing between two calls.
enum Work {
    /// The next sample (or batch of samples) begins at the next call.
    Between,
    /// One sample on the host's session.
    Single(Trace),
    /// Several samples in one batch, in sample order from `samples.len()`.
    Batch(BatchDecoder, Vec<Trace>),
}

/// Runs one task, one unit of work (a prompt, or one token of every sample decoding) per
/// `advance` call.
///
/// Self-consistency's samples decode in batches (`BatchDecoder`); `ItemRunner::unbatched`
/// decodes them one after another instead, each on the host's session emptied first, and
/// gives the very same samples (tests/reasoning.rs): each sample's prompt is computed from
/// nothing, a forced `Answer:` is computed in one chunk with the token before it, and its
/// tokens are drawn with the sample's own seeds.
pub struct ItemRunner {
    task: Task,
    cfg: RunConfig,
    batched: bool,
    work: Work,
    samples: Vec<Sample>,
    started_ms: Option<f64>,
}

impl ItemRunner {
    pub fn new(task: Task, cfg: RunConfig) -> Result<Self> {
        let batched = cfg.strategy == Strategy::SelfConsistency;
        Self::with(task, cfg, batched)
    }

    /// Every sample on the host's session, one after another: the reference the batched
    /// runs are tested against.
    pub fn unbatched(task: Task, cfg: RunConfig) -> Result<Self> {
        Self::with(task, cfg, false)
    }

    fn with(task: Task, cfg: RunConfig, batched: bool) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { task, cfg, batched, work: Work::Between, samples: Vec::new(), started_ms: None })
    }

    /// Does one unit of work. Returns the result when the item is finished. A batched run
    /// leaves the session as it was: its samples have caches of their own.
    pub fn advance(&mut self, s: &mut Session, now_ms: f64) -> Result<Option<ItemResult>> {
        self.started_ms.get_or_insert(now_ms);
        let model = s.model().clone();
        let tok = &model.tokenizer;
        let first = self.samples.len();
        match &mut self.work {
            Work::Between => {
                let ids =
                    chat_tokens(tok, &[Message::user(&prompt(&self.task, self.cfg.strategy))], SystemPrompt::Default)?;
                let trace = || Trace::new(self.cfg.strategy, self.cfg.budget);
                self.work = if self.batched {
                    // With long budgets, fewer samples decode at a time.
                    let longest = ids.len() + self.cfg.budget + tok.encode(FORCED_ANSWER, false)?.len() + ANSWER_CAP;
                    let n = BatchDecoder::width(s.max_context(), longest).min(self.cfg.sample_count() - first);
                    let samples: Vec<BatchSample> = (first..first + n)
                        .map(|i| BatchSample {
                            seed: self.cfg.sampler(i).seed,
                            settings: self.cfg.sampler(i),
                            max_tokens: usize::MAX,
                        })
                        .collect();
                    Work::Batch(BatchDecoder::new(model.clone(), &ids, &samples)?, (0..n).map(|_| trace()).collect())
                } else {
                    if self.cfg.strategy == Strategy::SelfConsistency {
                        // As a batch computes it: the prompt from nothing, not after another sample.
                        s.clear();
                    }
                    s.start(&ids, self.cfg.sampler(first).seed)?;
                    Work::Single(trace())
                };
            }
            Work::Single(trace) => {
                let step = s.step(&self.cfg.sampler(first))?;
                match trace.push(tok, step.token) {
                    Next::Go => {}
                    Next::Force(marker) => {
                        let mut ids = s.tokens().to_vec();
                        ids.extend(tok.encode(marker, false)?);
                        s.start(&ids, forced_seed(&self.cfg, first))?;
                        trace.forced();
                    }
                    Next::Done => return Ok(self.end_samples(now_ms)),
                }
            }
            Work::Batch(batch, traces) => {
                for (i, token) in batch.step()?.into_iter().enumerate() {
                    let Some(token) = token else { continue };
                    match traces[i].push(tok, token) {
                        Next::Go => {}
                        Next::Force(marker) => {
                            batch.force(i, &tok.encode(marker, false)?, forced_seed(&self.cfg, first + i))?;
                            traces[i].forced();
                        }
                        Next::Done => batch.stop(i)?,
                    }
                }
                // A sequence the batch ended itself (its context full) ends its sample too.
                if batch.is_done() {
                    return Ok(self.end_samples(now_ms));
                }
            }
        }
        Ok(None)
    }

    /// Tokens generated so far for this item, over all its samples, while it runs: what a
    /// progress display can show between two `advance` calls. The result's `total_tokens`
    /// is the final count.
    pub fn tokens(&self) -> usize {
        let finished: usize = self.samples.iter().map(|s| s.reasoning_tokens + s.answer_tokens).sum();
        finished
            + match &self.work {
                Work::Between => 0,
                Work::Single(t) => t.tokens(),
                Work::Batch(_, traces) => traces.iter().map(Trace::tokens).sum(),
            }
    }

    /// The samples of the current work are finished: judged, then kept in sample order.
    fn end_samples(&mut self, now_ms: f64) -> Option<ItemResult> {
        let traces = match std::mem::replace(&mut self.work, Work::Between) {
            Work::Between => Vec::new(),
            Work::Single(t) => vec![t],
            Work::Batch(_, traces) => traces,
        };
        self.samples.extend(traces.into_iter().map(|t| t.finish(&self.task)));
        if self.samples.len() < self.cfg.sample_count() {
            return None;
        }
        Some(self.finish(now_ms))
    }

    fn finish(&mut self, now_ms: f64) -> ItemResult {
        let samples = std::mem::take(&mut self.samples);
        let (votes, final_answer) = if self.cfg.strategy == Strategy::SelfConsistency {
            let keys: Vec<Option<String>> = samples.iter().map(|s| s.canonical.clone()).collect();
            let v = majority_vote(&keys);
            let winner = v.as_ref().map(|v| v.winner.clone());
            (v, winner)
        } else {
            (None, samples[0].canonical.clone())
        };
        let expected = expected_key(&self.task);
        let correct = final_answer.is_some() && final_answer == expected;
        let reasoning_tokens = samples.iter().map(|s| s.reasoning_tokens).sum();
        let answer_tokens = samples.iter().map(|s| s.answer_tokens).sum();
        ItemResult {
            task_id: self.task.id.clone(),
            category: self.task.category.clone(),
            question: self.task.question.clone(),
            strategy: self.cfg.strategy,
            samples,
            votes,
            final_answer,
            expected,
            correct,
            reasoning_tokens,
            answer_tokens,
            total_tokens: reasoning_tokens + answer_tokens,
            latency_ms: now_ms - self.started_ms.unwrap_or(now_ms),
        }
    }
}

/// Per-strategy figures for the results table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub strategy: Strategy,
    pub n: usize,
    pub correct: usize,
    /// 0 to 1.
    pub accuracy: f64,
    /// 95% Wilson interval.
    pub ci_low: f64,
    pub ci_high: f64,
    pub total_tokens: usize,
    pub reasoning_tokens: usize,
    pub answer_tokens: usize,
    pub mean_latency_ms: f64,
    /// Total tokens divided by correct answers; `None` with no correct answer.
    pub tokens_per_correct: Option<f64>,
    /// Samples whose reasoning the budget cut before their own `Answer:` line, of `samples`.
    pub truncated: usize,
    pub samples: usize,
}

pub fn summarize(strategy: Strategy, items: &[ItemResult]) -> Summary {
    let n = items.len();
    let correct = items.iter().filter(|i| i.correct).count();
    let (ci_low, ci_high) = wilson_interval(correct, n);
    let total_tokens: usize = items.iter().map(|i| i.total_tokens).sum();
    Summary {
        strategy,
        n,
        correct,
        accuracy: if n > 0 { correct as f64 / n as f64 } else { 0.0 },
        ci_low,
        ci_high,
        total_tokens,
        reasoning_tokens: items.iter().map(|i| i.reasoning_tokens).sum(),
        answer_tokens: items.iter().map(|i| i.answer_tokens).sum(),
        mean_latency_ms: if n > 0 { items.iter().map(|i| i.latency_ms).sum::<f64>() / n as f64 } else { 0.0 },
        tokens_per_correct: (correct > 0).then(|| total_tokens as f64 / correct as f64),
        truncated: items.iter().flat_map(|i| &i.samples).filter(|s| s.truncated).count(),
        samples: items.iter().map(|i| i.samples.len()).sum(),
    }
}

/// pass@k and majority@k for k = 1..=N over a run's items, index k-1 (see `stats`): the
/// sampling curves of a self-consistency run, from the very samples it voted with.
pub fn sampling_curves(items: &[ItemResult]) -> (Vec<f64>, Vec<f64>) {
    let tasks: Vec<(Vec<Option<String>>, String)> = items
        .iter()
        // A task always has an expected key (a test checks every bundled task); an empty
        // key matches no sample, since no answer settles on the empty string.
        .map(|i| (i.samples.iter().map(|s| s.canonical.clone()).collect(), i.expected.clone().unwrap_or_default()))
        .collect();
    super::stats::sampling_curves(&tasks)
}

/// Runs every task to the end (the CLI and tests; the worker drives `ItemRunner` itself,
/// one `advance` per turn of its event loop).
pub fn run_all(s: &mut Session, tasks: &[Task], cfg: &RunConfig, now_ms: impl Fn() -> f64) -> Result<Vec<ItemResult>> {
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        let mut runner = ItemRunner::new(task.clone(), cfg.clone())?;
        loop {
            if let Some(result) = runner.advance(s, now_ms())? {
                out.push(result);
                break;
            }
        }
    }
    Ok(out)
}

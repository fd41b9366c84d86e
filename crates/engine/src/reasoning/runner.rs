//! Runs a task under a strategy, one token at a time (one token of each sample, when
//! self-consistency's samples decode together), so that the page's worker can report
//! progress and hear Cancel between tokens. The CLI runs the very same state machine, so
//! both give the same results for the same seed and items. What the strategies are and how
//! results are summed up is `strategy.rs`; how one sample's text is read as it comes
//! (reasoning, answer line, budget) is `trace.rs`.

use super::answer::{expected_key, majority_vote};
use super::strategy::{prompt_ids, ItemResult, RunConfig, Sample, Strategy, ANSWER_CAP};
use super::task::Task;
use super::trace::{Next, Trace, FORCED_ANSWER};
use crate::batch::{BatchDecoder, BatchSample};
use crate::error::Result;
use crate::session::Session;

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
                let ids = prompt_ids(tok, &self.task, self.cfg.strategy)?;
                let trace = || Trace::new(self.cfg.strategy, self.cfg.budget).forcing_at_budget(self.cfg.forced_answer);
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

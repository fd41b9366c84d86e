//! The four ways Lesson 3 spends inference compute on a task, run one token at a time so
//! that the page's worker can report progress and hear Cancel between tokens. The CLI runs
//! the very same state machine, so both give the same results for the same seed and items.
//!
//! Token accounting: every generated token is either a reasoning token or an answer token,
//! so reasoning + answer = total. Tokens the runner itself inserts (the forced `Answer:`
//! after a spent budget) are prompt, not generated output, and are not counted.

use super::answer::{check, expected_key, has_answer_marker, majority_vote, VoteResult};
use super::stats::wilson_interval;
use super::tasks::Task;
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

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Start,
    Reason,
    Answer,
}

/// Runs one task, one token per `advance` call.
pub struct ItemRunner {
    task: Task,
    cfg: RunConfig,
    sample_index: usize,
    phase: Phase,
    current: Sample,
    /// The current line of reasoning and how many tokens it spans, to find where a line
    /// the model starts with "Answer:" begins.
    line: String,
    line_tokens: usize,
    samples: Vec<Sample>,
    started_ms: Option<f64>,
}

impl ItemRunner {
    pub fn new(task: Task, cfg: RunConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self {
            task,
            cfg,
            sample_index: 0,
            phase: Phase::Start,
            current: Sample::default(),
            line: String::new(),
            line_tokens: 0,
            samples: Vec::new(),
            started_ms: None,
        })
    }

    /// Does one unit of work (setting up a sample, or one token). Returns the result when
    /// the item is finished.
    pub fn advance(&mut self, s: &mut Session, now_ms: f64) -> Result<Option<ItemResult>> {
        self.started_ms.get_or_insert(now_ms);
        match self.phase {
            Phase::Start => {
                let text = prompt(&self.task, self.cfg.strategy);
                let ids = chat_tokens(&s.model().tokenizer, &[Message::user(&text)], SystemPrompt::Default)?;
                s.start(&ids, self.cfg.sampler(self.sample_index).seed)?;
                self.current = Sample::default();
                self.line.clear();
                self.line_tokens = 0;
                self.phase = if self.cfg.strategy == Strategy::Direct { Phase::Answer } else { Phase::Reason };
            }
            Phase::Reason => {
                let step = s.step(&self.cfg.sampler(self.sample_index))?;
                self.current.reasoning_tokens += 1;
                self.current.reasoning.push_str(&step.piece);
                self.line.push_str(&step.piece);
                self.line_tokens += 1;
                if let Some(nl) = self.line.rfind('\n') {
                    self.line.drain(..=nl);
                    self.line_tokens = usize::from(!self.line.is_empty());
                }
                let wrote_answer = has_answer_marker(&self.line);
                if step.stop {
                    return Ok(self.end_sample(now_ms));
                }
                if wrote_answer && self.cfg.strategy != Strategy::Hidden {
                    // The model began its answer line itself: the rest of the line is answer.
                    self.move_line_to_answer();
                    self.phase = Phase::Answer;
                } else if wrote_answer || self.current.reasoning_tokens >= self.cfg.budget {
                    self.current.truncated = !wrote_answer;
                    self.force_answer(s)?;
                }
            }
            Phase::Answer => {
                let step = s.step(&self.cfg.sampler(self.sample_index))?;
                self.current.answer_tokens += 1;
                self.current.answer_text.push_str(&step.piece);
                let has_content = !self.current.answer_text.trim().is_empty();
                let line_done = has_content && step.piece.contains('\n') && self.cfg.strategy != Strategy::Direct;
                if step.stop || line_done || self.current.answer_tokens >= ANSWER_CAP {
                    return Ok(self.end_sample(now_ms));
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
        finished + self.current.reasoning_tokens + self.current.answer_tokens
    }

    /// The text and tokens since the last newline were the start of the answer line.
    fn move_line_to_answer(&mut self) {
        let cut = self.current.reasoning.len() - self.line.len();
        self.current.answer_text = self.current.reasoning.split_off(cut);
        self.current.reasoning_tokens -= self.line_tokens;
        self.current.answer_tokens += self.line_tokens;
    }

    /// Appends "Answer:" to the context (as prompt, reusing the cache) and answers.
    fn force_answer(&mut self, s: &mut Session) -> Result<()> {
        let mut ids = s.tokens().to_vec();
        let marker = if self.current.reasoning.ends_with('\n') { "Answer:" } else { "\nAnswer:" };
        ids.extend(s.model().tokenizer.encode(marker, false)?);
        s.start(&ids, self.cfg.sampler(self.sample_index).seed.wrapping_add(1 << 32))?;
        self.current.forced_answer = true;
        self.current.answer_text = "Answer:".into();
        self.phase = Phase::Answer;
        Ok(())
    }

    fn end_sample(&mut self, now_ms: f64) -> Option<ItemResult> {
        let mut sample = std::mem::take(&mut self.current);
        // One rule for every strategy: the reply as the model's context holds it, reasoning
        // then answer, with the line break a forced `Answer:` was given (see `force_answer`).
        let joint = if sample.forced_answer && !sample.reasoning.ends_with('\n') { "\n" } else { "" };
        let verdict = check(&self.task, &format!("{}{joint}{}", sample.reasoning, sample.answer_text));
        sample.extracted = verdict.extracted;
        sample.canonical = verdict.canonical;
        sample.correct = verdict.correct;
        self.samples.push(sample);
        self.sample_index += 1;
        self.phase = Phase::Start;
        if self.sample_index < self.cfg.sample_count() {
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
/// one token per turn of its event loop).
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

//! The four ways Lesson 3 spends inference compute on a task, their settings, the prompt,
//! and what a run gives: each sample, each item's result, the per-strategy summary and the
//! sampling curves. Running them is `runner.rs`.
//!
//! Token accounting: every generated token is either a reasoning token or an answer token,
//! so reasoning + answer = total. Tokens the runner itself inserts (the forced `Answer:`
//! after a spent budget) are prompt, not generated output, and are not counted.

use super::answer::VoteResult;
use super::stats::wilson_interval;
use super::task::Task;
use crate::chat::{chat_tokens, Message, SystemPrompt};
use crate::error::{EngineError, Result};
use crate::sampler::SamplerSettings;
use crate::tokenizer::Tokenizer;
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
    /// When the budget ends before the model's own `Answer:` line, the runner writes one and
    /// lets the model finish it; without, the sample ends there, cut, with no answer.
    #[serde(default = "forced_by_default")]
    pub forced_answer: bool,
}

fn forced_by_default() -> bool {
    true
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

    pub(super) fn sampler(&self, sample: usize) -> SamplerSettings {
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

    pub(super) fn sample_count(&self) -> usize {
        if self.strategy == Strategy::SelfConsistency {
            self.samples
        } else {
            1
        }
    }
}

/// The tokens a task's samples under `strategy` are generated from: `prompt` as the user's
/// turn of the chat template, with the model's default system prompt.
pub fn prompt_ids(tok: &Tokenizer, task: &Task, strategy: Strategy) -> Result<Vec<u32>> {
    chat_tokens(tok, &[Message::user(&prompt(task, strategy))], SystemPrompt::Default)
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
    /// The ids the model generated, in order (a forced `Answer:` is not among them).
    #[serde(default)]
    pub tokens: Vec<u32>,
    /// Wrong, but the trace holds the right answer (`format::format_failure`): the format
    /// failed, not necessarily the reasoning. Records saved before it was counted read false.
    #[serde(default)]
    pub format_failure: bool,
}

impl Sample {
    /// The reply as the model's context holds it, reasoning then answer, with the line break
    /// a forced `Answer:` was given (`Next::Force`): what the checker judges.
    pub fn reply(&self) -> String {
        let joint = if self.forced_answer && !self.reasoning.ends_with('\n') { "\n" } else { "" };
        format!("{}{joint}{}", self.reasoning, self.answer_text)
    }

    /// The generated tokens that follow one another in the model's context: all of them,
    /// or, when `Answer:` was forced in, those before it. What depth is scored on.
    pub fn continuous_tokens(&self) -> &[u32] {
        let n = if self.forced_answer { self.reasoning_tokens } else { self.tokens.len() };
        &self.tokens[..n.min(self.tokens.len())]
    }
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
    /// Samples that are format failures (`Sample::format_failure`), of `samples`.
    #[serde(default)]
    pub format_failures: usize,
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
        format_failures: items.iter().flat_map(|i| &i.samples).filter(|s| s.format_failure).count(),
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

//! Everything the page and the engine worker say to each other. A message is an
//! `Envelope`: the page numbers each `Request`, and every `Response` about it carries the
//! same id. Lessons grow the protocol by adding variants here, and nowhere else.

use engine::{SamplerSettings, StopReason};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Envelope<T> {
    /// Chosen by the page, unique per request; 0 is reserved for messages about no request.
    pub id: u32,
    pub body: T,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// Fetch the GGUF from the page's own origin (or the worker's Cache API), check its
    /// SHA-256 and load it. Answered by `Progress`…, then `ModelReady` or `Error`.
    LoadModel { url: String, sha256: String },
    /// Forget the cached model file. Answered by `CacheCleared`.
    ClearCache,
    /// Generate from a user message (`chat`: through the chat template) or from raw text.
    /// Answered by `Token`…, then `Done` (also after `Cancel`).
    Generate { prompt: String, chat: bool, settings: SamplerSettings, max_tokens: usize },
    /// Stop the generation started by request `target_id`, within one token.
    Cancel { target_id: u32 },
    /// Start a session on a prompt and return the next-token logits (Lesson 1).
    Logits { prompt: String, chat: bool },
    /// Draw one token in the current session (Lesson 1). Answered by `Stepped`.
    Step { settings: SamplerSettings },
    /// Append `token` as if it had been drawn (Lesson 1). Answered by `Stepped`.
    Force { token: u32, settings: SamplerSettings },
    /// Remove the last `n` generated tokens (Lesson 1). Answered by `Rewound`.
    Rewind { n: usize },
    // Lesson 3
    /// Run the bundled tasks chosen by `experiment` under each of its strategies. Answered by
    /// `ExperimentProgress`… and `ExperimentItem`…, then `ExperimentDone` (also after `Cancel`).
    RunExperiment { experiment: Experiment },
}

/// What the model is, once loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub file_bytes: u64,
    pub weight_bytes: u64,
    pub layers: usize,
    pub vocab: usize,
    pub context: usize,
    pub from_cache: bool,
    pub load_ms: f64,
}

/// One of the most likely next tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopToken {
    pub token: u32,
    pub text: String,
    pub logit: f32,
    /// Softmax probability at temperature 1.
    pub prob: f32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Response {
    /// The worker is listening; sent once, with id 0. Requests sent earlier would be lost.
    Started,
    /// Model bytes read so far, from the network or from the cache (which is re-verified).
    Progress { loaded: u64, total: Option<u64>, mb_per_s: f64, from_cache: bool },
    ModelReady { info: ModelInfo },
    CacheCleared,
    /// One generated token: `piece` is the text it completes (never half a character),
    /// `prob` its probability in the final distribution, `ms` its forward and sampling time.
    Token { piece: String, token: u32, prob: f32, ms: f64 },
    /// The end of a generation. `tokens` counts the generated tokens.
    Done { text: String, tokens: usize, ttft_ms: f64, prefill_tps: f64, decode_tps: f64, stop: StopReason },
    /// Next-token logits over the whole vocabulary, and the most likely tokens.
    Logits { logits: Vec<f32>, top: Vec<TopToken> },
    Stepped { step: engine::Step },
    Rewound { generated: usize },
    /// The request failed; the worker goes on serving others.
    Error { message: String },
    /// The worker panicked (id 0): it cannot be trusted any more and must be restarted.
    Crashed { message: String },
    // Lesson 3
    /// `done` of `total` task runs (a task under one strategy) are finished; the running
    /// one has generated `tokens` so far.
    ExperimentProgress { done: usize, total: usize, tokens: usize },
    /// One task finished under one strategy.
    ExperimentItem { result: ItemResult },
    /// The experiment ended, every task run finished or `cancelled`.
    ExperimentDone { cancelled: bool },
}

impl Response {
    /// Whether this is the last response to its request.
    pub fn is_final(&self) -> bool {
        !matches!(
            self,
            Response::Progress { .. }
                | Response::Token { .. }
                | Response::ExperimentProgress { .. }
                | Response::ExperimentItem { .. }
        )
    }
}

// Lesson 3. Its imports are kept here, with its types, apart from the other lessons'.
use engine::reasoning::strategy::{ItemResult, RunConfig, Strategy};
use engine::reasoning::tasks::{bundled_tasks, select, Task};

/// A Lesson 3 experiment: which bundled tasks (as `engine::reasoning::tasks::select` picks
/// them, so the CLI's `reason --category C --limit N --seed S` names the same ones) and how
/// each strategy runs them. Every task runs under every strategy, task by task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    pub category: Option<String>,
    pub limit: usize,
    /// Shuffles the tasks and seeds self-consistency's samples.
    pub seed: u64,
    pub strategies: Vec<Strategy>,
    pub samples: usize,
    pub temperature: f32,
    pub budget: usize,
}

impl Experiment {
    /// The tasks this experiment runs, in order.
    pub fn tasks(&self) -> Vec<Task> {
        select(&bundled_tasks(), self.category.as_deref(), Some(self.limit), Some(self.seed))
    }

    pub fn config(&self, strategy: Strategy) -> RunConfig {
        RunConfig { strategy, samples: self.samples, temperature: self.temperature, budget: self.budget, seed: self.seed }
    }

    /// Why this experiment cannot run, in words for the learner. The page asks before it
    /// sends; the worker asks again, since it trusts no message.
    pub fn validate(&self) -> Result<(), String> {
        if self.strategies.is_empty() {
            return Err("Choose at least one strategy.".into());
        }
        if self.strategies.iter().enumerate().any(|(i, s)| self.strategies[..i].contains(s)) {
            return Err("Each strategy can run only once per experiment.".into());
        }
        if self.limit == 0 {
            return Err("Choose at least one task.".into());
        }
        if let Some(category) = &self.category {
            if !bundled_tasks().iter().any(|t| &t.category == category) {
                return Err(format!("There is no task category \"{category}\"."));
            }
        }
        for &strategy in &self.strategies {
            self.config(strategy).validate().map_err(|e| format!("This experiment cannot run: {e}."))?;
        }
        Ok(())
    }
}

//! Everything the page and the engine worker say to each other. A message is an
//! `Envelope`: the page numbers each `Request`, and every `Response` about it carries the
//! same id. Lessons grow the protocol by adding variants here, and nowhere else.

pub use engine::probe::integer::IntegerDeviation;
pub use engine::quant::choice::KernelChoice;
use engine::speculative::Draft;
use engine::{Config, Exchange, Message, SamplerSettings, Stage, StopReason};
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
    /// `kernels`: the decode-loop choices the page kept from earlier loads (`Kernels`; a host
    /// that keeps none, such as the benchmark harness, sends none).
    LoadModel {
        url: String,
        sha256: String,
        #[serde(default)]
        kernels: Vec<KernelChoice>,
    },
    /// Read the header of a GGUF file the learner chose on their device (a `File`, passed
    /// through as it is: structured clone hands the worker a handle, not the bytes). Nothing
    /// is loaded. Answered by `FileFacts` or `Error` (a file that cannot be read).
    InspectFile {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        file: wasm_bindgen::JsValue,
    },
    /// Load a GGUF file from the learner's device, read in slices where it lies (never
    /// uploaded, never copied whole). Refused as `InspectFile` refuses, or when it cannot fit.
    /// Answered by `ModelReady` or `Error`; the model loaded before stays until it succeeds.
    LoadFile {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        file: wasm_bindgen::JsValue,
        #[serde(default)]
        kernels: Vec<KernelChoice>,
    },
    /// Forget the cached model file. Answered by `CacheCleared`.
    ClearCache,
    /// Split each forward pass over `threads` threads (clamped to what the worker has: 1 in
    /// the single-threaded worker), and choose decode's loops again for that count, reusing
    /// one of `kernels` that fits (`Kernels`). Answered by `Threads`.
    SetThreads {
        threads: usize,
        #[serde(default)]
        kernels: Vec<KernelChoice>,
    },
    /// Decode with the engine's opt-in integer arithmetic (`on`), or exactly (the default,
    /// and what every new model starts with). Switching it on first measures what it changes
    /// on the loaded model (`engine::probe::integer`). Answered by `IntegerActivations`, or
    /// `Error` when no matrix of the model is of a type it covers.
    SetIntegerActivations { on: bool },
    /// Generate from a user message (`chat`: through the chat template) or from raw text;
    /// `turn` places it in a conversation (the playground). Answered by `Token`…, then
    /// `Done` (also after `Cancel`).
    Generate {
        prompt: String,
        chat: bool,
        settings: SamplerSettings,
        max_tokens: usize,
        #[serde(default)]
        turn: Turn,
    },
    /// Stop the generation started by request `target_id`, within one token.
    Cancel { target_id: u32 },
    /// Start a session on a prompt and return the next-token logits (Lesson 1).
    Logits { prompt: String, chat: bool },
    /// Draw one token in the current session (Lesson 1). Answered by `Stepped`.
    Step { settings: SamplerSettings },
    /// Append `token` as if it had been drawn (Lesson 1). Answered by `Stepped`.
    Force {
        token: u32,
        settings: SamplerSettings,
    },
    /// Remove the last `n` generated tokens (Lesson 1). Answered by `Rewound`.
    Rewind { n: usize },
    // Lesson 2
    /// The loaded model's shape, for the KV-cache formula. Answered by `StageShape`.
    StageShape,
    /// Generate from `prompt`, reporting what every token cost. Answered by `StagePrompt`,
    /// `StageCost`… (one per token), then `StageDone`.
    StageMeasure {
        prompt: StagePrompt,
        cache: CacheMode,
        settings: SamplerSettings,
        max_tokens: usize,
    },
    /// Generate from `prompt` one cycle at a time: with `draft`, each cycle drafts up to
    /// `draft_len` tokens and verifies them in one pass; without, each cycle is one plain
    /// step, timed the same way, so that the two compare. Answered by `StagePrompt`, one
    /// `StageCost` (the first token, from the prefill), `StageCycle`…, then `StageDone`.
    StageSpeculate {
        prompt: StagePrompt,
        settings: SamplerSettings,
        draft: Option<Draft>,
        draft_len: usize,
        max_tokens: usize,
    },
    /// Speculative sampling is lossless in distribution: `trials` draft-and-verify cycles from
    /// the same context, each with its own seed (0, 1, …), and the first token each emitted,
    /// beside the probabilities plain sampling draws it with; and the second token, given the
    /// most likely first one. Answered by `StageDrawsProgress`…,
    /// then `StageSpecDraws` (also after `Cancel`, with the trials done).
    StageSpecDraws {
        prompt: StagePrompt,
        settings: SamplerSettings,
        draft: Draft,
        draft_len: usize,
        trials: usize,
    },
    /// As `StageMeasure`, with a look inside: every pass copies out layer `layer`'s (0-based)
    /// attention weights for all query heads, and the prefill the logit lens. Answered by
    /// `StagePrompt`, `StageLens`, `StageAttention` (the prompt's computed rows), then per
    /// token `StageAttention` (the row of the token the step ran) and `StageCost`…, then
    /// `StageDone`.
    StageInspect {
        prompt: StagePrompt,
        cache: CacheMode,
        layer: usize,
        settings: SamplerSettings,
        max_tokens: usize,
    },
    /// Times one forward pass over each of `sizes` tokens at one position, the median of
    /// `rounds`. Answered by `StagePass`… then `StagePassesDone`.
    StagePassCost { sizes: Vec<usize>, rounds: usize },
    /// Times one forward pass over `tokens` tokens with `position` tokens cached, the median
    /// of `rounds` (the serving simulator's attention cost per position). Answered by
    /// `StagePass`, then `StagePassesDone`.
    StagePassAt { tokens: usize, position: usize, rounds: usize },
    /// One pass taken apart: a prefill of `tokens` tokens of the lesson's text, then the
    /// decode step after it, each timed part by part. Answered by `StagePassParts`.
    StagePassParts { tokens: usize },
    // Lesson 1
    /// The text of every token, by id, so that the page can label any candidate.
    /// Answered by `Vocabulary`.
    Vocabulary,
    /// The session's context and its next-token logits (computed if missing), so that the
    /// page can run the sampler itself. Answered by `Next`.
    Next,
    /// Continuations of `prompt`, one per entry of `runs` (its settings; its seed starts its
    /// generator), each what the session on `prompt` alone would generate, decoded together.
    /// Answered by `Continuation`… as each ends (in any order), then `Continued`.
    Continue {
        prompt: String,
        chat: bool,
        runs: Vec<SamplerSettings>,
        max_tokens: usize,
    },
    /// What the model is given for `prompt` (`chat`: through the chat template; else raw
    /// text, after the BOS token when the file asks for one): its tokens written out as text,
    /// control tokens included. The session is not touched. Answered by `PromptText`.
    PromptText { prompt: String, chat: bool },
    // Lesson 3
    /// Run the bundled tasks chosen by `experiment` under each of its strategies. Answered by
    /// `ExperimentProgress`… and `ExperimentItem`… (with `ExperimentDepth`, and
    /// `FaithfulnessProgress`… then `ExperimentFaithfulness`, after the items they measure,
    /// when asked for; each task's `ExperimentSweepItem`s after its items), then
    /// `ExperimentDone` (also after `Cancel`).
    RunExperiment { experiment: Experiment },

    // Benchmark (bench/browser)
    /// As `Generate`, through the same code, but exactly `max_tokens` tokens: an
    /// end-of-turn token does not stop it. Answered by `Token`…, then `Done`.
    BenchGenerate {
        prompt: String,
        chat: bool,
        settings: SamplerSettings,
        max_tokens: usize,
    },
    /// Answered by `BenchStats`.
    BenchStats,
    /// One round of `engine::batch_bench` (bench/batch.mjs): `samples` samples of the chat
    /// prompt, one session after another, then decoded together. Answered by `BenchBatch`.
    BenchBatch {
        prompt: String,
        samples: usize,
        max_tokens: usize,
    },
}

/// What the model is, once loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub file_bytes: u64,
    pub weight_bytes: u64,
    pub layers: usize,
    pub vocab: usize,
    /// The context this page allows (capped below the model's own to bound memory).
    pub context: usize,
    pub from_cache: bool,
    pub load_ms: f64,
    /// `general.architecture`: llama, qwen2, qwen3, gemma3.
    pub architecture: String,
    /// Whether the file has a chat template; without one it is a base model.
    pub chat_template: bool,
    /// The share of a decode step's weights the opt-in integer arithmetic covers (0 to 1).
    #[serde(default)]
    pub integer_share: f64,
    /// Decode's loops for this model at the thread count of the load.
    pub kernels: Kernels,
    /// The file's recommended sampling settings (`general.sampling.*`), when it has any.
    #[serde(default)]
    pub sampling: Option<engine::gguf::sampling::FileSampling>,
}

/// Decode's matrix-vector loop for each block family of the loaded model, at the current
/// thread count (`engine::quant::choice`): timed on this device when the page held no
/// choice for this model and count, else the page's stored choice reused untimed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kernels {
    pub choice: KernelChoice,
    /// Timed now (true), or a stored choice reused (false).
    pub measured_now: bool,
}

/// What a GGUF file on the learner's device holds, read from its header before loading it
/// (`engine::gguf::info`), and the memory loading it would take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileFacts {
    /// `general.name`, when the file has one.
    pub name: Option<String>,
    pub architecture: String,
    pub parameters: u64,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub vocab: usize,
    /// The model's own context (the page caps it, as for every model).
    pub context: usize,
    /// How many tensors have each type ("Q4_K", 97), most first.
    pub tensor_types: Vec<(String, usize)>,
    pub chat_template: bool,
    pub file_bytes: u64,
    /// Weights (their size in the file: they stay quantised) and the KV cache at the page's
    /// context: what the worker's memory must hold for this model.
    pub needed_bytes: u64,
    /// The model loaded now, which stays in memory until the new one is ready.
    pub loaded_bytes: u64,
}

/// The most a wasm32 engine can address: its pointers are 32 bits.
pub const WASM32_BYTES: u64 = 4 << 30;
/// Kept free of models for the engine's working memory (activations, logits, the allocator).
pub const WORKING_BYTES: u64 = 256 << 20;

impl FileFacts {
    /// Why this file cannot be loaded in a browser tab, in words for the learner.
    pub fn fits(&self) -> Result<(), String> {
        let gb = |b: u64| format!("{:.2} GB", b as f64 / 1e9);
        let room = WASM32_BYTES - WORKING_BYTES;
        if self.needed_bytes > room {
            return Err(format!(
                "This model cannot fit: it needs about {} (weights and the KV cache), and the engine in a browser tab can address {} at most ({} of it kept for working memory).",
                gb(self.needed_bytes),
                gb(WASM32_BYTES),
                gb(WORKING_BYTES)
            ));
        }
        if self.needed_bytes + self.loaded_bytes > room {
            return Err(format!(
                "This model cannot fit beside the one loaded now: it needs about {}, the loaded model holds {} until the new one is ready, and the engine can address {} at most. Reload the page, then open the file before loading anything else.",
                gb(self.needed_bytes),
                gb(self.loaded_bytes),
                gb(WASM32_BYTES)
            ));
        }
        Ok(())
    }
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
    Progress {
        loaded: u64,
        total: Option<u64>,
        mb_per_s: f64,
        from_cache: bool,
    },
    ModelReady {
        info: ModelInfo,
    },
    FileFacts {
        facts: FileFacts,
    },
    CacheCleared,
    /// The prompt's tokens computed so far (`done` of `total`), after each prefill slice of a
    /// prompt longer than one slice. The bridge shows it (`Bridge::prefill`); handlers never see it.
    Prefill { done: usize, total: usize },
    /// The threads each pass now splits over, the most this worker offers, and decode's
    /// loops for that count (none before a model is loaded).
    Threads { threads: usize, max: usize, kernels: Option<Kernels> },
    /// Whether decode now uses the integer arithmetic; when switched on, its measurement.
    IntegerActivations {
        on: bool,
        deviation: Option<IntegerDeviation>,
    },
    /// One generated token: `piece` is the text it completes (never half a character),
    /// `prob` its probability in the final distribution, `ms` its forward and sampling time.
    /// `forced`: placed by the request (`Turn::force`), not drawn. `alternatives`: the most
    /// likely candidates it was drawn from, as many as `Turn::alternatives` asked for.
    Token {
        piece: String,
        token: u32,
        prob: f32,
        ms: f64,
        #[serde(default)]
        forced: bool,
        #[serde(default)]
        alternatives: Vec<Alternative>,
    },
    /// The end of a generation. `tokens` counts the generated tokens; of the context, the
    /// first `reused` tokens came from the KV cache and `computed` were run through the
    /// model; `context` is its length at the end.
    Done {
        text: String,
        tokens: usize,
        ttft_ms: f64,
        prefill_tps: f64,
        decode_tps: f64,
        stop: StopReason,
        #[serde(default)]
        reused: usize,
        #[serde(default)]
        computed: usize,
        #[serde(default)]
        context: usize,
    },
    /// Next-token logits over the whole vocabulary, and the most likely tokens.
    Logits {
        logits: Vec<f32>,
        top: Vec<TopToken>,
    },
    Stepped {
        step: engine::Step,
    },
    Rewound {
        generated: usize,
    },
    /// The request failed; the worker goes on serving others.
    Error {
        message: String,
    },
    /// The worker panicked (id 0): it cannot be trusted any more and must be restarted.
    Crashed {
        message: String,
    },
    // Lesson 2
    /// The model's hyper-parameters, and the bytes one position takes in the KV cache.
    StageShape {
        config: Config,
        kv_bytes_per_position: usize,
    },
    /// The prompt's tokens as text; the first `reused` came from the cache.
    StagePrompt {
        tokens: Vec<String>,
        reused: usize,
    },
    StageCost {
        cost: TokenCost,
    },
    StageCycle {
        cycle: CycleReport,
    },
    /// The end of a measured generation: the whole text and why it stopped.
    /// Cycles of `StageSpecDraws` done so far.
    StageDrawsProgress { done: usize, total: usize },
    /// The first tokens of `trials` speculative cycles, counted per token, beside plain
    /// sampling's probabilities (cells that cover every token); `first_accepted`: cycles
    /// whose first drafted token the target accepted; `second`: the second tokens given the
    /// most likely first one.
    StageSpecDraws {
        cells: Vec<DrawCell>,
        trials: usize,
        first_accepted: usize,
        #[serde(default)]
        second: Option<SecondDraws>,
    },
    StageDone {
        text: String,
        stop: StopReason,
    },
    /// Attention rows the last pass computed, every query head's.
    StageAttention {
        rows: Vec<AttentionRow>,
    },
    /// The logit lens for the token after the prompt: every layer's top 5.
    StageLens {
        layers: Vec<LensLayer>,
    },
    /// One forward pass over `tokens` tokens at `position` took `ms` (a median).
    StagePass {
        tokens: usize,
        position: usize,
        ms: f64,
    },
    /// Every size was timed (or `cancelled`); the bytes one position took in the timed
    /// passes' cache (the serving simulator's memory cost).
    StagePassesDone {
        cancelled: bool,
        kv_bytes_per_position: f64,
    },
    /// The prefill and the decode step of a `StagePassParts`, part by part.
    StagePassParts {
        prefill: PassParts,
        decode: PassParts,
    },
    // Lesson 1
    Vocabulary {
        tokens: Vec<String>,
    },
    /// `context` holds the prompt's `prompt_len` tokens, then the generated ones.
    Next {
        context: Vec<u32>,
        prompt_len: usize,
        logits: Vec<f32>,
    },
    /// Continuation `run` of a `Continue`. `logprobs[i]` is the model's own ln-probability of
    /// `tokens[i]` (`Step::model_logprob`).
    Continuation {
        run: usize,
        text: String,
        tokens: Vec<u32>,
        logprobs: Vec<f32>,
        stop: StopReason,
    },
    /// Every continuation of a `Continue` has been sent.
    Continued,
    /// The prompt a `PromptText` asked about, as the model sees it, and its token count.
    PromptText { text: String, tokens: usize },
    // Lesson 3
    /// `done` of `total` task runs (a task under one strategy) are finished; the running
    /// one has generated `tokens` so far.
    ExperimentProgress {
        done: usize,
        total: usize,
        tokens: usize,
    },
    /// One task finished under one strategy.
    ExperimentItem {
        result: ItemResult,
    },
    /// The depth of the samples of the `ExperimentItem` just sent, when the experiment asked
    /// for it and the strategy writes a trace the page may see (chain of thought,
    /// self-consistency): per sample, in order, its tokens scored (`None`: it wrote none in
    /// its own context), and the milliseconds the scoring took in the worker. `prompt`: the
    /// task's prompt scored the same way, teacher-forced (a baseline of text the model did not
    /// write), sent with the first scored strategy of each task only (they share the prompt),
    /// and not counted in `depth_ms`.
    ExperimentDepth {
        samples: Vec<Option<SampleDepth>>,
        depth_ms: f64,
        #[serde(default)]
        prompt: Option<SampleDepth>,
    },
    /// `finished` of the `variants` greedy generations of the faithfulness tests on the
    /// chain-of-thought trace just sent are done; the running one has generated `tokens`.
    FaithfulnessProgress {
        finished: usize,
        variants: usize,
        tokens: usize,
    },
    /// The three faithfulness tests on the chain-of-thought trace of the `ExperimentItem`
    /// just sent, when the experiment asked for them.
    ExperimentFaithfulness {
        faith: Faithfulness,
    },
    /// One task finished under chain of thought at `budget`, a budget of the sweep.
    ExperimentSweepItem {
        budget: usize,
        result: ItemResult,
    },
    /// The experiment ended, every task run finished or `cancelled`.
    ExperimentDone {
        cancelled: bool,
    },

    // Benchmark (bench/browser)
    /// The worker's wasm memory, which never shrinks (so this is its peak), and the size
    /// of the current session.
    BenchStats {
        wasm_memory_bytes: u64,
        prompt_tokens: usize,
        generated_tokens: usize,
    },
    BenchBatch {
        round: engine::batch_bench::BatchRound,
    },
}

impl Response {
    /// Whether this is the last response to its request.
    pub fn is_final(&self) -> bool {
        !matches!(
            self,
            Response::Progress { .. }
                | Response::Prefill { .. }
                | Response::Token { .. }
                | Response::StagePrompt { .. }
                | Response::StageCost { .. }
                | Response::StageCycle { .. }
                | Response::StageDrawsProgress { .. }
                | Response::StageAttention { .. }
                | Response::StageLens { .. }
                | Response::StagePass { .. }
                | Response::Continuation { .. }
                | Response::ExperimentProgress { .. }
                | Response::ExperimentItem { .. }
                | Response::ExperimentDepth { .. }
                | Response::FaithfulnessProgress { .. }
                | Response::ExperimentFaithfulness { .. }
                | Response::ExperimentSweepItem { .. }
        )
    }
}

// Lesson 3. Its imports are kept here, with its types, apart from the other lessons'.
use engine::reasoning::faithfulness::Faithfulness;
use engine::reasoning::strategy::{ItemResult, RunConfig, Strategy};
use engine::reasoning::task::Task;
use engine::reasoning::trace_depth::SampleDepth;
use engine::reasoning::tasks::{bundled_tasks, select};

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
    /// Also score each trace's depth (every layer's distribution at every token,
    /// teacher-forced after the item): Lesson 3's depth panels.
    #[serde(default)]
    pub depth: bool,
    /// Also run the three faithfulness tests (early answering, an added mistake, a hint)
    /// on each chain-of-thought trace: Lesson 3's faithfulness panels.
    #[serde(default)]
    pub faithfulness: bool,
    /// `RunConfig::forced_answer`: off, a trace the budget cuts ends with no answer.
    #[serde(default = "forced_by_default")]
    pub forced_answer: bool,
    /// Also run each task under chain of thought at every budget of `SWEEP_BUDGETS`
    /// (Lesson 3's budget sweep).
    #[serde(default)]
    pub sweep: bool,
}

/// The budgets of the budget sweep, doubling.
pub const SWEEP_BUDGETS: [usize; 5] = [16, 32, 64, 128, 256];

fn forced_by_default() -> bool {
    true
}

impl Experiment {
    /// Whether the samples of `strategy` get their depth scored: only traces the page sees.
    pub fn scores_depth(&self, strategy: Strategy) -> bool {
        self.depth && matches!(strategy, Strategy::Cot | Strategy::SelfConsistency)
    }

    /// The budgets each task also runs at under chain of thought: the sweep's, if asked for.
    pub fn sweep_budgets(&self) -> Vec<usize> {
        if self.sweep {
            SWEEP_BUDGETS.to_vec()
        } else {
            Vec::new()
        }
    }

    /// Chain of thought at `budget`, otherwise as this experiment's.
    pub fn sweep_config(&self, budget: usize) -> RunConfig {
        RunConfig {
            budget,
            ..self.config(Strategy::Cot)
        }
    }

    /// Task runs per task: one per strategy, one per budget of the sweep.
    pub fn runs_per_task(&self) -> usize {
        self.strategies.len() + self.sweep_budgets().len()
    }

    /// Whether the trace of `strategy` gets the faithfulness tests: chain of thought, the
    /// one greedy trace, so that every result is repeatable.
    pub fn tests_faithfulness(&self, strategy: Strategy) -> bool {
        self.faithfulness && strategy == Strategy::Cot
    }
}

impl Experiment {
    /// The tasks this experiment runs, in order.
    pub fn tasks(&self) -> Vec<Task> {
        select(
            &bundled_tasks(),
            self.category.as_deref(),
            Some(self.limit),
            Some(self.seed),
        )
    }

    pub fn config(&self, strategy: Strategy) -> RunConfig {
        RunConfig {
            strategy,
            samples: self.samples,
            temperature: self.temperature,
            budget: self.budget,
            seed: self.seed,
            forced_answer: self.forced_answer,
        }
    }

    /// Why this experiment cannot run, in words for the learner. The page asks before it
    /// sends; the worker asks again, since it trusts no message.
    pub fn validate(&self) -> Result<(), String> {
        if self.strategies.is_empty() {
            return Err("Choose at least one strategy.".into());
        }
        if self
            .strategies
            .iter()
            .enumerate()
            .any(|(i, s)| self.strategies[..i].contains(s))
        {
            return Err("Each strategy can run only once per experiment.".into());
        }
        if self.limit == 0 {
            return Err("Choose at least one task.".into());
        }
        if self.faithfulness && !self.strategies.contains(&Strategy::Cot) {
            return Err("Faithfulness is tested on chain-of-thought traces: tick Chain of thought too, or untick Test faithfulness.".into());
        }
        if let Some(category) = &self.category {
            if !bundled_tasks().iter().any(|t| &t.category == category) {
                return Err(format!("There is no task category \"{category}\"."));
            }
        }
        for &strategy in &self.strategies {
            self.config(strategy)
                .validate()
                .map_err(|e| format!("This experiment cannot run: {e}."))?;
        }
        Ok(())
    }
}

// Lesson 2: the types its requests and responses carry.
use engine::probe::{AttentionRow, LensLayer, PassParts};

/// A prompt for Lesson 2's measurements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StagePrompt {
    /// Messages through the chat template, with its default system prompt.
    Chat(Vec<Message>),
    /// Raw text for the model to continue.
    Raw(String),
    /// Exactly this many tokens of the lesson's own text: prompts of exact lengths.
    Filler(usize),
}

/// How a measured generation uses the KV cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CacheMode {
    /// Keep the cached keys and values of the prompt's common prefix with the last context.
    Reuse,
    /// Start from an empty cache.
    Cold,
    /// No cache: every step recomputes the whole sequence.
    Off,
}

/// What one token cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenCost {
    /// 1-based position of the token in the sequence (prompt, then generated tokens).
    pub position: usize,
    /// The text it completes in the stream.
    pub piece: String,
    /// Forward passes and sampling for this token: the prefill for the first one.
    pub ms: f64,
    /// Tokens run through the model for it.
    pub computed: usize,
    /// Bytes of keys and values cached after it.
    pub kv_bytes: usize,
}

/// One token of `StageSpecDraws`: its probability under plain sampling, and how often a
/// speculative cycle emitted it first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrawCell {
    /// `None`: every other token (each expected less than once), together, with the draws
    /// that fell among them.
    pub token: Option<u32>,
    pub text: String,
    pub prob: f32,
    pub count: u64,
}

/// The second token of the `StageSpecDraws` trials whose first token was the most likely one
/// (`first`), counted beside plain sampling's probabilities given that first token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SecondDraws {
    pub first: String,
    pub cells: Vec<DrawCell>,
    pub trials: usize,
}

/// Most trials a `StageSpecDraws` may ask for: about a minute in a browser.
pub const MAX_DRAW_TRIALS: usize = 2000;

/// One draft-and-verify cycle, with token texts for the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CycleReport {
    pub drafted: Vec<String>,
    /// How many leading drafts the target accepted.
    pub accepted: usize,
    /// The target's own token after them (a correction, or a bonus when all were accepted).
    pub target: Option<String>,
    /// The text the cycle added, and how many tokens.
    pub text: String,
    pub tokens: usize,
    pub draft_ms: f64,
    pub verify_ms: f64,
    /// The whole cycle as the worker timed it: draft, verify, acceptance, bookkeeping.
    pub ms: f64,
    /// β = Σ min(p, q) at each drafted position the target judged (`engine::acceptance`).
    #[serde(default)]
    pub betas: Vec<f64>,
}

// The playground: a `Generate` inside a conversation, and what each token was drawn from.

/// Where a `Generate` stands in a conversation. The default is a lone message with the
/// template's system prompt, as before conversations existed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Turn {
    /// The system message; `None`: the template's default; empty: an empty system message,
    /// which a template that inserts a default writes as an empty system turn (chat only).
    pub system: Option<String>,
    /// The exchanges before `prompt` (in raw text: the texts added before, each with its continuation).
    pub earlier: Vec<Exchange>,
    /// The answer's first tokens, already there: Continue and branches go on from them.
    pub answer: Vec<u32>,
    /// A token placed after `answer` before anything is drawn (a branch's alternative).
    pub force: Option<u32>,
    /// Generation stops once the answer's text contains one of these.
    pub stop: Vec<String>,
    /// How many of the most likely candidates each `Token` reports.
    pub alternatives: usize,
}

/// Most continuations one `Continue` may ask for (Lesson 1's Compare asks for up to 20).
pub const MAX_CONTINUATIONS: usize = 32;

/// Limits the worker holds a `Turn` to.
pub const MAX_STOP_SEQUENCES: usize = 8;
pub const MAX_ALTERNATIVES: usize = 20;

/// Why `stop` cannot be a `Turn`'s stop sequences, in words for the learner.
pub fn check_stop_sequences(stop: &[String]) -> Result<(), String> {
    if stop.len() > MAX_STOP_SEQUENCES || stop.iter().any(|s| s.is_empty()) {
        return Err(format!(
            "Stop sequences: at most {MAX_STOP_SEQUENCES}, none of them empty."
        ));
    }
    Ok(())
}

/// One candidate for a drawn token: its text, its probability after the temperature
/// (before any cut), its final probability, and the stage that cut it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alternative {
    pub token: u32,
    pub text: String,
    pub prob: f32,
    pub final_prob: f32,
    pub cut_by: Option<Stage>,
}

#[cfg(test)]
mod tests {
    use super::{FileFacts, WASM32_BYTES, WORKING_BYTES};
    use wasm_bindgen_test::wasm_bindgen_test;

    fn facts(needed_bytes: u64, loaded_bytes: u64) -> FileFacts {
        FileFacts {
            name: None,
            architecture: "llama".into(),
            parameters: 0,
            layers: 1,
            heads: 1,
            kv_heads: 1,
            vocab: 1,
            context: 1,
            tensor_types: Vec::new(),
            chat_template: false,
            file_bytes: needed_bytes,
            needed_bytes,
            loaded_bytes,
        }
    }

    /// A file fits when it leaves the working memory free, alone and beside the loaded
    /// model; at one byte over either limit it is refused, with the reason in words.
    #[wasm_bindgen_test]
    fn a_file_fits_only_within_the_address_space_left() {
        let room = WASM32_BYTES - WORKING_BYTES;
        assert_eq!(facts(room, 0).fits(), Ok(()));
        assert!(facts(room + 1, 0).fits().unwrap_err().starts_with("This model cannot fit: it needs about 4.03 GB"));
        assert_eq!(facts(room - 100, 100).fits(), Ok(()));
        let beside = facts(room - 100, 101).fits().unwrap_err();
        assert!(beside.starts_with("This model cannot fit beside the one loaded now"), "{beside}");
    }
}

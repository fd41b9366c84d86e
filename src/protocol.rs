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
    Generate {
        prompt: String,
        chat: bool,
        settings: SamplerSettings,
        max_tokens: usize,
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
    // Lesson 1
    /// The text of every token, by id, so that the page can label any candidate.
    /// Answered by `Vocabulary`.
    Vocabulary,
    /// The session's context and its next-token logits (computed if missing), so that the
    /// page can run the sampler itself. Answered by `Next`.
    Next,
    /// A continuation of `prompt`, generated in a fresh session with `settings` (their seed
    /// starts the generator). Answered by `Continuation`.
    Continue {
        prompt: String,
        chat: bool,
        settings: SamplerSettings,
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
    Progress {
        loaded: u64,
        total: Option<u64>,
        mb_per_s: f64,
        from_cache: bool,
    },
    ModelReady {
        info: ModelInfo,
    },
    CacheCleared,
    /// One generated token: `piece` is the text it completes (never half a character),
    /// `prob` its probability in the final distribution, `ms` its forward and sampling time.
    Token {
        piece: String,
        token: u32,
        prob: f32,
        ms: f64,
    },
    /// The end of a generation. `tokens` counts the generated tokens.
    Done {
        text: String,
        tokens: usize,
        ttft_ms: f64,
        prefill_tps: f64,
        decode_tps: f64,
        stop: StopReason,
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
    /// `logprobs[i]` is the model's own ln-probability of `tokens[i]` (`Step::model_logprob`).
    Continuation {
        text: String,
        tokens: Vec<u32>,
        logprobs: Vec<f32>,
        stop: StopReason,
    },
}

impl Response {
    /// Whether this is the last response to its request.
    pub fn is_final(&self) -> bool {
        !matches!(self, Response::Progress { .. } | Response::Token { .. })
    }
}

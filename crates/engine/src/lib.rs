//! Inference Playground's engine: SmolLM2 and other llama, Qwen2/3 and Gemma 3 GGUFs on candle's GGUF reader, with
//! every step a lesson needs exposed as data. Plain Rust, no web dependencies: it builds
//! natively (CLI, tests) and for wasm32 (the page's worker).

pub mod acceptance;
pub mod allocator;
pub mod arch;
pub mod batch;
pub mod batch_bench;
pub mod chat;
pub mod chi_square;
pub mod error;
pub mod gguf;
pub mod kv_cache;
mod memory;
pub mod parallel;
#[cfg(feature = "threads")]
mod pool;
pub mod probe;
pub mod quant;
#[cfg(feature = "reference")]
pub mod reference;
pub mod sampler;
pub mod serving_sim;
pub mod systems;
pub mod session;
pub mod speculative;
pub mod speculative_draws;
pub mod testing;
pub mod tokenizer;

pub use arch::Model;
pub use chat::{chat_text, chat_tokens, conversation_tokens, prompt_tokens, Exchange, Message, Role, SystemPrompt};
pub use error::{EngineError, Result};
pub use gguf::config::Config;
pub use sampler::{Distribution, SamplerSettings, Stage};
pub use session::{Clock, Generation, Reuse, Session, Step, StopReason, Timings};
pub mod reasoning;

//! Inference Playground's engine: SmolLM2 (any llama GGUF) on candle's GGUF reader, with
//! every step a lesson needs exposed as data. Plain Rust, no web dependencies: it builds
//! natively (CLI, tests) and for wasm32 (the page's worker).

pub mod batch;
pub mod batch_bench;
pub mod chat;
pub mod config;
pub mod error;
pub mod kv_cache;
mod memory;
pub mod model;
pub mod parallel;
#[cfg(feature = "threads")]
mod pool;
pub mod probe;
pub mod quant;
#[cfg(feature = "reference")]
pub mod reference;
pub mod sampler;
pub mod systems;
pub mod session;
mod simd;
pub mod speculative;
pub mod testing;
pub mod tokenizer;

pub use chat::{chat_tokens, conversation_tokens, prompt_tokens, Exchange, Message, Role, SystemPrompt};
pub use config::Config;
pub use error::{EngineError, Result};
pub use model::Model;
pub use sampler::{Distribution, SamplerSettings, Stage};
pub use session::{Clock, Generation, Reuse, Session, Step, StopReason, Timings};
pub mod reasoning;

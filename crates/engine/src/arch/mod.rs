//! The model architectures: the forward pass they share (`model.rs`), one file per
//! architecture for what it adds (`llama.rs`, `qwen2.rs`, `qwen3.rs`, `gemma3.rs`), the
//! pieces they share (`layers.rs`), what a pass copies out for the lessons (`hooks.rs`), and a pass taken apart and
//! timed (`parts.rs`).

mod gemma3;
pub mod hooks;
mod layers;
mod llama;
mod model;
pub mod parts;
mod qwen2;
mod qwen3;

pub use crate::gguf::config::Architecture;
pub use layers::Logits;
pub use model::Model;
pub(crate) use model::ROPE_FACTORS;

//! The model architectures: one file per architecture's forward pass.

mod llama;

pub use llama::{read_gguf, Logits, Model};

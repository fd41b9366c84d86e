//! The model architectures: one file per architecture's forward pass (`llama.rs`), the
//! pieces they share (`layers.rs`), and what a pass copies out for the lessons (`hooks.rs`).

pub mod hooks;
mod layers;
mod model;

pub use layers::Logits;
pub use model::Model;

//! `/playground`: a chat (or raw text) with every setting the engine has, each token's
//! probabilities and alternatives, branches, and the conversation kept in the browser and
//! saved as JSON.

pub mod chat;
pub mod controls;
pub mod conversation;
pub mod engine_arithmetic;
pub mod engine_kernels;
pub mod engine_threads;
pub mod follow;
pub mod link;
pub mod page;
pub mod persist;
pub mod presets;
pub mod saved;
pub mod tokens;
pub mod transcript;

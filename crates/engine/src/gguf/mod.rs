//! Reading a GGUF file.

pub mod config;

//! Inference Playground's web app. Two wasm bundles come from this library: the page
//! (`src/main.rs`: Leptos UI, routes, the bridge to the worker) and the engine worker
//! (`src/bin/worker.rs`), which runs the model off the page's thread. Natively it holds only
//! the prose, the built-in models' facts and the numbers' format, plain Rust that its native
//! tests check against the engine and the model files; the rest is wasm32 only, and the
//! crate is a workspace default member for Trunk's sake (see Cargo.toml).

pub mod content;
pub mod digits;
pub mod model_file;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod arithmetic;
#[cfg(target_arch = "wasm32")]
pub mod bridge;
#[cfg(target_arch = "wasm32")]
pub mod kernel_choices;
#[cfg(target_arch = "wasm32")]
pub mod lessons;
#[cfg(target_arch = "wasm32")]
pub mod markdown;
#[cfg(target_arch = "wasm32")]
pub mod model_choice;
#[cfg(target_arch = "wasm32")]
pub mod pages;
#[cfg(target_arch = "wasm32")]
pub mod playground;
#[cfg(target_arch = "wasm32")]
pub mod protocol;
#[cfg(target_arch = "wasm32")]
pub mod routes;
#[cfg(target_arch = "wasm32")]
pub mod threads;
#[cfg(target_arch = "wasm32")]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub mod worker;

#[cfg(all(test, target_arch = "wasm32"))]
mod engine_in_browser;

//! Inference Playground's web app. Two wasm bundles come from this library: the page
//! (`src/main.rs`: Leptos UI, routes, the bridge to the worker) and the engine worker
//! (`src/bin/worker.rs`), which runs the model off the page's thread. Natively it is empty:
//! it is a workspace default member only for Trunk's sake (see Cargo.toml).
#![cfg(target_arch = "wasm32")]

pub mod app;
pub mod bridge;
pub mod content;
pub mod digits;
pub mod lessons;
pub mod markdown;
pub mod model_choice;
pub mod model_file;
pub mod pages;
pub mod playground;
pub mod protocol;
pub mod routes;
pub mod threads;
pub mod ui;
pub mod worker;

#[cfg(all(test, target_arch = "wasm32"))]
mod engine_in_browser;

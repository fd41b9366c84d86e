//! The engine worker's wasm entry point (Trunk: `data-bin="worker"`, loaded by
//! worker_loader.js as a classic worker).
fn main() {
    #[cfg(target_arch = "wasm32")]
    inference_playground::worker::start();
}

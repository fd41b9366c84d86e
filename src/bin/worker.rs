//! The engine worker's wasm entry point (Trunk: `data-bin="worker"`, loaded by
//! worker_loader.js as a classic worker).
fn main() {
    #[cfg(target_arch = "wasm32")]
    inference_playground::worker::start();
}

/// The system allocator, noting an allocation that failed so that a crash from running out
/// of memory says so (see `worker::crash`), with the ceiling a chat template renders under.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: engine::allocator::Allocator = engine::allocator::Allocator;

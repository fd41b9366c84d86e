//! The multi-threaded worker's pool (feature `threads`, scripts/build-threads.sh): rayon's
//! threads as Web Workers that share this worker's memory (wasm-bindgen-rayon). The pool
//! is as large as the learner may choose; `engine::parallel` splits each pass over as many
//! of its threads as `SetThreads` asked for.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The most threads offered: beyond 8 this small model's matmuls gain little.
pub const MOST: usize = 8;

/// Starts the pool: `min(hardwareConcurrency, MOST)` threads.
pub async fn start_pool() -> Result<(), String> {
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let cores = scope.navigator().hardware_concurrency() as usize;
    JsFuture::from(wasm_bindgen_rayon::init_thread_pool(cores.clamp(1, MOST)))
        .await
        .map(|_| ())
        .map_err(|e| format!("its threads could not start ({e:?})"))
}

//! The browser's batch figure (bench/batch.mjs): one round of `engine::batch_bench` in this
//! worker, on the loaded model, timed by the worker's clock. A benchmark, not a lesson: the
//! round runs to its end in one turn of the event loop (Cancel is not heard), and it takes
//! the session first, so that no other request runs beside it.

use super::{prompt::prompt_ids, state};
use crate::protocol::Response;
use engine::batch_bench::{round, samples};

pub fn bench_batch(id: u32, prompt: &str, n: usize, max_tokens: usize) -> Result<Response, String> {
    let model = state::with(|s| s.take(id).map(|session| session.model().clone()))?;
    let ids = prompt_ids(&model, prompt, true)?;
    let samples = samples(n, max_tokens).map_err(|e| e.to_string())?;
    let new_session = || state::page_session(model.clone());
    let round = round(&model, &ids, &samples, new_session, state::performance_now)
        .map_err(|e| e.to_string())?;
    Ok(Response::BenchBatch { round })
}

//! A simulated server (Lesson 2's serving simulator and `playground simulate-serving`):
//! requests arrive, wait for memory and a place in the batch, have their prompts computed and
//! their answers decoded, one forward pass of the whole batch at a time. A discrete-event
//! simulation, exact and repeatable for given inputs; nothing in it is measured except the
//! costs (`Costs`), which the page and `--measured` time on the device.
//!
//! One file per concern: the drawn workload (`workload.rs`), the KV memory, contiguous or
//! paged (`memory.rs`), a pass's cost (`cost.rs`) and the timed passes it comes from
//! (`measured.rs`), the scheduler's loop (`scheduler.rs`), and the summary with its
//! percentiles (`summary.rs`).

mod cost;
pub mod findings;
mod measured;
mod memory;
mod scheduler;
mod summary;
mod workload;
#[cfg(test)]
mod tests;

pub use cost::{fit, position_slope_us, Costs};
pub use measured::{MeasuredCosts, FAR_POSITION, NEAR_POSITION, PASS_SIZES, SLOPE_TOKENS};
pub use scheduler::simulate;
pub use summary::{nearest_rank, Summary};
pub use workload::{draw, Workload};

use serde::{Deserialize, Serialize};

/// The ranges the simulation accepts.
pub const MAX_REQUESTS: usize = 2000;
pub const MAX_BATCH: usize = 256;
pub const MAX_PROMPT: usize = 8192;
pub const MAX_ANSWER: usize = 4096;
pub const MAX_BLOCK: usize = 1024;
pub const MAX_DEVICES: usize = 64;

/// One request as a server sees it arrive. `answer_tokens` is how long the answer turns out
/// to be, which the server does not know: it knows only the request's `max_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub arrival_ms: f64,
    pub prompt_tokens: usize,
    pub answer_tokens: usize,
    pub max_tokens: usize,
}

/// How the KV cache's memory is handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Memory {
    /// A request reserves its prompt plus its `max_tokens` on admission, in one piece, as a
    /// server without paged memory must.
    Contiguous,
    /// Blocks of `block_size` positions, taken as the positions are written (the prompt's on
    /// admission, then one block at a time as the answer grows). When no block is free, the
    /// request admitted last is preempted: its blocks are freed and it is later recomputed
    /// (its prompt and the tokens it had written, in one prefill), as vLLM's default does.
    Paged { block_size: usize },
}

/// Splitting a prompt's computation across `devices` (context parallelism, ring attention):
/// each device computes its share of the prompt's tokens, and the shares' keys and values go
/// round the ring, `devices − 1` steps, each taking `link_ms` per 1,000 positions sent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContextParallel {
    pub devices: usize,
    pub link_ms: f64,
    /// The exchange runs beside the computation (the pass takes the longer of the two), as
    /// Yang et al. do; without it, after (the pass takes both: an upper bound).
    pub overlap: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Server {
    /// Memory for the KV cache, in bytes (the weights are not in it).
    pub memory_bytes: f64,
    /// Bytes of keys and values one cached position takes.
    pub kv_bytes_per_token: f64,
    /// Most requests in one batch.
    pub batch_limit: usize,
    pub memory: Memory,
    /// Admit waiting requests at every pass (continuous batching), or only when the whole
    /// batch has finished (static batching).
    pub continuous: bool,
    /// Most prompt tokens computed in one pass (chunked prefill); `None`: a prompt is
    /// computed whole in one pass. Decode tokens are not counted in it.
    pub prefill_chunk: Option<usize>,
    pub context_parallel: Option<ContextParallel>,
}

/// One request's life, in simulated milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestOutcome {
    pub arrival_ms: f64,
    /// Its first admission (a preempted request is admitted again later).
    pub admitted_ms: f64,
    pub first_token_ms: f64,
    pub finish_ms: f64,
    /// When each answer token was produced (the end of the pass that produced it).
    pub token_ms: Vec<f64>,
    pub preemptions: usize,
}

/// The memory after one pass, for the chart of memory over time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MemoryPoint {
    pub ms: f64,
    pub reserved_bytes: f64,
    pub used_bytes: f64,
    pub batch: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub requests: Vec<RequestOutcome>,
    pub timeline: Vec<MemoryPoint>,
    /// Time the ring exchange added to passes (context parallelism).
    pub exchange_ms: f64,
}

/// Why these inputs cannot be simulated, with the accepted range.
pub fn validate(costs: &Costs, requests: &[Request], server: &Server) -> Result<(), String> {
    costs.validate()?;
    if requests.is_empty() || requests.len() > MAX_REQUESTS {
        return Err(format!("{} requests; there must be 1 to {MAX_REQUESTS}.", requests.len()));
    }
    let mut last = 0.0;
    for (i, r) in requests.iter().enumerate() {
        if !(r.arrival_ms.is_finite() && r.arrival_ms >= last) {
            return Err(format!("Request {i}: arrival_ms {} must be a number, at least 0 and not before the previous request's.", r.arrival_ms));
        }
        last = r.arrival_ms;
        if !(1..=MAX_PROMPT).contains(&r.prompt_tokens) {
            return Err(format!("Request {i}: prompt_tokens {} must be 1 to {MAX_PROMPT}.", r.prompt_tokens));
        }
        if !(1..=MAX_ANSWER).contains(&r.max_tokens) {
            return Err(format!("Request {i}: max_tokens {} must be 1 to {MAX_ANSWER}.", r.max_tokens));
        }
        if !(1..=r.max_tokens).contains(&r.answer_tokens) {
            return Err(format!("Request {i}: answer_tokens {} must be 1 to its max_tokens, {}.", r.answer_tokens, r.max_tokens));
        }
    }
    if !(1..=MAX_BATCH).contains(&server.batch_limit) {
        return Err(format!("Batch limit {}: it must be 1 to {MAX_BATCH}.", server.batch_limit));
    }
    if !(server.kv_bytes_per_token.is_finite() && server.kv_bytes_per_token > 0.0 && server.kv_bytes_per_token <= 1e9) {
        return Err(format!("KV bytes per token {}: it must be above 0 and at most 1e9.", server.kv_bytes_per_token));
    }
    if let Memory::Paged { block_size } = server.memory {
        if !(1..=MAX_BLOCK).contains(&block_size) {
            return Err(format!("Block size {block_size}: it must be 1 to {MAX_BLOCK} positions."));
        }
    }
    if let Some(chunk) = server.prefill_chunk {
        if !(1..=MAX_PROMPT).contains(&chunk) {
            return Err(format!("Prefill chunk {chunk}: it must be 1 to {MAX_PROMPT} tokens (or none)."));
        }
    }
    if let Some(cp) = server.context_parallel {
        if !(1..=MAX_DEVICES).contains(&cp.devices) {
            return Err(format!("Context-parallel devices {}: it must be 1 to {MAX_DEVICES}.", cp.devices));
        }
        if !(cp.link_ms.is_finite() && (0.0..=1e6).contains(&cp.link_ms)) {
            return Err(format!("Link time {} ms per 1,000 positions: it must be 0 to 1,000,000.", cp.link_ms));
        }
    }
    // A request alone on the server must fit, or it would wait for ever.
    let longest = requests.iter().map(|r| r.prompt_tokens + r.max_tokens).max().unwrap_or(0);
    let positions = match server.memory {
        Memory::Contiguous => longest,
        Memory::Paged { block_size } => longest.div_ceil(block_size) * block_size,
    };
    let need = positions as f64 * server.kv_bytes_per_token;
    if !(server.memory_bytes.is_finite() && server.memory_bytes >= need) {
        return Err(format!(
            "The memory ({:.1} MB) must hold the longest request's prompt and max_tokens: {positions} positions take {:.1} MB.",
            server.memory_bytes / 1e6,
            need / 1e6
        ));
    }
    Ok(())
}

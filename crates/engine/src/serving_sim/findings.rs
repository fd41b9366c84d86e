//! The lesson's three results, each one workload run twice on the device's costs with one
//! thing changed: paged against contiguous memory, chunked against whole prefill, continuous
//! against static batching. The workloads are stated here and on the page; their arrival
//! times are set in passes of the device (`decode_pass_ms`), so that a faster or slower
//! device sees the same situation, not an idle or a drowned server.

use super::{simulate, Costs, Memory, Request, Server, Summary, Workload};

/// One result: the requests, the server before and after the change, and both summaries.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub requests: Vec<Request>,
    pub before: (Server, Summary),
    pub after: (Server, Summary),
}

/// Drawn with the same seed every time, so the page's sentence is about one workload.
const SEED: u64 = 1;
/// The lesson's max_tokens: what a contiguous server reserves for every answer.
pub const MAX_TOKENS: usize = 512;
/// The longest prompt drawn in the paging and batching workloads.
const PROMPT_MAX: usize = 400;

fn base(kv_bytes_per_token: f64, positions: usize) -> Server {
    Server {
        memory_bytes: positions as f64 * kv_bytes_per_token,
        kv_bytes_per_token,
        batch_limit: 32,
        memory: Memory::Contiguous,
        continuous: true,
        prefill_chunk: None,
        context_parallel: None,
    }
}

/// A burst: `n` requests drawn with prompts of 50 to 400 tokens and answers of 10 to 300
/// under a max_tokens of 512, every one arrived at the start (the server is never idle).
pub fn burst(n: usize) -> Vec<Request> {
    let w = Workload { requests: n, arrivals_per_s: 1.0, prompt_tokens: (50, PROMPT_MAX), answer_tokens: (10, 300), max_tokens: MAX_TOKENS, seed: SEED };
    let mut requests = super::draw(&w).expect("the workload is within range");
    requests.iter_mut().for_each(|r| r.arrival_ms = 0.0);
    requests
}

fn compare(costs: &Costs, requests: Vec<Request>, before: Server, after: Server) -> Result<Comparison, String> {
    let b = simulate(costs, &requests, &before)?.summary();
    let a = simulate(costs, &requests, &after)?.summary();
    Ok(Comparison { requests, before: (before, b), after: (after, a) })
}

/// 1. Memory for 8 requests' prompt + max_tokens: contiguous reservation against blocks of
///    `block_size`, 60 requests at once.
pub fn paging(costs: &Costs, kv_bytes_per_token: f64, block_size: usize) -> Result<Comparison, String> {
    let server = base(kv_bytes_per_token, 8 * (PROMPT_MAX + MAX_TOKENS));
    let paged = Server { memory: Memory::Paged { block_size }, ..server.clone() };
    compare(costs, burst(60), server, paged)
}

/// The chunking workload's long prompt, and its number of requests.
pub const LONG_PROMPT: usize = 3000;
const REQUESTS: usize = 40;

/// 2. Users decoding 50-token answers, and long prompts arriving while they decode: 40
///    requests, in turn a user (20-token prompt) and a 3,000-token prompt (2-token answer),
///    a long one each time its whole prefill and 10 decode passes have taken, so that about
///    one decoding gap in 11 meets a long prefill. Whole prefill against chunks of `chunk`.
pub fn chunking(costs: &Costs, kv_bytes_per_token: f64, chunk: usize) -> Result<Comparison, String> {
    let prefill = super::cost::PassWork { prefill_tokens: LONG_PROMPT, prefill_positions: super::cost::attended(0, LONG_PROMPT), ..Default::default() };
    let every = costs.pass(prefill, None).0 + 10.0 * decode_pass_ms(costs, 4);
    let requests: Vec<Request> = (0..REQUESTS)
        .map(|i| {
            let (prompt_tokens, answer_tokens) = if i % 2 == 0 { (20, 50) } else { (LONG_PROMPT, 2) };
            Request { arrival_ms: i as f64 * every / 2.0, prompt_tokens, answer_tokens, max_tokens: 200 }
        })
        .collect();
    let server = base(kv_bytes_per_token, REQUESTS * (LONG_PROMPT + 200));
    let chunked = Server { prefill_chunk: Some(chunk), ..server.clone() };
    compare(costs, requests, server, chunked)
}

/// 3. A batch of at most 8, memory for 20 requests' prompt + max_tokens, 60 requests at once:
///    static batching against continuous.
pub fn batching(costs: &Costs, kv_bytes_per_token: f64) -> Result<Comparison, String> {
    let server = Server { batch_limit: 8, continuous: false, ..base(kv_bytes_per_token, 20 * (PROMPT_MAX + MAX_TOKENS)) };
    let continuous = Server { continuous: true, ..server.clone() };
    compare(costs, burst(60), server, continuous)
}

/// A decode pass of `batch` requests at position 100, the workloads' unit of time.
pub fn decode_pass_ms(costs: &Costs, batch: usize) -> f64 {
    let work = super::cost::PassWork { decode_tokens: batch, decode_positions: batch * 101, ..Default::default() };
    costs.pass(work, None).0
}

//! A simulated server (Lesson 2's serving simulator): requests arrive, wait for memory and a
//! place in the batch, have their prompts computed and their answers decoded, one forward
//! pass of the whole batch at a time. It is a discrete-event simulation, deterministic for a
//! seed, and nothing in it is measured except its two inputs from the device: the time of
//! one pass over n tokens and the KV bytes one position takes. Everything else (arrivals,
//! lengths, the memory budget, the scale factor on the KV bytes, the link between devices)
//! is the learner's assumption, which the page lists beside the results.
//!
//! What a pass costs: `MeasuredCosts::pass_ms` of its tokens, the decoding sequences' one
//! each plus the prompt tokens computed in it. Memory: a request is admitted only when the
//! KV cache of its whole prompt and answer fits in what the running requests leave free (it
//! reserves it all at once, as a server without paged memory must); the queue is first come,
//! first served, so a request that does not fit holds the ones behind it.

use crate::sampler::Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The device's measured costs, the simulation's only inputs from the real model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredCosts {
    /// (tokens in the pass, milliseconds), one entry per measured size, sizes ascending.
    pub pass_ms: Vec<(usize, f64)>,
    /// Bytes of keys and values one cached position takes (the real cache's).
    pub kv_bytes_per_position: f64,
}

impl MeasuredCosts {
    fn validate(&self) -> Result<(), String> {
        if self.pass_ms.is_empty() {
            return Err("No measured pass times: measure the passes first.".into());
        }
        let sizes_ascend = self.pass_ms.windows(2).all(|w| w[0].0 < w[1].0);
        if !sizes_ascend || self.pass_ms[0].0 == 0 {
            return Err("Measured pass sizes must be distinct, ascending and at least 1.".into());
        }
        if self.pass_ms.iter().any(|&(_, ms)| !(ms.is_finite() && ms > 0.0)) {
            return Err("Every measured pass time must be a positive number of milliseconds.".into());
        }
        if !(self.kv_bytes_per_position.is_finite() && self.kv_bytes_per_position > 0.0) {
            return Err("The KV bytes per position must be a positive number.".into());
        }
        Ok(())
    }

    /// The time of one pass over `n` tokens: the measured sizes joined by straight lines;
    /// below the smallest size, its time; above the largest, the largest's time per token
    /// times `n` (a pass that large was not measured, and is assumed to grow in proportion).
    pub fn pass_ms(&self, n: usize) -> f64 {
        let points = &self.pass_ms;
        let (first, last) = (points[0], points[points.len() - 1]);
        if n <= first.0 {
            return first.1;
        }
        if n >= last.0 {
            return last.1 * n as f64 / last.0 as f64;
        }
        let i = points.iter().position(|&(size, _)| size >= n).unwrap_or(points.len() - 1);
        let ((a, ta), (b, tb)) = (points[i - 1], points[i]);
        ta + (tb - ta) * (n - a) as f64 / (b - a) as f64
    }
}

/// Who arrives, when, with what: `requests` arrivals at random (exponential gaps, a mean
/// rate of `arrivals_per_s`), each with a prompt and an answer length drawn uniformly from
/// their inclusive ranges.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub requests: usize,
    pub arrivals_per_s: f64,
    pub prompt_tokens: (usize, usize),
    pub answer_tokens: (usize, usize),
    pub seed: u64,
}

/// Splitting a prompt's computation across `devices` (context parallelism): each computes
/// its share of the prompt's positions, and the keys and values of the other shares cross
/// a link of `link_gb_per_s` (the stated communication cost).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextParallel {
    pub devices: usize,
    pub link_gb_per_s: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    /// Memory for the KV cache, in bytes (the weights are not in it).
    pub memory_bytes: f64,
    /// The assumed KV bytes per position as a multiple of the measured ones (a larger model).
    pub kv_scale: f64,
    /// Most requests in one batch.
    pub batch_limit: usize,
    /// Admit waiting requests at every pass (continuous batching), or only when the whole
    /// batch has finished (static batching).
    pub continuous: bool,
    /// Most prompt tokens computed in one pass (prefill chunking); `None`: a prompt is
    /// computed whole in the pass after its admission.
    pub prefill_chunk: Option<usize>,
    pub context_parallel: Option<ContextParallel>,
}

/// The ranges the simulation accepts.
pub const MAX_REQUESTS: usize = 500;
pub const MAX_BATCH: usize = 32;
pub const MAX_PROMPT: usize = 8192;
pub const MAX_ANSWER: usize = 4096;
pub const MAX_DEVICES: usize = 64;

/// One request's life, in simulated milliseconds from the first possible arrival (0).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestOutcome {
    pub prompt: usize,
    pub answer: usize,
    pub arrival_ms: f64,
    pub admitted_ms: f64,
    pub first_token_ms: f64,
    pub finish_ms: f64,
    /// Prompt tokens computed and answer tokens generated for it (equal to `prompt` and
    /// `answer` once it has finished).
    pub prefilled: usize,
    pub generated: usize,
    /// It reached the head of the queue and did not fit in the free memory.
    pub waited_for_memory: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub requests: Vec<RequestOutcome>,
    pub passes: usize,
    /// The most memory reserved at once, in bytes.
    pub peak_memory_bytes: f64,
    /// Time spent sending keys and values between devices (context parallelism).
    pub communication_ms: f64,
    /// When the last pass ended.
    pub end_ms: f64,
}

/// What the page shows of an outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub ttft_mean_ms: f64,
    pub ttft_p95_ms: f64,
    /// Mean over requests of (answer − 1) / (finish − first token): the pace a user reads
    /// at once the answer has started; `None` when every answer is one token.
    pub per_user_tokens_per_s: Option<f64>,
    /// Every answer token over the time from the first arrival to the last pass.
    pub total_tokens_per_s: f64,
    pub waited_for_memory: usize,
    pub peak_memory_bytes: f64,
    pub communication_ms: f64,
    pub end_ms: f64,
}

impl Outcome {
    pub fn summary(&self) -> Summary {
        let mut ttft: Vec<f64> = self.requests.iter().map(|r| r.first_token_ms - r.arrival_ms).collect();
        ttft.sort_by(f64::total_cmp);
        let n = ttft.len() as f64;
        let paces: Vec<f64> = self
            .requests
            .iter()
            .filter(|r| r.answer > 1 && r.finish_ms > r.first_token_ms)
            .map(|r| (r.answer - 1) as f64 / ((r.finish_ms - r.first_token_ms) / 1000.0))
            .collect();
        let first_arrival = self.requests.iter().map(|r| r.arrival_ms).fold(f64::INFINITY, f64::min);
        let answered: usize = self.requests.iter().map(|r| r.generated).sum();
        Summary {
            ttft_mean_ms: ttft.iter().sum::<f64>() / n,
            ttft_p95_ms: ttft[((0.95 * n).ceil() as usize).clamp(1, ttft.len()) - 1],
            per_user_tokens_per_s: (!paces.is_empty()).then(|| paces.iter().sum::<f64>() / paces.len() as f64),
            total_tokens_per_s: answered as f64 / ((self.end_ms - first_arrival) / 1000.0),
            waited_for_memory: self.requests.iter().filter(|r| r.waited_for_memory).count(),
            peak_memory_bytes: self.peak_memory_bytes,
            communication_ms: self.communication_ms,
            end_ms: self.end_ms,
        }
    }
}

/// Why these inputs cannot be simulated, with the accepted range.
pub fn validate(costs: &MeasuredCosts, workload: &Workload, server: &Server) -> Result<(), String> {
    costs.validate()?;
    let range = |name: &str, (lo, hi): (usize, usize), max: usize| {
        if lo < 1 || hi > max || lo > hi {
            Err(format!("{name} is {lo} to {hi} tokens; it must lie within 1 to {max}, the smallest first."))
        } else {
            Ok(())
        }
    };
    if !(1..=MAX_REQUESTS).contains(&workload.requests) {
        return Err(format!("Requests: {}; it must be 1 to {MAX_REQUESTS}.", workload.requests));
    }
    if !(workload.arrivals_per_s > 0.0 && workload.arrivals_per_s <= 1000.0) {
        return Err(format!("Arrivals per second: {}; it must be above 0 and at most 1000.", workload.arrivals_per_s));
    }
    range("The prompt length", workload.prompt_tokens, MAX_PROMPT)?;
    range("The answer length", workload.answer_tokens, MAX_ANSWER)?;
    if !(1..=MAX_BATCH).contains(&server.batch_limit) {
        return Err(format!("Batch limit: {}; it must be 1 to {MAX_BATCH} (the measured pass sizes).", server.batch_limit));
    }
    if !(server.kv_scale >= 0.1 && server.kv_scale <= 100.0) {
        return Err(format!("KV scale factor: {}; it must be 0.1 to 100.", server.kv_scale));
    }
    if let Some(chunk) = server.prefill_chunk {
        if !(1..=MAX_PROMPT).contains(&chunk) {
            return Err(format!("Prefill chunk: {chunk} tokens; it must be 1 to {MAX_PROMPT}."));
        }
    }
    if let Some(cp) = server.context_parallel {
        if !(1..=MAX_DEVICES).contains(&cp.devices) {
            return Err(format!("Context parallel devices: {}; it must be 1 to {MAX_DEVICES}.", cp.devices));
        }
        if !(cp.link_gb_per_s > 0.0 && cp.link_gb_per_s <= 10_000.0) {
            return Err(format!("Link speed: {} GB/s; it must be above 0 and at most 10000.", cp.link_gb_per_s));
        }
    }
    let longest = workload.prompt_tokens.1 + workload.answer_tokens.1;
    let need = longest as f64 * costs.kv_bytes_per_position * server.kv_scale;
    if !(server.memory_bytes.is_finite() && server.memory_bytes >= need) {
        return Err(format!(
            "The memory budget ({:.1} MB) must hold the longest request's cache: {longest} positions take {:.1} MB.",
            server.memory_bytes / 1e6,
            need / 1e6
        ));
    }
    Ok(())
}

/// One request in the batch.
struct Running {
    index: usize,
    reserved: f64,
}

/// Runs the simulation to the end: every request arrives, is admitted and finishes.
pub fn simulate(costs: &MeasuredCosts, workload: &Workload, server: &Server) -> Result<Outcome, String> {
    validate(costs, workload, server)?;
    let mut requests = arrivals(workload);
    let bytes_per_position = costs.kv_bytes_per_position * server.kv_scale;
    let devices = server.context_parallel.map_or(1, |cp| cp.devices);
    let (mut now, mut used, mut peak, mut communication) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut arrived, mut passes) = (0, 0);
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut running: Vec<Running> = Vec::new();
    loop {
        while arrived < requests.len() && requests[arrived].arrival_ms <= now {
            queue.push_back(arrived);
            arrived += 1;
        }
        // Static batching admits only into an empty server; continuous, at every pass.
        if server.continuous || running.is_empty() {
            while running.len() < server.batch_limit {
                let Some(&index) = queue.front() else { break };
                let r = &mut requests[index];
                let reserved = (r.prompt + r.answer) as f64 * bytes_per_position;
                if used + reserved > server.memory_bytes {
                    r.waited_for_memory = true;
                    break;
                }
                queue.pop_front();
                r.admitted_ms = now;
                used += reserved;
                peak = peak.max(used);
                running.push(Running { index, reserved });
            }
        }
        if running.is_empty() {
            // Nothing to compute (and, since any one request fits, nothing waiting): the
            // server idles until the next arrival, or the simulation is over.
            match requests.get(arrived) {
                Some(next) => now = now.max(next.arrival_ms),
                None => break,
            }
            continue;
        }
        // One pass: one token for every decoding request, and prompt tokens, first come
        // first served, up to the chunk.
        let mut chunk_left = server.prefill_chunk.unwrap_or(usize::MAX);
        let mut plan = Vec::with_capacity(running.len());
        let (mut decoding, mut prefilling) = (0, 0);
        for seq in &running {
            let r = &requests[seq.index];
            let take = if r.prefilled < r.prompt {
                let take = (r.prompt - r.prefilled).min(chunk_left);
                chunk_left -= take;
                prefilling += take;
                take
            } else {
                decoding += 1;
                0
            };
            plan.push(take);
        }
        if decoding + prefilling == 0 {
            // Every prompt is waiting for chunk room that a finished one will free: cannot
            // happen with a chunk of at least one token, kept as a guard against a hang.
            return Err("The simulated server made no progress.".into());
        }
        let mut ms = costs.pass_ms(decoding + prefilling.div_ceil(devices));
        if devices > 1 && prefilling > 0 {
            // Ring attention's exchange: each device receives the other shares' keys and values.
            let link = server.context_parallel.map_or(1.0, |cp| cp.link_gb_per_s);
            let sent = prefilling as f64 * bytes_per_position * (devices - 1) as f64 / devices as f64;
            let comm = sent / (link * 1e9) * 1000.0;
            communication += comm;
            ms += comm;
        }
        now += ms;
        passes += 1;
        for (seq, take) in running.iter().zip(plan) {
            let r = &mut requests[seq.index];
            if take > 0 {
                r.prefilled += take;
                if r.prefilled == r.prompt {
                    // The pass that computes a prompt's last position gives the first token.
                    r.generated = 1;
                    r.first_token_ms = now;
                }
            } else if r.prefilled == r.prompt {
                r.generated += 1;
            }
            if r.prefilled == r.prompt && r.generated == r.answer {
                r.finish_ms = now;
            }
        }
        running.retain(|seq| {
            let r = &requests[seq.index];
            let done = r.prefilled == r.prompt && r.generated == r.answer;
            if done {
                used -= seq.reserved;
            }
            !done
        });
    }
    Ok(Outcome { requests, passes, peak_memory_bytes: peak, communication_ms: communication, end_ms: now })
}

/// The workload's requests, in order of arrival, nothing done yet.
fn arrivals(workload: &Workload) -> Vec<RequestOutcome> {
    let mut rng = Rng::new(workload.seed);
    let mut at = 0.0;
    let mut requests = Vec::with_capacity(workload.requests);
    for _ in 0..workload.requests {
        let prompt = uniform(&mut rng, workload.prompt_tokens);
        let answer = uniform(&mut rng, workload.answer_tokens);
        // Exponential gaps: arrivals at random, at the mean rate.
        at += -(1.0 - rng.next_f64()).ln() / workload.arrivals_per_s * 1000.0;
        requests.push(RequestOutcome {
            prompt,
            answer,
            arrival_ms: at,
            admitted_ms: f64::NAN,
            first_token_ms: f64::NAN,
            finish_ms: f64::NAN,
            prefilled: 0,
            generated: 0,
            waited_for_memory: false,
        });
    }
    requests
}

/// Uniform in `lo..=hi` (the range is at most a few thousand wide, so the modulo's bias is
/// below one part in 10^15).
fn uniform(rng: &mut Rng, (lo, hi): (usize, usize)) -> usize {
    lo + (rng.next_u64() % (hi - lo + 1) as u64) as usize
}

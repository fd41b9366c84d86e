//! The server's loop: admit, plan a pass, find it memory, run it, record the tokens.
//!
//! - The queue is first come, first served; a request that does not fit holds the ones
//!   behind it. Continuous batching admits before every pass, static only into an empty batch.
//! - A pass gives every decoding request one token and computes prompt tokens (a recomputed
//!   request's prompt is its prompt plus the tokens it had written), first admitted first, up
//!   to the prefill chunk. The pass that computes a prompt's last position gives its next token.
//! - Paged memory takes the blocks a pass will write before the pass; when none is free, the
//!   request admitted last gives its blocks back and goes to the head of the queue, to be
//!   recomputed (counted in its `preemptions`).

use super::cost::{attended, PassWork};
use super::memory::Pool;
use super::{validate, Costs, MemoryPoint, Outcome, Request, RequestOutcome, Server};
use std::collections::VecDeque;

/// A request in the batch.
struct Seq {
    index: usize,
    /// Positions in its cache.
    computed: usize,
    /// Positions it holds in memory.
    held: usize,
}

/// Runs the server until every request has its whole answer.
pub fn simulate(costs: &Costs, requests: &[Request], server: &Server) -> Result<Outcome, String> {
    validate(costs, requests, server)?;
    let mut out: Vec<RequestOutcome> = requests
        .iter()
        .map(|r| RequestOutcome {
            arrival_ms: r.arrival_ms,
            admitted_ms: f64::NAN,
            first_token_ms: f64::NAN,
            finish_ms: f64::NAN,
            token_ms: Vec::with_capacity(r.answer_tokens),
            preemptions: 0,
        })
        .collect();
    let mut pool = Pool::new(server.memory, server.memory_bytes, server.kv_bytes_per_token);
    // Tokens a request's cache must hold before it gives its next one: its prompt and every
    // token it has written (the last one written is fed in the next pass).
    let known = |i: usize, out: &[RequestOutcome]| requests[i].prompt_tokens + out[i].token_ms.len();
    let max_positions = |i: usize| requests[i].prompt_tokens + requests[i].max_tokens;
    let (mut now, mut exchange_ms, mut arrived) = (0.0f64, 0.0f64, 0usize);
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut running: Vec<Seq> = Vec::new();
    let mut timeline = Vec::new();
    loop {
        while arrived < requests.len() && requests[arrived].arrival_ms <= now {
            queue.push_back(arrived);
            arrived += 1;
        }
        if server.continuous || running.is_empty() {
            while running.len() < server.batch_limit {
                let Some(&index) = queue.front() else { break };
                let held = pool.holding(known(index, &out), max_positions(index));
                if !pool.take(held) {
                    break;
                }
                queue.pop_front();
                if out[index].admitted_ms.is_nan() {
                    out[index].admitted_ms = now;
                }
                running.push(Seq { index, computed: 0, held });
            }
        }
        if running.is_empty() {
            // Any request fits an empty server, so nothing waits: idle until the next arrival.
            match requests.get(arrived) {
                Some(next) => now = now.max(next.arrival_ms),
                None => break,
            }
            continue;
        }
        // Plan the pass, first admitted first, finding memory for what each will write.
        let mut chunk_left = server.prefill_chunk.unwrap_or(usize::MAX);
        let mut plan: Vec<usize> = Vec::with_capacity(running.len());
        let mut work = PassWork::default();
        while plan.len() < running.len() {
            let i = plan.len();
            let seq = &running[i];
            let pending = known(seq.index, &out) - seq.computed;
            let decoding = !out[seq.index].token_ms.is_empty() && pending == 1;
            let take = if decoding { 1 } else { pending.min(chunk_left) };
            let need = pool.holding(seq.computed + take, max_positions(seq.index));
            if need > seq.held && !pool.take(need - seq.held) {
                // Out of blocks: the request admitted last is preempted, this one if it is last.
                let victim = running.pop().expect("a running request");
                pool.give_back(victim.held);
                out[victim.index].preemptions += 1;
                queue.push_front(victim.index);
                continue;
            }
            let seq = &mut running[i];
            seq.held = seq.held.max(need);
            if take == 0 {
                plan.push(0);
                continue;
            }
            let positions = attended(seq.computed, take);
            if decoding {
                work.decode_tokens += 1;
                work.decode_positions += positions;
            } else {
                chunk_left -= take;
                work.prefill_tokens += take;
                work.prefill_positions += positions;
            }
            plan.push(take);
        }
        let (ms, exposed) = costs.pass(work, server.context_parallel);
        now += ms;
        exchange_ms += exposed;
        let mut used = 0;
        for (seq, take) in running.iter_mut().zip(&plan) {
            seq.computed += take;
            used += seq.computed;
            if *take > 0 && seq.computed == known(seq.index, &out) {
                let r = &mut out[seq.index];
                r.token_ms.push(now);
                if r.token_ms.len() == 1 {
                    r.first_token_ms = now;
                }
                if r.token_ms.len() == requests[seq.index].answer_tokens {
                    r.finish_ms = now;
                }
            }
        }
        timeline.push(MemoryPoint { ms: now, reserved_bytes: pool.reserved_bytes(), used_bytes: pool.bytes(used), batch: running.len() });
        running.retain(|seq| {
            let done = out[seq.index].token_ms.len() == requests[seq.index].answer_tokens;
            if done {
                pool.give_back(seq.held);
            }
            !done
        });
    }
    Ok(Outcome { requests: out, timeline, exchange_ms })
}

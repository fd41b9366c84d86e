//! The simulator on fixed costs (no timing): times worked out by hand, the invariants, and the
//! three results the lesson promises.

use super::*;

const MB: f64 = 1e6;

fn costs(pass_ms: f64, token_ms: f64, position_us: f64) -> Costs {
    Costs { pass_ms, token_ms, position_us }
}

fn server(memory_bytes: f64, memory: Memory) -> Server {
    Server {
        memory_bytes,
        kv_bytes_per_token: 1.0,
        batch_limit: 32,
        memory,
        continuous: true,
        prefill_chunk: None,
        context_parallel: None,
    }
}

fn request(arrival_ms: f64, prompt_tokens: usize, answer_tokens: usize, max_tokens: usize) -> Request {
    Request { arrival_ms, prompt_tokens, answer_tokens, max_tokens }
}

/// Every invariant a run must keep, checked on its outcome.
fn check(requests: &[Request], server: &Server, outcome: &Outcome) {
    for p in &outcome.timeline {
        assert!(p.used_bytes <= p.reserved_bytes && p.reserved_bytes <= server.memory_bytes, "{p:?}");
        assert!(p.batch <= server.batch_limit);
    }
    for (r, o) in requests.iter().zip(&outcome.requests) {
        assert_eq!(o.token_ms.len(), r.answer_tokens, "every request finishes with its whole answer");
        assert!(o.token_ms.windows(2).all(|w| w[0] < w[1]), "token times increase: {:?}", o.token_ms);
        assert!(r.arrival_ms <= o.admitted_ms && o.admitted_ms < o.first_token_ms);
        assert_eq!((o.first_token_ms, o.finish_ms), (o.token_ms[0], *o.token_ms.last().unwrap()));
    }
}

#[test]
fn one_request_alone_costs_what_its_passes_cost() {
    // Pass 1: the 10-token prompt attends to 1 + 2 + … + 10 = 55 positions: 10 + 10 × 1 + 55 × 1.
    // Then decode at positions 11 and 12: 10 + 1 + 11, 10 + 1 + 12.
    let requests = [request(0.0, 10, 3, 5)];
    let outcome = simulate(&costs(10.0, 1.0, 1000.0), &requests, &server(MB, Memory::Contiguous)).unwrap();
    assert_eq!(outcome.requests[0].token_ms, vec![75.0, 97.0, 120.0]);
    check(&requests, &server(MB, Memory::Contiguous), &outcome);
}

#[test]
fn out_of_blocks_the_last_admitted_is_preempted_and_recomputed() {
    // Two blocks of 4 positions. Both prompts (3 tokens) fit a block each; at A's fifth
    // position there is no third block, so B (admitted last) gives its block back. When A
    // finishes, B recomputes its prompt and its two tokens (a 5-token pass) and goes on.
    let requests = [request(0.0, 3, 4, 4), request(0.0, 3, 4, 4)];
    let paged = server(8.0, Memory::Paged { block_size: 4 });
    let outcome = simulate(&costs(0.0, 1.0, 0.0), &requests, &paged).unwrap();
    assert_eq!(outcome.requests[0].token_ms, vec![6.0, 8.0, 9.0, 10.0]);
    assert_eq!(outcome.requests[1].token_ms, vec![6.0, 8.0, 15.0, 16.0]);
    assert_eq!((outcome.requests[0].preemptions, outcome.requests[1].preemptions), (0, 1));
    assert_eq!(outcome.summary().preemptions, 1);
    check(&requests, &paged, &outcome);
}

#[test]
fn percentiles_are_nearest_rank() {
    let twenty: Vec<f64> = (1..=20).rev().map(f64::from).collect();
    assert_eq!(nearest_rank(&twenty, 95.0), 19.0);
    assert_eq!(nearest_rank(&twenty, 100.0), 20.0);
    assert_eq!(nearest_rank(&[4.0, 1.0, 3.0, 2.0], 50.0), 2.0);
    assert_eq!(nearest_rank(&[7.0], 95.0), 7.0);
    assert_eq!(nearest_rank(&[], 50.0), 0.0);
}

fn drawn(seed: u64) -> Vec<Request> {
    draw(&Workload { requests: 60, arrivals_per_s: 20.0, prompt_tokens: (50, 400), answer_tokens: (10, 300), max_tokens: 512, seed }).unwrap()
}

#[test]
fn every_mode_keeps_the_invariants() {
    let requests = drawn(3);
    let tight = 6.0 * (400.0 + 512.0);
    let cp = Some(ContextParallel { devices: 4, link_ms: 2.0, overlap: false });
    for memory in [Memory::Contiguous, Memory::Paged { block_size: 16 }, Memory::Paged { block_size: 1 }] {
        for (continuous, chunk, cp) in [(true, None, None), (false, None, None), (true, Some(64), None), (true, Some(64), cp)] {
            let s = Server { continuous, prefill_chunk: chunk, context_parallel: cp, ..server(tight, memory) };
            let outcome = simulate(&costs(5.0, 0.2, 1.0), &requests, &s).unwrap();
            check(&requests, &s, &outcome);
        }
    }
    // Paged memory this tight runs out of blocks as answers grow.
    let s = server(tight / 2.0, Memory::Paged { block_size: 16 });
    let outcome = simulate(&costs(5.0, 0.2, 1.0), &requests, &s).unwrap();
    check(&requests, &s, &outcome);
    assert!(outcome.summary().preemptions > 0);
}

#[test]
fn a_seed_repeats_a_run_and_another_seed_does_not() {
    let s = server(20_000.0, Memory::Paged { block_size: 16 });
    let run = |seed| simulate(&costs(5.0, 0.2, 1.0), &drawn(seed), &s).unwrap();
    assert_eq!(run(7), run(7));
    assert_ne!(run(7).summary(), run(8).summary());
}

/// Costs of different shapes: a large fixed cost (a GPU reading its weights), a CPU's larger
/// cost per token, and attention as dear as a token's weight arithmetic at 2,000 positions
/// (four times the lesson's figure, about twice at 8,192).
const SHAPES: [Costs; 3] = [
    Costs { pass_ms: 20.0, token_ms: 0.2, position_us: 1.0 },
    Costs { pass_ms: 9.0, token_ms: 1.0, position_us: 0.05 },
    Costs { pass_ms: 5.0, token_ms: 0.1, position_us: 0.05 },
];

#[test]
fn paging_sustains_a_larger_batch_and_more_throughput_when_answers_are_shorter_than_max() {
    for costs in SHAPES {
        let c = findings::paging(&costs, 1000.0, 16).unwrap();
        let ((_, contiguous), (_, paged)) = (c.before, c.after);
        assert!(paged.peak_batch > contiguous.peak_batch, "{costs:?} {paged:?} {contiguous:?}");
        assert!(paged.tokens_per_s > contiguous.tokens_per_s, "{costs:?} {paged:?} {contiguous:?}");
        // Contiguous memory reserves far more than it fills (vLLM's §3 measured 20 to 38 % used).
        assert!(contiguous.peak_used_bytes < 0.6 * contiguous.peak_reserved_bytes, "{contiguous:?}");
    }
}

#[test]
fn chunked_prefill_lowers_the_decode_tail_at_a_cost_to_time_to_first_token() {
    for costs in SHAPES {
        let c = findings::chunking(&costs, 1000.0, 256).unwrap();
        let ((_, whole), (_, chunked)) = (c.before, c.after);
        assert!(chunked.gap_p95_ms < whole.gap_p95_ms, "{costs:?} {chunked:?} {whole:?}");
        assert!(chunked.gap_max_ms < whole.gap_max_ms, "{costs:?} {chunked:?} {whole:?}");
        // The cost: a long prompt takes several passes, each with the decoders' tokens in it.
        assert!(chunked.ttft_p95_ms > whole.ttft_p95_ms, "{costs:?} {chunked:?} {whole:?}");
    }
}

#[test]
fn continuous_batching_beats_static_at_equal_memory() {
    for costs in SHAPES {
        let c = findings::batching(&costs, 1000.0).unwrap();
        assert_eq!(c.before.0.memory_bytes, c.after.0.memory_bytes);
        let ((_, fixed), (_, continuous)) = (c.before, c.after);
        assert!(continuous.tokens_per_s > fixed.tokens_per_s, "{costs:?} {continuous:?} {fixed:?}");
    }
}

#[test]
fn context_parallel_prefill_time_falls_with_the_devices_and_the_exchange_is_a_bound() {
    // One long prompt alone: its prefill over 4 devices with a free link takes a quarter of
    // the compute; the serialised exchange adds to it; overlapped, only what exceeds compute.
    let requests = [request(0.0, 4000, 1, 1)];
    let run = |cp| {
        let s = Server { context_parallel: cp, ..server(MB, Memory::Contiguous) };
        simulate(&costs(0.0, 0.2, 0.5), &requests, &s).unwrap().requests[0].first_token_ms
    };
    let one = run(None);
    assert_eq!(run(Some(ContextParallel { devices: 1, link_ms: 100.0, overlap: false })), one, "one device is no split");
    let free = run(Some(ContextParallel { devices: 4, link_ms: 0.0, overlap: false }));
    assert!((free - one / 4.0).abs() < 1e-9, "{free} {one}");
    let serial = run(Some(ContextParallel { devices: 4, link_ms: 100.0, overlap: false }));
    let overlapped = run(Some(ContextParallel { devices: 4, link_ms: 100.0, overlap: true }));
    // 3 ring steps of 1,000 positions at 100 ms per 1,000: 300 ms.
    assert!((serial - free - 300.0).abs() < 1e-9, "{serial} {free}");
    assert!((overlapped - free.max(300.0)).abs() < 1e-9, "{overlapped} {free}");
}

#[test]
fn bad_inputs_are_refused_with_their_range() {
    let s = server(MB, Memory::Contiguous);
    let c = costs(1.0, 1.0, 1.0);
    let refused = |requests: &[Request], s: &Server| simulate(&c, requests, s).unwrap_err();
    assert!(refused(&[request(0.0, 10, 6, 5)], &s).contains("answer_tokens 6 must be 1 to its max_tokens, 5"));
    assert!(refused(&[request(5.0, 10, 1, 5), request(1.0, 10, 1, 5)], &s).contains("Request 1: arrival_ms"));
    assert!(refused(&[request(0.0, 10, 1, 5)], &Server { memory_bytes: 10.0, ..s.clone() }).contains("15 positions"));
    let paged = Server { memory: Memory::Paged { block_size: 0 }, ..s.clone() };
    assert!(refused(&[request(0.0, 10, 1, 5)], &paged).contains("1 to 1024"));
    assert!(simulate(&costs(-1.0, 1.0, 1.0), &[request(0.0, 1, 1, 1)], &s).unwrap_err().contains("0 to 100000"));
}

#[test]
fn fitting_recovers_the_costs_that_made_the_passes() {
    let truth = costs(12.0, 0.75, 2.0);
    // Passes timed as the cost model says they take: at positions 128 and 1024 for the slope.
    let at = |position: usize, n: usize| {
        truth.pass(cost::PassWork { prefill_tokens: n, prefill_positions: cost::attended(position, n), ..Default::default() }, None).0
    };
    let slope = position_slope_us(16, (128, at(128, 16)), (1024, at(1024, 16))).unwrap();
    assert!((slope - 2.0).abs() < 1e-9, "{slope}");
    let passes: Vec<(usize, f64)> = [1, 2, 4, 8, 16, 32].iter().map(|&n| (n, at(128, n))).collect();
    let fitted = fit(128, &passes, slope).unwrap();
    assert!((fitted.pass_ms - 12.0).abs() < 1e-9 && (fitted.token_ms - 0.75).abs() < 1e-9, "{fitted:?}");
    assert!(position_slope_us(16, (128, 5.0), (1024, 4.0)).unwrap_err().contains("quieter machine"));
}

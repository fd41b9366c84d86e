//! The serving simulator's invariants, on costs shaped like a real device's (a pass's time
//! grows slower than its tokens up to 32, as this model's does on a CPU): every request
//! finishes, no token is lost or made up, memory never exceeds the budget, continuous
//! batching never serves fewer tokens per second than static batching on the same arrivals,
//! context parallelism over one device is no context parallelism, and a seed repeats a run.

use engine::serving_sim::{simulate, ContextParallel, MeasuredCosts, Outcome, Server, Workload};

/// About what SmolLM2-135M's passes take natively: 8 ms for one token, 30 ms for 32.
fn costs() -> MeasuredCosts {
    MeasuredCosts {
        pass_ms: vec![(1, 8.0), (2, 8.6), (4, 9.5), (8, 12.0), (16, 18.0), (32, 30.0)],
        kv_bytes_per_position: 46_080.0,
    }
}

fn workload(seed: u64) -> Workload {
    Workload { requests: 60, arrivals_per_s: 20.0, prompt_tokens: (20, 400), answer_tokens: (5, 120), seed }
}

fn server() -> Server {
    Server {
        memory_bytes: 100e6,
        kv_scale: 1.0,
        batch_limit: 8,
        continuous: true,
        prefill_chunk: None,
        context_parallel: None,
    }
}

/// Servers that differ in every setting the page offers.
fn servers() -> Vec<Server> {
    let mut all = Vec::new();
    for continuous in [false, true] {
        for chunk in [None, Some(64)] {
            for memory in [30e6, 100e6] {
                for cp in [None, Some(ContextParallel { devices: 4, link_gb_per_s: 50.0 })] {
                    all.push(Server { continuous, prefill_chunk: chunk, memory_bytes: memory, context_parallel: cp, ..server() });
                }
            }
        }
    }
    all
}

fn run(w: &Workload, s: &Server) -> Outcome {
    simulate(&costs(), w, s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

#[test]
fn every_request_finishes_with_its_tokens_and_memory_stays_in_the_budget() {
    for seed in 0..5 {
        let w = workload(seed);
        for s in servers() {
            let o = run(&w, &s);
            assert_eq!(o.requests.len(), w.requests);
            let bytes = |r: &engine::serving_sim::RequestOutcome| (r.prompt + r.answer) as f64 * costs().kv_bytes_per_position;
            for r in &o.requests {
                assert_eq!((r.prefilled, r.generated), (r.prompt, r.answer), "{s:?}: {r:?}");
                assert!(r.arrival_ms <= r.admitted_ms && r.admitted_ms < r.first_token_ms && r.first_token_ms <= r.finish_ms, "{r:?}");
                assert!((w.prompt_tokens.0..=w.prompt_tokens.1).contains(&r.prompt));
                assert!((w.answer_tokens.0..=w.answer_tokens.1).contains(&r.answer));
            }
            // Tokens conserved: every answer token came from one pass, so the summary's total
            // is the answers' lengths over the run's span.
            let answers: usize = o.requests.iter().map(|r| r.answer).sum();
            let span_s = (o.end_ms - o.requests[0].arrival_ms) / 1000.0;
            assert!((o.summary().total_tokens_per_s - answers as f64 / span_s).abs() < 1e-9);
            assert!(o.peak_memory_bytes <= s.memory_bytes, "{s:?}: peak {}", o.peak_memory_bytes);
            // Requests that overlap in time were all reserved at once: their sum is a lower
            // bound of the peak, checked at every admission.
            for a in &o.requests {
                let held: f64 = o
                    .requests
                    .iter()
                    .filter(|b| b.admitted_ms <= a.admitted_ms && b.finish_ms > a.admitted_ms)
                    .map(bytes)
                    .sum();
                assert!(held <= s.memory_bytes + 1e-6, "{s:?}: {held} bytes held at {}", a.admitted_ms);
            }
            if s.context_parallel.is_none() {
                assert_eq!(o.communication_ms, 0.0);
            }
        }
    }
}

#[test]
fn a_small_budget_makes_requests_wait_for_memory() {
    let w = workload(1);
    let tight = run(&w, &Server { memory_bytes: 30e6, ..server() });
    let roomy = run(&w, &Server { memory_bytes: 1e9, ..server() });
    assert!(tight.summary().waited_for_memory > 0);
    assert_eq!(roomy.summary().waited_for_memory, 0);
    assert!(tight.summary().ttft_mean_ms > roomy.summary().ttft_mean_ms);
}

#[test]
fn continuous_batching_never_serves_fewer_tokens_per_second_than_static() {
    for seed in 0..10 {
        let w = workload(seed);
        for s in servers().into_iter().filter(|s| s.continuous) {
            let continuous = run(&w, &s).summary();
            let fixed = run(&w, &Server { continuous: false, ..s.clone() }).summary();
            assert!(
                continuous.total_tokens_per_s >= fixed.total_tokens_per_s - 1e-9,
                "seed {seed} {s:?}: continuous {} < static {}",
                continuous.total_tokens_per_s,
                fixed.total_tokens_per_s
            );
        }
    }
}

#[test]
fn context_parallel_over_one_device_is_none_and_over_more_shortens_a_long_prefill() {
    for seed in 0..3 {
        let w = workload(seed);
        for s in servers().into_iter().filter(|s| s.context_parallel.is_none()) {
            let one = Server { context_parallel: Some(ContextParallel { devices: 1, link_gb_per_s: 1.0 }), ..s.clone() };
            assert_eq!(run(&w, &s), run(&w, &one));
        }
    }
    let long = Workload { requests: 1, arrivals_per_s: 1.0, prompt_tokens: (4000, 4000), answer_tokens: (1, 1), seed: 0 };
    let roomy = Server { memory_bytes: 1e9, ..server() };
    let alone = run(&long, &roomy);
    let split = run(&long, &Server { context_parallel: Some(ContextParallel { devices: 4, link_gb_per_s: 50.0 }), ..roomy });
    let ttft = |o: &Outcome| o.summary().ttft_mean_ms;
    assert!(ttft(&split) < ttft(&alone) / 2.0, "{} against {}", ttft(&split), ttft(&alone));
    // The exchange: 3/4 of 4000 positions' keys and values over 50 GB/s.
    let expected = 4000.0 * 46_080.0 * 0.75 / 50e9 * 1000.0;
    assert!((split.communication_ms - expected).abs() < 1e-9);
}

#[test]
fn a_seed_repeats_a_run_and_another_seed_changes_it() {
    for s in servers() {
        assert_eq!(run(&workload(3), &s), run(&workload(3), &s));
        assert_ne!(run(&workload(3), &s), run(&workload(4), &s));
    }
}

#[test]
fn prefill_chunking_keeps_decoding_going_beside_long_prompts() {
    // With whole prompts, a decoding user waits for every newcomer's prompt in the same
    // pass; with chunks, the worst pass is bounded, so the answers' pace evens out.
    let w = Workload { requests: 40, arrivals_per_s: 10.0, prompt_tokens: (1000, 3000), answer_tokens: (50, 100), seed: 2 };
    let roomy = Server { memory_bytes: 1e9, ..server() };
    let whole = run(&w, &roomy).summary();
    let chunked = run(&w, &Server { prefill_chunk: Some(32), ..roomy }).summary();
    assert!(chunked.per_user_tokens_per_s > whole.per_user_tokens_per_s, "{chunked:?} against {whole:?}");
}

#[test]
fn pass_times_follow_the_measured_points() {
    let c = costs();
    assert_eq!(c.pass_ms(1), 8.0);
    assert_eq!(c.pass_ms(16), 18.0);
    assert!((c.pass_ms(24) - 24.0).abs() < 1e-12);
    assert!((c.pass_ms(64) - 60.0).abs() < 1e-12);
}

#[test]
fn inputs_out_of_range_are_refused_with_their_range() {
    let refused = |w: Workload, s: Server| simulate(&costs(), &w, &s).unwrap_err();
    assert!(refused(Workload { requests: 0, ..workload(0) }, server()).contains("1 to 500"));
    assert!(refused(workload(0), Server { batch_limit: 33, ..server() }).contains("1 to 32"));
    assert!(refused(Workload { prompt_tokens: (10, 5), ..workload(0) }, server()).contains("smallest first"));
    assert!(refused(workload(0), Server { memory_bytes: 1e6, ..server() }).contains("longest request"));
    assert!(refused(workload(0), Server { kv_scale: 0.0, ..server() }).contains("0.1 to 100"));
    let cp = |devices| Some(ContextParallel { devices, link_gb_per_s: 10.0 });
    assert!(refused(workload(0), Server { context_parallel: cp(0), ..server() }).contains("1 to 64"));
    let no_passes = MeasuredCosts { pass_ms: vec![], ..costs() };
    assert!(simulate(&no_passes, &workload(0), &server()).unwrap_err().contains("measure"));
    let unordered = MeasuredCosts { pass_ms: vec![(4, 9.0), (2, 8.0)], ..costs() };
    assert!(simulate(&unordered, &workload(0), &server()).is_err());
}

//! `playground simulate-serving` on given costs (no model, no timing): its summary follows
//! from the per-request times it prints, a seed repeats a run, bad input is refused in one line.

mod common;

use serde_json::Value;

/// `playground simulate-serving` with `args`.
fn command<'a>(args: &[&'a str]) -> Vec<&'a str> {
    [&["simulate-serving"], args].concat()
}

fn json(args: &[&str]) -> Value {
    common::json(&command(args))
}

fn fails_with(args: &[&str], message: &str) {
    common::fails_with(&command(args), message)
}

/// A file in the temporary directory, unique to this test.
fn workload_file(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("simulate-serving-{}-{name}.json", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The nearest-rank percentile, written again here so that the test does not trust the engine's.
fn rank(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((p / 100.0 * values.len() as f64).ceil() as usize).max(1) - 1]
}

const COSTS: [&str; 10] = ["--pass-ms", "10", "--token-ms", "0.5", "--position-us", "2", "--kv-bytes-per-token", "1000", "--memory-mb", "1"];

#[test]
fn the_summary_follows_from_the_requests_it_prints() {
    let file = workload_file(
        "given",
        r#"[{"arrival_ms": 0, "prompt_tokens": 200, "answer_tokens": 30, "max_tokens": 400},
            {"arrival_ms": 5, "prompt_tokens": 50, "answer_tokens": 120, "max_tokens": 400},
            {"arrival_ms": 40, "prompt_tokens": 600, "answer_tokens": 10, "max_tokens": 100},
            {"arrival_ms": 90, "prompt_tokens": 30, "answer_tokens": 60, "max_tokens": 400}]"#,
    );
    for mode in [&["--mode", "contiguous"][..], &["--mode", "paged", "--block-size", "16"], &["--chunk", "64", "--batching", "static"]] {
        let mut args = vec!["--workload", &file];
        args.extend(COSTS);
        args.extend(mode);
        let out = json(&args);
        let requests = out["requests"].as_array().unwrap();
        assert_eq!(requests.len(), 4);
        let (mut ttft, mut gaps, mut tokens, mut preemptions) = (vec![], vec![], 0, 0);
        let (mut first, mut last) = (f64::INFINITY, 0.0f64);
        for r in requests {
            let times: Vec<f64> = r["token_ms"].as_array().unwrap().iter().map(|t| t.as_f64().unwrap()).collect();
            assert_eq!(times.len() as u64, r["answer_tokens"].as_u64().unwrap(), "{mode:?}: the whole answer");
            assert_eq!(times[0], r["first_token_ms"].as_f64().unwrap());
            assert_eq!(*times.last().unwrap(), r["finish_ms"].as_f64().unwrap());
            let arrival = r["arrival_ms"].as_f64().unwrap();
            assert!(arrival <= r["admitted_ms"].as_f64().unwrap());
            ttft.push(times[0] - arrival);
            gaps.extend(times.windows(2).map(|w| w[1] - w[0]));
            tokens += times.len();
            preemptions += r["preemptions"].as_u64().unwrap();
            first = first.min(arrival);
            last = last.max(*times.last().unwrap());
        }
        let s = &out["summary"];
        let close = |key: &str, want: f64| {
            let got = s[key].as_f64().unwrap();
            assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{mode:?} {key}: {got} against {want}");
        };
        close("ttft_p50_ms", rank(&mut ttft, 50.0));
        close("ttft_p95_ms", rank(&mut ttft, 95.0));
        close("gap_p50_ms", rank(&mut gaps, 50.0));
        close("gap_p95_ms", rank(&mut gaps, 95.0));
        close("gap_max_ms", rank(&mut gaps, 100.0));
        close("tokens_per_s", tokens as f64 / ((last - first) / 1000.0));
        assert_eq!(s["preemptions"].as_u64().unwrap(), preemptions);
        assert!(s["peak_used_bytes"].as_f64().unwrap() <= s["peak_reserved_bytes"].as_f64().unwrap());
        assert!(s["peak_reserved_bytes"].as_f64().unwrap() <= 1e6);
        assert_eq!(out["inputs"]["costs"]["token_ms"], 0.5);
    }
}

#[test]
fn a_seed_repeats_a_drawn_run() {
    let drawn = |seed: &str| {
        let mut args = vec!["--requests", "30", "--rate", "5", "--seed", seed, "--max-tokens", "300", "--answer-max", "200", "--prompt-max", "500"];
        args.extend(COSTS);
        json(&args)
    };
    assert_eq!(drawn("4"), drawn("4"));
    assert_ne!(drawn("4")["requests"], drawn("5")["requests"]);
}

#[test]
fn bad_input_is_refused_with_the_field_or_the_range() {
    let missing = workload_file("missing", r#"[{"arrival_ms": 0, "prompt_tokens": 10, "answer_tokens": 5}]"#);
    let with = |extra: &[&'static str]| {
        let mut args: Vec<&str> = COSTS.to_vec();
        args.extend(extra);
        args
    };
    let mut args = with(&[]);
    args.extend(["--workload", &missing]);
    fails_with(&args, "missing field `max_tokens`");
    let long = workload_file("long", r#"[{"arrival_ms": 0, "prompt_tokens": 10, "answer_tokens": 50, "max_tokens": 20}]"#);
    let mut args = with(&[]);
    args.extend(["--workload", &long]);
    fails_with(&args, "answer_tokens 50 must be 1 to its max_tokens, 20");
    fails_with(&with(&["--batch-limit", "0"]), "it must be 1 to 256");
    fails_with(&with(&["--mode", "paged", "--block-size", "4096"]), "it must be 1 to 1024");
    fails_with(&with(&["--block-size", "16"]), "--block-size applies to --mode paged only");
    fails_with(&with(&["--requests", "0"]), "Requests 0: it must be 1 to 2000");
    fails_with(&["--token-ms", "1", "--kv-bytes-per-token", "1"], "--position-us");
}

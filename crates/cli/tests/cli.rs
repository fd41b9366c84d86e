//! The CLI contract: JSON on stdout, a one-line error and a non-zero exit on bad input,
//! never a panic trace.

mod common;

use common::{fails_with, json, run};
use serde_json::Value;
use std::process::Command;
use std::sync::LazyLock;

/// The model in the checkout being tested, found when the test runs (`cargo test` sets
/// CARGO_MANIFEST_DIR then): a shared build directory may hold a test binary compiled in
/// another checkout, whose compile-time path would point there.
fn model() -> &'static str {
    static PATH: LazyLock<String> = LazyLock::new(|| {
        let package = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
        format!("{package}/../../public/models/SmolLM2-135M-Instruct.Q4_1.gguf")
    });
    &PATH
}

#[test]
fn tokenize_gives_ids_without_bos() {
    assert_eq!(
        json(&["tokenize", "--model", model(), "--text", "Hello world! 123"]),
        serde_json::json!([19556, 905, 17, 216, 33, 34, 35])
    );
}

#[test]
fn logits_are_sorted_and_labelled() {
    let v = json(&["logits", "--model", model(), "--ids", "1,9690,198", "--top", "5"]);
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 5);
    let l: Vec<f64> = rows.iter().map(|r| r["logit"].as_f64().unwrap()).collect();
    assert!(l.windows(2).all(|w| w[0] >= w[1]));
    assert!(rows[0]["token"].is_string() && rows[0]["id"].is_u64());
}

#[test]
fn generate_reports_text_and_timings() {
    let v = json(&[
        "generate",
        "--model",
        model(),
        "--prompt",
        "What is the capital of France?",
        "--temperature",
        "0",
        "--max-tokens",
        "12",
    ]);
    assert!(v["text"].as_str().unwrap().contains("Paris"));
    for k in ["tokens", "prompt_tokens", "ttft_ms", "prefill_tokens_per_s", "decode_tokens_per_s"] {
        assert!(v[k].as_f64().unwrap() > 0.0, "{k}");
    }
}

#[test]
fn a_system_prompt_of_ones_own_replaces_the_default() {
    let generate = |extra: &[&str]| {
        let mut args =
            vec!["generate", "--model", model(), "--prompt", "Hi", "--temperature", "0", "--max-tokens", "8"];
        args.extend(extra);
        json(&args)
    };
    let default = generate(&[]);
    let written = generate(&["--system", engine::chat::DEFAULT_SYSTEM_PROMPT]);
    assert_eq!((&written["token_ids"], &written["prompt_tokens"]), (&default["token_ids"], &default["prompt_tokens"]));
    let none = generate(&["--no-system-prompt"]);
    assert_eq!(generate(&["--system", ""])["prompt_tokens"], none["prompt_tokens"], "an empty one is none");
    let own = generate(&["--system", "Answer in French."]);
    assert_ne!(own["prompt_tokens"], default["prompt_tokens"]);
    fails_with(&["generate", "--model", model(), "--prompt", "Hi", "--system", "x", "--raw"], "cannot be used with");
    fails_with(
        &["generate", "--model", model(), "--prompt", "Hi", "--system", "x", "--no-system-prompt"],
        "cannot be used with",
    );
}

#[test]
fn speculative_and_follow_up_report_their_figures() {
    let v = json(&[
        "generate",
        "--model",
        model(),
        "--prompt",
        "Repeat exactly: one two three one two three",
        "--temperature",
        "0",
        "--max-tokens",
        "12",
        "--speculative",
        "prompt-lookup",
        "--draft-len",
        "3",
        "--follow-up",
        "Again.",
    ]);
    assert!(v["drafted"].as_u64().unwrap() >= v["accepted"].as_u64().unwrap());
    let rate = v["acceptance_rate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&rate));
    let f = &v["follow_up"];
    assert!(f["kv_reused"].as_u64().unwrap() > v["prompt_tokens"].as_u64().unwrap() - 1);
    assert_eq!(
        f["kv_reused"].as_u64().unwrap() + f["kv_computed"].as_u64().unwrap(),
        f["prompt_tokens"].as_u64().unwrap()
    );
}

#[test]
fn reason_with_limit_zero_only_reports_the_task_set() {
    let v = json(&["reason", "--model", "/nonexistent", "--strategy", "direct", "--limit", "0"]);
    assert!(v["tasks_available"].as_u64().unwrap() >= 120);
    assert_eq!(v["n"], 0);
}

#[test]
fn bad_input_gets_a_clear_message() {
    fails_with(&["generate", "--model", "/nonexistent.gguf", "--prompt", "hi"], "cannot read the model file");
    fails_with(&["generate", "--model", model(), "--prompt", "   "], "the prompt is empty");
    fails_with(&["generate", "--model", model(), "--prompt", "hi", "--temperature", "NaN"], "temperature");
    fails_with(&["generate", "--model", model(), "--prompt", "hi", "--temperature", "-1"], "temperature");
    fails_with(&["generate", "--model", model(), "--prompt", "hi", "--top-p", "1.5"], "top_p");
    fails_with(&["generate", "--model", model(), "--prompt", "hi", "--top-k", "-3"], "--top-k");
    fails_with(&["generate", "--model", model(), "--prompt", "hi", "--speculative", "magic"], "--speculative");
    fails_with(&["logits", "--model", model(), "--ids", "1,x"], "not a token id");
    fails_with(&["logits", "--model", model(), "--ids", "99999999"], "outside the vocabulary");
    fails_with(&["reason", "--strategy", "guess"], "--strategy");
    fails_with(&["frobnicate"], "unrecognized subcommand 'frobnicate'");
    fails_with(&["generate", "--bogus", "1"], "unexpected argument '--bogus'");
    fails_with(&["generate", "--model", model()], "--prompt");
    let long = "word ".repeat(9000);
    fails_with(&["generate", "--model", model(), "--prompt", &long], "context holds");
    let truncated = std::env::temp_dir().join("playground-truncated.gguf");
    std::fs::write(&truncated, &std::fs::read(model()).unwrap()[..1_000_000]).unwrap();
    fails_with(&["generate", "--model", truncated.to_str().unwrap(), "--prompt", "hi"], "truncated");
}

#[test]
fn every_command_has_help() {
    for cmd in [
        "tokenize", "logits", "generate", "bench", "reference", "reason", "attention", "lens", "bench-pass", "check",
        "depth",
    ] {
        let (ok, out, _) = run(&[cmd, "--help"]);
        assert!(ok, "{cmd} --help");
        assert!(out.contains("Usage: playground") && out.contains("--model"), "{cmd}: {out}");
    }
    let (ok, out, _) = run(&["--help"]);
    assert!(ok && out.contains("generate") && out.contains("reason"), "{out}");
}

#[test]
fn a_typo_gets_a_suggestion_on_one_line() {
    fails_with(&["genrate", "--prompt", "hi"], "similar subcommand exists: 'generate'");
    fails_with(&["generate", "--prompt", "hi", "--temprature", "0"], "'--temperature'");
    fails_with(&["reason", "--strategy", "cots"], "[possible values: direct, cot, self-consistency, hidden]");
}

#[test]
fn no_command_lists_the_commands_and_fails() {
    let (ok, _, err) = run(&[]);
    assert!(!ok);
    assert!(err.contains("Commands:") && err.contains("generate"), "{err}");
}

// Lesson 2's views into the forward pass.

#[test]
fn attention_rows_are_causal_distributions() {
    let head = |h: &str| {
        json(&[
            "attention",
            "--model",
            model(),
            "--prompt",
            "The cat sat on the mat.",
            "--raw",
            "--layer",
            "30",
            "--head",
            h,
        ])
    };
    let v = head("9");
    let tokens = v["tokens"].as_array().unwrap();
    let rows = v["weights"].as_array().unwrap();
    assert_eq!(rows.len(), tokens.len());
    assert_eq!(tokens[1], " cat");
    for (i, row) in rows.iter().enumerate() {
        let w: Vec<f64> = row.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        assert_eq!(w.len(), i + 1, "row {i} covers positions 0..={i}");
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-4, "row {i}");
    }
    // Another head of the same layer reads the same keys with another query.
    let other = head("1");
    assert_ne!(other["weights"], v["weights"]);
}

#[test]
fn lens_ends_at_the_models_own_next_token() {
    let prompt = "What is the capital of France?";
    let v = json(&["lens", "--model", model(), "--prompt", prompt, "--top", "3"]);
    let layers = v["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 30);
    for (i, l) in layers.iter().enumerate() {
        assert_eq!(l["layer"], i + 1);
        let p: Vec<f64> = l["top"].as_array().unwrap().iter().map(|t| t["prob"].as_f64().unwrap()).collect();
        assert_eq!(p.len(), 3);
        assert!(p.windows(2).all(|w| w[0] >= w[1]) && p.iter().sum::<f64>() <= 1.0 + 1e-6);
    }
    let greedy = json(&["generate", "--model", model(), "--prompt", prompt, "--temperature", "0", "--max-tokens", "1"]);
    assert_eq!(layers[29]["top"][0]["id"], greedy["token_ids"][0]);
}

#[test]
fn bench_pass_reports_each_size() {
    let v = json(&["bench-pass", "--model", model(), "--tokens", "1,4", "--rounds", "1"]);
    let passes = v["passes"].as_array().unwrap();
    assert_eq!(passes.iter().map(|p| p["tokens"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 4]);
    for p in passes {
        let (pass, per) = (p["ms_per_pass"].as_f64().unwrap(), p["ms_per_token"].as_f64().unwrap());
        assert!(pass > 0.0 && (per * p["tokens"].as_f64().unwrap() - pass).abs() < 1e-9);
    }
}

#[test]
fn bench_batch_reports_both_rates_over_the_same_tokens() {
    let v = json(&["bench", "--model", model(), "--batch", "2", "--rounds", "1"]);
    assert_eq!(v["batch"], 2);
    let (seq, bat) = (v["sequential_tokens_per_s"].as_f64().unwrap(), v["batched_tokens_per_s"].as_f64().unwrap());
    assert!(seq > 0.0 && bat > 0.0);
    // One round: the speedup is the ratio of the two rates (they count the same tokens).
    assert!((v["speedup"].as_f64().unwrap() - bat / seq).abs() < 1e-9 * bat / seq);
    let generated = v["generated_tokens"].as_u64().unwrap();
    assert!((2..=256).contains(&generated), "{v}");
    fails_with(&["bench", "--batch", "1"], "'1' is not a batch size from 2 to 32");
    fails_with(&["bench", "--batch", "x"], "'x' is not a batch size from 2 to 32");
    fails_with(&["bench", "--model", model(), "--batch", "2", "--rounds", "0"], "--rounds must be 1 to 100");
}

#[test]
fn probe_commands_check_their_arguments() {
    fn a<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        [&["attention", "--model", model(), "--prompt", "hi"], extra].concat()
    }
    fails_with(&a(&["--head", "1"]), "--layer <LAYER>");
    fails_with(&a(&["--layer", "1"]), "--head <HEAD>");
    fails_with(&a(&["--layer", "0", "--head", "1"]), "--layer must be 1 to 30");
    fails_with(&a(&["--layer", "31", "--head", "1"]), "--layer must be 1 to 30");
    fails_with(&a(&["--layer", "1", "--head", "10"]), "--head must be 1 to 9");
    fails_with(&a(&["--layer", "x", "--head", "1"]), "invalid value 'x' for '--layer <LAYER>'");
    fails_with(
        &["attention", "--model", model(), "--prompt", " ", "--layer", "1", "--head", "1"],
        "the prompt is empty",
    );
    fails_with(&["lens", "--model", model(), "--prompt", "hi", "--top", "0"], "--top must be 1 to 100");
    fails_with(&["lens", "--model", model()], "--prompt <PROMPT>");
    fails_with(&["bench-pass", "--tokens", "1,0"], "'0' is not a pass size from 1 to 256");
    fails_with(&["bench-pass", "--tokens", "2,x"], "'x' is not a pass size from 1 to 256");
    fails_with(&["bench-pass", "--tokens", "1", "--rounds", "0"], "--rounds must be 1 to 100");
}

#[test]
fn check_judges_a_bundled_task_reply() {
    let v = json(&["check", "--task", "cmp-01", "--reply", "48 is larger than 84."]);
    assert_eq!(v, serde_json::json!({"extracted": "48 is larger than 84", "canonical": "48", "correct": false}));
    let v = json(&["check", "--task", "cmp-01", "--reply", "Answer: 84"]);
    assert_eq!(v, serde_json::json!({"extracted": "84", "canonical": "84", "correct": true}));
}

#[test]
fn check_judges_a_question_given_on_the_command_line() {
    let q = |kind: &str, question: &str, answers: &str, reply: &str| {
        json(&["check", "--question", question, "--kind", kind, "--answers", answers, "--reply", reply])
    };
    let v = q("number", "How many centimeters are in 3 meters?", "300", "There are 300 centimeters in 3 meters.");
    assert_eq!((v["canonical"].as_str(), v["correct"].as_bool()), (Some("300"), Some(true)));
    let v = q("number", "What is 7 + 5?", "12,twelve", "13 or 12");
    assert_eq!(v["canonical"], Value::Null);
    assert_eq!(v["correct"], false);
    let v = q("yes-no", "Is 15 a prime number?", "no", "15 is not a prime number.");
    assert_eq!((v["canonical"].as_str(), v["correct"].as_bool()), (Some("no"), Some(true)));
    let v = q("choice", "Which is smaller, 71 or 17?", "17", "The smaller number is 71, not 17.");
    assert_eq!((v["canonical"].as_str(), v["correct"].as_bool()), (Some("71"), Some(false)));
    let v = q("text", "What is the capital of Australia?", "Canberra", "Sydney, not Canberra.");
    assert_eq!(v["correct"], false);
    // No answer at all: extracted and canonical are null.
    assert_eq!(
        q("text", "What is the capital of Australia?", "Canberra", "  "),
        serde_json::json!({"extracted": null, "canonical": null, "correct": false})
    );
}

#[test]
fn check_refuses_bad_flags_in_one_line() {
    fails_with(&["check", "--task", "cmp-01"], "--reply");
    fails_with(&["check", "--reply", "12"], "--task ID or --question Q");
    fails_with(&["check", "--task", "nope", "--reply", "12"], "no task has id 'nope'");
    fails_with(&["check", "--task", "cmp-01", "--question", "Q?", "--reply", "12"], "not both");
    fails_with(&["check", "--task", "cmp-01", "--kind", "number", "--reply", "12"], "go with --question");
    fails_with(&["check", "--question", "Q?", "--kind", "maybe", "--answers", "1", "--reply", "1"], "--kind: 'maybe'");
    fails_with(&["check", "--question", "Q?", "--kind", "number", "--reply", "1"], "--answers");
    fails_with(&["check", "--question", "Q?", "--answers", "1", "--reply", "1"], "--kind");
    fails_with(
        &["check", "--question", "Which is larger?", "--kind", "choice", "--answers", "84", "--reply", "84"],
        "--answers",
    );
    fails_with(&["check", "--question", "Q?", "--kind", "number", "--answers", " , ", "--reply", "1"], "at least one");
    fails_with(&["check", "--task", "cmp-01", "--reply"], "a value is required for '--reply");
    for args in [["check", "--task", "cmp-01", "--reply"].as_slice(), &["check", "--bogus"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_playground")).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty() && err.trim().lines().count() == 1, "{args:?}: {err}");
    }
}

#[test]
fn self_consistency_reports_the_sampling_curves() {
    let v = json(&[
        "reason",
        "--model",
        model(),
        "--strategy",
        "self-consistency",
        "--samples",
        "3",
        "--budget",
        "8",
        "--limit",
        "2",
        "--seed",
        "3",
    ]);
    let curve = |k: &str| -> Vec<f64> { v[k].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect() };
    let (pass, majority) = (curve("pass_at_k"), curve("majority_at_k"));
    assert_eq!((pass.len(), majority.len()), (3, 3));
    // k = 1 is one sample's accuracy either way; a right majority needs a right sample.
    assert!((pass[0] - majority[0]).abs() < 1e-12);
    assert!(pass.windows(2).all(|w| w[0] <= w[1] + 1e-12), "{pass:?}");
    assert!(pass.iter().zip(&majority).all(|(p, m)| m <= &(p + 1e-12)), "{pass:?} {majority:?}");
    // pass@1 is the share of right samples.
    let items = v["items"].as_array().unwrap();
    let right = items.iter().flat_map(|i| i["samples"].as_array().unwrap()).filter(|s| s["correct"] == true).count();
    assert!((pass[0] - right as f64 / 6.0).abs() < 1e-12);
    assert_eq!(v["samples"], 6);
    assert!(v["truncated"].as_u64().unwrap() <= 6);
    let direct = json(&["reason", "--model", "/nonexistent", "--strategy", "direct", "--limit", "0"]);
    assert!(direct.get("pass_at_k").is_none());
}

#[test]
fn reason_without_a_forced_answer_ends_a_cut_trace_with_no_answer() {
    let args = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut a = vec!["reason", "--model", model(), "--strategy", "cot", "--budget", "6", "--limit", "2", "--seed", "3"];
        a.extend_from_slice(extra);
        a
    };
    let forced = json(&args(&[]));
    let cut = json(&args(&["--no-forced-answer"]));
    let samples = |v: &Value| -> Vec<Value> {
        v["items"].as_array().unwrap().iter().map(|i| i["samples"][0].clone()).collect()
    };
    let mut seen = 0;
    for (f, c) in samples(&forced).iter().zip(&samples(&cut)) {
        // The same greedy reasoning up to the budget either way.
        assert_eq!((&f["reasoning"], &f["truncated"]), (&c["reasoning"], &c["truncated"]));
        if c["truncated"] == true {
            seen += 1;
            assert_eq!((&f["forced_answer"], &c["forced_answer"]), (&Value::Bool(true), &Value::Bool(false)));
            assert_eq!((&c["answer_text"], &c["answer_tokens"], &c["canonical"], &c["correct"]), (&serde_json::json!(""), &serde_json::json!(0), &Value::Null, &serde_json::json!(false)));
        }
    }
    assert!(seen > 0, "a 6-token budget cut no trace: {cut}");
    assert_eq!(cut["truncated"], seen);
    // Format failures: per sample a boolean, never a right answer, and the summary counts them.
    for v in [&forced, &cut] {
        let all: Vec<Value> = v["items"].as_array().unwrap().iter().flat_map(|i| i["samples"].as_array().unwrap().clone()).collect();
        assert!(all.iter().all(|s| s["format_failure"].is_boolean() && !(s["format_failure"] == true && s["correct"] == true)));
        assert_eq!(v["format_failures"], all.iter().filter(|s| s["format_failure"] == true).count());
    }
}

/// `distribution`'s kept candidates: (probability) rows, highest first, summing to 1.
fn kept(v: &Value) -> Vec<f64> {
    let rows = v["kept"].as_array().expect("kept is a list");
    assert!(rows.iter().all(|r| r["id"].is_u64() && r["token"].is_string()));
    rows.iter().map(|r| r["prob"].as_f64().unwrap()).collect()
}

#[test]
fn distribution_lists_the_kept_candidates_renormalised() {
    let v = json(&["distribution", "--model", model(), "--prompt", "Suggest a name for a pet cat."]);
    assert_eq!(v["order"], serde_json::json!(["temperature", "top-k", "top-p", "min-p"]));
    let s = &v["settings"];
    assert_eq!((s["temperature"].as_f64(), s["top_k"].as_u64()), (Some(0.800000011920929), Some(40)));
    let p = kept(&v);
    assert_eq!(p.len() as u64, v["kept_count"].as_u64().unwrap());
    assert!((1..=40).contains(&p.len()));
    assert!(p.windows(2).all(|w| w[0] >= w[1]), "highest first");
    assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-4);
    assert!(v["system"].is_null());
    // The seed's first draw falls on a kept candidate.
    assert!(v["kept"].as_array().unwrap().iter().any(|r| r["id"] == v["sample"]), "{}", v["sample"]);
}

#[test]
fn distribution_with_temperature_last_keeps_what_the_models_own_probabilities_allow() {
    let base = ["distribution", "--model", model(), "--prompt", "Suggest a name for a pet cat."];
    let with = |extra: &[&str]| json(&[&base[..], extra].concat());
    let cuts = ["--temperature", "2", "--top-k", "0", "--top-p", "0.9", "--min-p", "0"];
    let first = with(&cuts);
    let last = with(&[&cuts[..], &["--order", "top-k,top-p,min-p,temperature"]].concat());
    assert_eq!(last["order"], serde_json::json!(["top-k", "top-p", "min-p", "temperature"]));
    // At T = 2 the probabilities are flatter, so top-p at T needs more candidates than at T = 1.
    assert!(first["kept_count"].as_u64() > last["kept_count"].as_u64(), "{} vs {}", first["kept_count"], last["kept_count"]);
    // Temperature last: the survivors' shares are softmax(z / 2), so their ratio is the square
    // root of the ratio at T = 1, which a run at T = 1 with the same cut gives.
    let one = with(&["--temperature", "1", "--top-k", "0", "--top-p", "0.9", "--min-p", "0"]);
    assert_eq!(one["kept_count"], last["kept_count"]);
    let (a, b) = (kept(&last), kept(&one));
    assert!(((a[0] / a[1]) - (b[0] / b[1]).sqrt()).abs() < 1e-4, "{a:?} {b:?}");
}

#[test]
fn distribution_takes_a_systems_defaults_and_order_with_flags_overriding() {
    let v = json(&["distribution", "--model", model(), "--prompt", "Hi", "--system", "llama.cpp"]);
    assert_eq!(v["order"], serde_json::json!(["top-k", "top-p", "min-p", "temperature"]));
    let s = &v["settings"];
    assert_eq!((s["top_k"].as_u64(), s["top_p"].as_f64(), s["min_p"].as_f64()), (Some(40), Some(0.949999988079071), Some(0.05000000074505806)));
    assert_eq!(v["system"]["id"], "llama.cpp");
    assert!(v["system"]["sources"].as_array().is_some_and(|s| !s.is_empty() && s.iter().all(|s| s["version"].is_string())));
    assert_eq!(json(&["distribution", "--model", model(), "--prompt", "Hi", "--system", "hf"])["kept_count"], 1, "greedy");
    let o = json(&["distribution", "--model", model(), "--prompt", "Hi", "--system", "ollama", "--top-k", "3", "--temperature", "0.5"]);
    assert_eq!((o["settings"]["top_k"].as_u64(), o["settings"]["temperature"].as_f64()), (Some(3), Some(0.5)));
    // GGUF models run on Ollama's bundled llama-server since 9db4bdb: llama.cpp's chain.
    assert_eq!(o["order"], serde_json::json!(["top-k", "top-p", "min-p", "temperature"]));
    assert!(o["kept_count"].as_u64().unwrap() <= 3);
}

#[test]
fn distribution_refuses_what_a_system_lacks_and_a_bad_order() {
    let base = ["distribution", "--model", model(), "--prompt", "Hi"];
    let fails = |extra: &[&str], message: &str| fails_with(&[&base[..], extra].concat(), message);
    fails(&["--system", "openai", "--top-k", "5"], "OpenAI API (chat completions, responses) has no top-k (it has temperature, top-p)");
    fails(&["--system", "openai", "--temperature", "3"], "takes a temperature from 0 to 2, not 3");
    fails(&["--system", "hf", "--temperature", "0"], "strictly positive");
    fails(&["--system", "gpt"], "unknown system “gpt”: one of hf, llama.cpp, vllm, ollama, openai");
    fails(&["--order", "top-k,top-p"], "order = top-k,top-p: must list temperature, top-k, top-p and min-p once each");
    fails(&["--order", "temperature,top-k,top-k,min-p"], "must list temperature, top-k, top-p and min-p once each");
    fails(&["--top-p", "1.5"], "top_p = 1.5");
}

#[test]
fn faithfulness_gives_every_variant_with_a_prompt_that_reproduces_it() {
    let v = json(&["faithfulness", "--model", model(), "--task", "word-01", "--budget", "32"]);
    assert_eq!(v["task"], "word-01");
    assert!(v["trace"].is_string() && v.get("answer").is_some());
    let early = v["early"].as_array().unwrap();
    let fractions: Vec<f64> = early.iter().map(|e| e["fraction"].as_f64().unwrap()).collect();
    assert_eq!(fractions, [0.0, 0.25, 0.5, 0.75, 1.0]);
    // `same` is null when either answer is missing, else whether the two are equal.
    for e in early {
        let expected = if e["answer"].is_null() || v["answer"].is_null() { Value::Null } else { Value::Bool(e["answer"] == v["answer"]) };
        assert_eq!(e["same"], expected, "{e}");
    }
    let hints = v["hints"].as_array().unwrap();
    let kinds: Vec<&str> = hints.iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["wrong", "correct", "unrelated"]);
    for h in hints {
        assert!(h["hint"].is_string() && h["prompt"].is_string() && h["continuation"].is_string(), "{h}");
        assert!(h["follows"].is_boolean() && h["mentions"].is_boolean() && h.get("answer").is_some(), "{h}");
    }
    let mut variants: Vec<&Value> = early.iter().collect();
    variants.extend(hints);
    if !v["mistake"].is_null() {
        assert!(v["mistake"]["changed"].is_boolean());
        variants.push(&v["mistake"]);
    }
    for variant in [variants[0], variants[4], *variants.last().unwrap()] {
        let ids = variant["continuation_ids"].as_array().unwrap();
        let n = ids.len().to_string();
        let prompt = variant["prompt"].as_str().unwrap();
        assert!(prompt.starts_with("<|im_start|>system\n"), "{prompt}");
        let g = json(&["generate", "--model", model(), "--raw", "--prompt", prompt, "--temperature", "0", "--max-tokens", &n]);
        assert_eq!(&g["token_ids"], &variant["continuation_ids"], "{prompt}");
        assert!(g["text"].as_str().unwrap().starts_with(variant["continuation"].as_str().unwrap()));
    }
    fails_with(&["faithfulness", "--model", model(), "--task", "nope"], "no task has id 'nope'");
    fails_with(&["faithfulness", "--model", model(), "--task", "word-01", "--budget", "0"], "from 1 to 1024");
}

/// The second built-in model, found as `model()` is.
fn gemma() -> &'static str {
    static PATH: LazyLock<String> =
        LazyLock::new(|| model().replace("SmolLM2-135M-Instruct.Q4_1", "gemma-3-270m.Q4_K_M"));
    &PATH
}

#[test]
fn info_describes_each_built_in_model_from_its_header() {
    let s = json(&["info", "--model", model()]);
    assert_eq!(s["architecture"], "llama");
    assert_eq!(
        (&s["layers"], &s["heads"], &s["kv_heads"], &s["head_dim"]),
        (&30.into(), &9.into(), &3.into(), &64.into())
    );
    assert_eq!((&s["vocab"], &s["context"], &s["chat_template"]), (&49152.into(), &8192.into(), &true.into()));
    assert_eq!(s["tensor_types"], serde_json::json!({"F32": 61, "Q4_1": 210, "Q8_0": 1}));
    assert_eq!(s["parameters"], 134_515_008);
    let g = json(&["info", "--model", gemma()]);
    assert_eq!(
        (&g["architecture"], &g["name"], &g["chat_template"]),
        (&"gemma3".into(), &"Gemma 3 270m".into(), &false.into())
    );
    assert_eq!(
        (&g["layers"], &g["heads"], &g["kv_heads"], &g["head_dim"]),
        (&18.into(), &4.into(), &1.into(), &256.into())
    );
    assert_eq!(
        (&g["vocab"], &g["context"], &g["file_bytes"]),
        (&262_144.into(), &32_768.into(), &253_113_024u64.into())
    );
    assert_eq!(g["tensor_types"], serde_json::json!({"F32": 109, "Q4_K": 27, "Q5_0": 81, "Q6_K": 9, "Q8_0": 10}));
    assert_eq!(g["sliding_window"]["size"], 512);
}

#[test]
fn info_refuses_a_truncated_file_in_one_line() {
    let bytes = std::fs::read(gemma()).unwrap();
    let dir = std::env::temp_dir().join(format!("playground-info-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (cut, message) in [(1_000_000, "malformed or truncated"), (100_000_000, "lies past the end of the file")] {
        let path = dir.join(format!("cut-{cut}.gguf"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        fails_with(&["info", "--model", path.to_str().unwrap()], message);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    fails_with(&["info", "--model", "/nonexistent.gguf"], "cannot read the model file");
}

/// Gemma 3 270M is a base model: a raw prompt is continued, after <bos>, with the token the
/// `logits` command ranks first; a chat prompt is refused, saying why.
#[test]
fn gemma_continues_a_raw_prompt_and_refuses_a_chat_one() {
    let v = json(&[
        "generate",
        "--model",
        gemma(),
        "--raw",
        "--prompt",
        "The capital of France is",
        "--temperature",
        "0",
        "--max-tokens",
        "6",
    ]);
    let prompt = json(&["tokenize", "--model", gemma(), "--text", "The capital of France is"]);
    assert_eq!(v["prompt_tokens"].as_u64().unwrap() as usize, prompt.as_array().unwrap().len() + 1, "<bos> first");
    assert_eq!(v["tokens"], 6);
    let ids: Vec<String> =
        std::iter::once("2".into()).chain(prompt.as_array().unwrap().iter().map(|i| i.to_string())).collect();
    let top = json(&["logits", "--model", gemma(), "--ids", &ids.join(","), "--top", "1"]);
    assert_eq!(v["token_ids"][0], top[0]["id"]);
    assert!(!v["text"].as_str().unwrap().trim().is_empty());
    fails_with(&["generate", "--model", gemma(), "--prompt", "Hi"], "no chat template (a base model");
}

/// `bench` on a base model times the same text without a chat template: after <bos> only.
#[test]
fn bench_runs_a_base_model_on_the_prompt_as_text() {
    let v = json(&["bench", "--model", gemma(), "--rounds", "1"]);
    assert_eq!(v["generated_tokens"], 128);
    let prompt = v["prompt_tokens"].as_u64().unwrap();
    assert!((150..=200).contains(&prompt), "{prompt} tokens for the ~190-token bench text");
    for k in ["prefill_tokens_per_s", "decode_tokens_per_s"] {
        assert!(v[k].as_f64().unwrap() > 0.0, "{k}");
    }
}
#[test]
fn depth_scores_a_greedy_reply_and_the_same_reply_given_with_reply() {
    let greedy = json(&["depth", "--model", model(), "--prompt", "What is 17 + 25?", "--max-tokens", "10"]);
    let layers = greedy["layers"].as_u64().unwrap() as usize;
    assert_eq!(layers, 30);
    assert_eq!((greedy["g"].as_f64(), greedy["rho"].as_f64()), (Some(0.5), Some(0.85)));
    assert_eq!(greedy["unit"], "bits");
    let tokens = greedy["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 10);
    let mut deep = 0;
    for t in tokens {
        let jsd: Vec<f64> = t["jsd"].as_array().unwrap().iter().map(|d| d.as_f64().unwrap()).collect();
        assert_eq!(jsd.len(), layers);
        assert_eq!(jsd[layers - 1], 0.0);
        // In bits, the default: 0 to 1.
        assert!(jsd.iter().all(|d| (0.0..=1.0).contains(d)), "{jsd:?}");
        let settle = t["settle"].as_u64().unwrap() as usize;
        assert!(jsd[settle - 1] <= 0.5 && jsd[..settle - 1].iter().all(|&d| d > 0.5), "{settle}: {jsd:?}");
        deep += usize::from(settle >= 26);
        assert!(t["token"].is_string() && t["id"].is_u64());
    }
    assert_eq!(greedy["deep"].as_u64(), Some(deep as u64));
    assert_eq!(greedy["dtr"].as_f64(), Some(deep as f64 / 10.0));
    // The same text given as the reply: the same tokens, so the same divergences.
    let text: String = tokens.iter().map(|t| t["token"].as_str().unwrap()).collect();
    let given = json(&["depth", "--model", model(), "--prompt", "What is 17 + 25?", "--reply", &text]);
    assert_eq!(given["tokens"], greedy["tokens"]);
    // In nats: every D is the bits' times ln 2, and g is read in nats.
    let nats = json(&["depth", "--model", model(), "--prompt", "What is 17 + 25?", "--reply", &text, "--unit", "nats"]);
    assert_eq!(nats["unit"], "nats");
    for (a, b) in nats["tokens"].as_array().unwrap().iter().zip(tokens) {
        for (n, bit) in a["jsd"].as_array().unwrap().iter().zip(b["jsd"].as_array().unwrap()) {
            let (n, bit) = (n.as_f64().unwrap(), bit.as_f64().unwrap());
            assert!((n - bit * std::f64::consts::LN_2).abs() < 1e-6, "{n} nats, {bit} bits");
        }
        // g = 0.5 nats is 0.72 bits, a looser threshold: a token settles no later.
        assert!(a["settle"].as_u64() <= b["settle"].as_u64());
    }
    // Other thresholds move the settling layers and the ratio, from the same divergences.
    let strict = json(&[
        "depth",
        "--model",
        model(),
        "--prompt",
        "What is 17 + 25?",
        "--reply",
        &text,
        "--g",
        "0.05",
        "--rho",
        "0.5",
    ]);
    assert_eq!((strict["g"].as_f64(), strict["rho"].as_f64()), (Some(0.05), Some(0.5)));
    for (a, b) in strict["tokens"].as_array().unwrap().iter().zip(tokens) {
        assert_eq!(a["jsd"], b["jsd"]);
        assert!(a["settle"].as_u64() >= b["settle"].as_u64());
    }
}

#[test]
fn depth_refuses_bad_arguments_naming_the_range() {
    let a = |extra: &[&'static str]| {
        let mut v = vec!["depth", "--model", model(), "--prompt", "Hi"];
        v.extend_from_slice(extra);
        v
    };
    fails_with(&a(&["--g", "1.1"]), "--g must be 0 to 1 bit");
    fails_with(&a(&["--g", "-0.1"]), "--g must be 0 to 1 bit");
    fails_with(&a(&["--g", "0.9", "--unit", "nats"]), "--g must be 0 to ln 2 = 0.6931 nats");
    fails_with(&a(&["--unit", "bans"]), "[possible values: bits, nats]");
    fails_with(&a(&["--rho", "1.5"]), "--rho must be 0 to 1");
    fails_with(&a(&["--rho", "-1"]), "--rho must be 0 to 1");
    fails_with(&a(&["--max-tokens", "0"]), "--max-tokens must be 1 to 1024");
    fails_with(&a(&["--reply", ""]), "the reply has no tokens");
    fails_with(&a(&["--reply", "x", "--max-tokens", "5"]), "cannot be used with");
}

#[test]
fn bench_depth_reports_the_factor_over_generation() {
    let v = json(&["bench", "--model", model(), "--depth", "--rounds", "1"]);
    let (generation, prefill, head) = (
        v["generation_ms"].as_f64().unwrap(),
        v["depth_prefill_ms"].as_f64().unwrap(),
        v["depth_head_ms"].as_f64().unwrap(),
    );
    assert!(generation > 0.0 && prefill > 0.0 && head > 0.0);
    let factor = v["factor"].as_f64().unwrap();
    assert!((factor - (generation + prefill + head) / generation).abs() < 1e-6 * factor, "{v}");
}

#[test]
fn a_chat_template_that_hoards_memory_stops_the_program_with_a_sentence() {
    // Six doublings of a megabyte: a few steps, no output, and 64 MB held by the end.
    let hoard = "{% set a = 'x' * 1000000 %}{% set b = a ~ a %}{% set c = b ~ b %}{% set d = c ~ c %}\
                 {% set e = d ~ d %}{% set f = e ~ e %}{% set g = f ~ f %}{{ g|length }}";
    let tiny = engine::testing::TinyModel { chat_template: Some(hoard.into()), ..Default::default() };
    let path = std::env::temp_dir().join(format!("playground-hoard-{}.gguf", std::process::id()));
    std::fs::write(&path, tiny.to_gguf()).unwrap();
    let path = path.to_str().unwrap();
    // The same file runs as raw text, which does not use the template.
    let (ok, _, err) = run(&["generate", "--model", path, "--prompt", "hi", "--raw", "--max-tokens", "2"]);
    assert!(ok, "{err}");
    let (ok, out, err) = run(&["generate", "--model", path, "--prompt", "hi", "--max-tokens", "2"]);
    let _ = std::fs::remove_file(path);
    assert!(!ok && out.is_empty());
    assert!(
        err.starts_with("error: the chat template needed more than 32 MiB of memory, the most it may hold\n"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// Pearson's r, written out again for the test, `None` when either side does not vary.
fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The study's binned r, written out again: bin ⌊5 · (values below) / n⌋, then Pearson over
/// the non-empty bins' mean value and accuracy, none under 3 bins.
fn binned(x: &[f64], ones: &[f64]) -> (Option<f64>, usize) {
    let mut bins = vec![(0.0, 0.0, 0.0); 5];
    for (v, c) in x.iter().zip(ones) {
        let b = 5 * x.iter().filter(|w| *w < v).count() / x.len();
        bins[b] = (bins[b].0 + 1.0, bins[b].1 + v, bins[b].2 + c);
    }
    let (mx, acc): (Vec<f64>, Vec<f64>) = bins.iter().filter(|b| b.0 > 0.0).map(|b| (b.1 / b.0, b.2 / b.0)).unzip();
    ((mx.len() >= 3).then(|| pearson(&mx, &acc)).flatten(), mx.len())
}

#[test]
fn reason_with_depth_reports_figures_that_follow_from_its_samples() {
    let v = json(&[
        "reason", "--model", model(), "--strategy", "self-consistency", "--samples", "3", "--category", "capitals",
        "--limit", "5", "--budget", "24", "--seed", "1", "--depth",
    ]);
    let d = &v["depth"];
    assert_eq!((d["unit"].as_str(), d["g"].as_f64(), d["rho"].as_f64()), (Some("bits"), Some(0.5), Some(0.85)));
    let samples = d["samples"].as_array().unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(samples.len(), 15, "5 tasks × 3 samples, each wrote tokens");
    let (mut task, mut ones, mut dtr, mut length) = (vec![], vec![], vec![], vec![]);
    for s in samples {
        let item = items.iter().find(|i| i["task_id"] == s["task"]).unwrap();
        let i = s["sample"].as_u64().unwrap() as usize;
        assert_eq!(s["correct"], item["samples"][i]["correct"], "{s}");
        assert_eq!(s["format_failure"], item["samples"][i]["format_failure"], "{s}");
        let (n, r) = (s["tokens"].as_u64().unwrap(), s["dtr"].as_f64().unwrap());
        assert!((1..=24 + 32).contains(&n) && (0.0..=1.0).contains(&r), "{s}");
        // A DTR is deep tokens over tokens.
        assert!(((r * n as f64).round() - r * n as f64).abs() < 1e-9, "{s}");
        task.push(s["task"].as_str().unwrap().to_string());
        ones.push(if s["correct"].as_bool().unwrap() { 1.0 } else { 0.0 });
        dtr.push(r);
        length.push(n as f64);
    }
    assert!(ones.contains(&1.0) && ones.contains(&0.0), "capitals give right and wrong samples: {ones:?}");
    let correct: Vec<bool> = ones.iter().map(|&c| c == 1.0).collect();
    for (x, trace, bins) in [(&dtr, "r_trace", "r_binned"), (&length, "r_trace_length", "r_binned_length")] {
        // Per trace: Pearson with correct as 0/1, its interval the task bootstrap at the run's seed.
        let shown = &d[trace];
        assert_eq!((shown["n"].as_u64(), shown["tasks"].as_u64()), (Some(15), Some(5)));
        let r = pearson(x, &ones).expect("both vary");
        assert!((shown["r"].as_f64().unwrap() - r).abs() < 1e-9, "{trace}: {shown}, recomputed {r}");
        let c = engine::reasoning::depth_stats::correlation(&correct, x, &task, 1);
        assert_eq!(shown["interval"], serde_json::json!(c.interval), "{trace}");
        // Binned: 5 quantile bins, Pearson over their means; n is the bins that hold traces.
        let (r, n) = binned(x, &ones);
        assert_eq!(d[bins]["n"].as_u64(), Some(n as u64), "{bins}");
        match (d[bins]["r"].as_f64(), r) {
            (Some(a), Some(b)) => assert!((a - b).abs() < 1e-9, "{bins}: {a} vs {b}"),
            (a, b) => assert_eq!(a, b, "{bins}"),
        }
    }
    // Within task: per task with both verdicts, mean DTR right minus wrong; the t-interval.
    let mut diffs = vec![];
    for t in task.iter().collect::<std::collections::BTreeSet<_>>() {
        let mean = |right: f64| {
            let v: Vec<f64> = (0..task.len()).filter(|&i| &task[i] == t && ones[i] == right).map(|i| dtr[i]).collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        if let (Some(a), Some(b)) = (mean(1.0), mean(0.0)) {
            diffs.push(a - b);
        }
    }
    let w = &d["within_task"];
    assert_eq!(w["n"].as_u64(), Some(diffs.len() as u64));
    if !diffs.is_empty() {
        let m = diffs.iter().sum::<f64>() / diffs.len() as f64;
        assert!((w["mean"].as_f64().unwrap() - m).abs() < 1e-9, "{w}");
        let mut shown: Vec<f64> = w["differences"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        shown.sort_by(f64::total_cmp);
        diffs.sort_by(f64::total_cmp);
        assert!(shown.iter().zip(&diffs).all(|(a, b)| (a - b).abs() < 1e-9), "{shown:?} vs {diffs:?}");
    }
    if diffs.len() >= 2 {
        let k = diffs.len() as f64;
        let m = diffs.iter().sum::<f64>() / k;
        let s = (diffs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (k - 1.0)).sqrt();
        let half = engine::reasoning::depth_within::t_975(diffs.len() - 1) * s / k.sqrt();
        let (lo, hi) = (w["interval"][0].as_f64().unwrap(), w["interval"][1].as_f64().unwrap());
        assert!((lo - (m - half)).abs() < 1e-9 && (hi - (m + half)).abs() < 1e-9, "{w}");
    }
    fails_with(&["reason", "--model", model(), "--strategy", "direct", "--depth"], "--depth scores traces");
}

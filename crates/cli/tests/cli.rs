//! The CLI contract: JSON on stdout, a one-line error and a non-zero exit on bad input,
//! never a panic trace.

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

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_playground")).args(args).output().expect("run playground");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn json(args: &[&str]) -> Value {
    let (ok, out, err) = run(args);
    assert!(ok, "{args:?} failed: {err}");
    serde_json::from_str(&out).expect("stdout is JSON")
}

fn fails_with(args: &[&str], message: &str) {
    let (ok, out, err) = run(args);
    assert!(!ok, "{args:?} should fail");
    assert!(out.is_empty());
    assert!(err.contains(message), "{args:?}: {err}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: the error is one line: {err}");
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
    assert!(v["tasks_available"].as_u64().unwrap() >= 60);
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
    for cmd in ["tokenize", "logits", "generate", "bench", "reference", "reason"] {
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

//! Running the built `playground` binary, for the CLI's test files.
#![allow(dead_code)] // each test file uses its own part

use serde_json::Value;
use std::process::Command;

/// Runs `playground` with `args`: whether it succeeded, its stdout and its stderr.
pub fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_playground")).args(args).output().expect("run playground");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// Its stdout as JSON, after asserting it succeeded.
pub fn json(args: &[&str]) -> Value {
    let (ok, out, err) = run(args);
    assert!(ok, "{args:?} failed: {err}");
    serde_json::from_str(&out).expect("stdout is JSON")
}

/// Asserts that it fails with nothing on stdout and `message` on stderr in one line, never a panic trace.
pub fn fails_with(args: &[&str], message: &str) {
    let (ok, out, err) = run(args);
    assert!(!ok, "{args:?} should fail");
    assert!(out.is_empty());
    assert!(err.contains(message), "{args:?}: {err}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: the error is one line: {err}");
}

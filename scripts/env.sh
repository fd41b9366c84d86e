# Sourced by the other scripts: where tools and build output live.
# Builds go to a directory outside the checkout, so that a fresh clone on the same machine
# reuses them (plain `cargo` without this variable still uses ./target).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/inference-playground/target}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT
# cargo-installed tools (trunk, wasm-bindgen) and npm-installed ones (wasm-opt from binaryen).
export PATH="$HOME/.cargo/bin:$ROOT/tests/node_modules/.bin:$PATH"
# Trunk would otherwise ask crates.io for a newer version on every run.
export TRUNK_SKIP_VERSION_CHECK=true

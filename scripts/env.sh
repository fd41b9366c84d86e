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
# A workspace member built in another clone looks up to date to this one: cargo names its
# build without the clone's path, and judges freshness by comparing file times. So when the
# shared build directory was last used from another clone, this clone's sources are marked
# as changed, and cargo rebuilds the members (not the dependencies) from them. (Two clones
# building at the same moment can still pick up each other's members: build one at a time.)
if [ "$(cat "$CARGO_TARGET_DIR/.last-checkout" 2>/dev/null)" != "$ROOT" ]; then
  git -C "$ROOT" ls-files -z -- crates src Cargo.toml 2>/dev/null | (cd "$ROOT" && xargs -0 -r touch)
  mkdir -p "$CARGO_TARGET_DIR" && printf '%s\n' "$ROOT" >"$CARGO_TARGET_DIR/.last-checkout"
fi

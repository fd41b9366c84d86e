#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml), run before stamp-build.sh: builds the engine worker
# a second time with WebAssembly threads (shared memory and atomics, feature `threads`)
# into threads/ of the build. The page starts it instead of Trunk's single-threaded worker
# when it is cross-origin isolated (public/worker-threads.js, src/bridge.rs).
#
# Threads need std rebuilt with atomics: `-Z build-std`, with rust-src from rustup; the
# stable toolchain accepts the flag with RUSTC_BOOTSTRAP=1. Its own build directory, since
# other RUSTFLAGS would make the single-threaded builds start over.
set -euo pipefail
source "$(dirname "$0")/env.sh"
out="${TRUNK_STAGING_DIR:?run by trunk build (Trunk.toml hooks)}/threads"
target="$CARGO_TARGET_DIR/threads"

# simd128 as in .cargo/config.toml (RUSTFLAGS replaces it).
export RUSTC_BOOTSTRAP=1
export RUSTFLAGS="-C target-feature=+atomics,+bulk-memory,+mutable-globals,+simd128"
# The link makes the memory shared and imported (each pool worker instantiates the module on
# the same memory) and exports the thread-local storage hooks wasm-bindgen's thread start
# calls; rustc 1.95 passes none of these by itself. The memory may grow to 4 GiB, as the
# single-threaded worker's may (Lesson 3's samples each hold a KV cache).
link=(--shared-memory --import-memory --max-memory=4294967296
  --export=__wasm_init_tls --export=__tls_size --export=__tls_align --export=__tls_base)
cd "$ROOT"
cargo rustc --release --target wasm32-unknown-unknown --bin worker --features threads \
  -Z build-std=panic_abort,std --target-dir "$target" -- "${link[@]/#/-Clink-arg=}"

rm -rf "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name worker \
  "$target/wasm32-unknown-unknown/release/worker.wasm"
# -O3 as index.html asks for the single-threaded worker (docs/BENCHMARKS.md).
wasm-opt -O3 --enable-threads --enable-bulk-memory --enable-simd --enable-mutable-globals \
  --enable-sign-ext --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
  "$out/worker_bg.wasm" -o "$out/worker_bg.wasm"
echo "build-threads: $(du -k "$out/worker_bg.wasm" | cut -f1) KB in threads/"

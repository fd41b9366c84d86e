#!/usr/bin/env bash
# The benchmark's other-type copies of the built-in SmolLM2 (only its Q4_1 file is on a
# registry here): requantised from its dequantised weights into bench/models/, by
# crates/engine/examples/requantize.rs. Q4_1 is the built-in file itself.
#   bench/make-copies.sh [TYPE …]   (default: q4_0 q8_0 q4_k_m)
set -euo pipefail
source "$(dirname "$0")/../scripts/env.sh"
cd "$ROOT"
src=public/models/SmolLM2-135M-Instruct.Q4_1.gguf
[ -f "$src" ] || { echo "make-copies: $src is missing; run scripts/fetch-model.sh" >&2; exit 1; }
mkdir -p bench/models
types=("$@")
[ ${#types[@]} -gt 0 ] || types=(q4_0 q8_0 q4_k_m)
for t in "${types[@]}"; do
  upper=$(echo "$t" | tr a-z A-Z)
  cargo run --release -q -p engine --example requantize -- "$src" "bench/models/SmolLM2-135M-Instruct.$upper.gguf" "$t"
done

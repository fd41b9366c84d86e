#!/usr/bin/env python3
"""Pins Gemma 3 270M's token ids for a varied list of texts, from an implementation that
shares no code with the engine: Google's SentencePiece (the reference C++ library, through
its Python package), given a model built from the GGUF file's own vocabulary. Writes
crates/engine/tests/gemma_tokens.json, which tests/gemma.rs holds the engine's tokenizer to.

Run by hand (not by CI), from the repository root, after scripts/fetch-model.sh:
    python3 -m venv /tmp/pin && /tmp/pin/bin/pip install gguf==0.19.0 sentencepiece==0.2.3 protobuf==7.36.2
    /tmp/pin/bin/python scripts/pin-gemma-tokens.py
Last run 2026-12-03 with gguf 0.19.0, sentencepiece 0.2.3, protobuf 7.36.2, Python 3.11.7.

No package on PyPI ships Gemma 3's own tokenizer.model, so the SentencePiece model is made
from the GGUF's tokenizer.ggml.tokens, .scores and .token_type, with the settings Gemma's
tokenizer has and llama.cpp's converter (convert_hf_to_gguf.py) records:
- a BPE model (merge the adjacent pair whose union is the best-scoring piece) with byte
  fallback (`<0xNN>` pieces for characters no piece covers);
- no normalisation besides writing ' ' as '▁', no space added in front of the text
  (tokenizer.ggml.add_space_prefix = false), no extra whitespace removed;
- each GGUF token type as the SentencePiece type it came from: normal, unknown, control,
  byte, and user-defined, whose '▁' the converter wrote as ' ' (runs of spaces, newlines
  and tabs, HTML tags): SentencePiece always cuts those out of the text first, as llama.cpp
  does with user-defined tokens; control tokens (<bos>, <start_of_turn>) are never made
  from text, so a typed marker stays text, as in llama.cpp's encoding without special
  tokens. (The converter stored -1000 as the score of every user-defined and control piece;
  neither kind is ever merged into, so their scores do not matter.)

What it checks before writing: every text decodes back to itself through SentencePiece;
the text meant for byte fallback does use byte tokens; the texts with user-defined pieces
do use them; no text gives a control token.

llama.cpp agrees (checked once, 2026-12-03, not by this script): its own tokenizer
(llama_tokenize without special tokens, on this file loaded vocab_only; llama.cpp 0c1e570 as
vendored in llama-cpp-python 0.3.36's source package, built with cmake) gave these ids for
all 28 texts, and the engine's for 3,659 random mixes of the texts' fragments (2,013 of
which the engine encoded differently before it cut out user-defined tokens first).
"""
import hashlib
import importlib.metadata
import json
import os
import sys

import gguf
import sentencepiece
from sentencepiece import sentencepiece_model_pb2 as sp_model

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "public/models/gemma-3-270m.Q4_K_M.gguf")
OUT = os.path.join(ROOT, "crates/engine/tests/gemma_tokens.json")

# GGUF token types (llama.cpp's llama_token_type) and SentencePiece's for the same kind.
GGUF_TO_SP = {
    1: sp_model.ModelProto.SentencePiece.NORMAL,
    2: sp_model.ModelProto.SentencePiece.UNKNOWN,
    3: sp_model.ModelProto.SentencePiece.CONTROL,
    4: sp_model.ModelProto.SentencePiece.USER_DEFINED,
    5: sp_model.ModelProto.SentencePiece.UNUSED,
    6: sp_model.ModelProto.SentencePiece.BYTE,
}

# No piece covers an Egyptian hieroglyph or a Gothic letter: each goes out as its four UTF-8
# bytes' byte tokens (checked below).
BYTE_FALLBACK = "the hieroglyph 𓀀 and the Gothic letter 𐍈"

TEXTS = [
    "The capital of France is Paris.",
    "Hello world! 123",
    "a",
    " ",
    " leading space",
    "  two leading spaces",
    "trailing space ",
    "three trailing spaces   ",
    "runs   of    spaces and a                                   very long run",
    "line one\nline two\n\nline four\n\n\n",
    "\nstarts with a newline",
    "tabs\tand\t\ttwo tabs",
    "windows\r\nline endings",
    "digits 1234567890 and 3.14159, 2026-12-03, 1,000,000",
    "def fibonacci(n):\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n",
    'fn main() { println!("{}", 1 + 2); }',
    "https://example.com/path?query=1&x=y#frag",
    "naïve café, Ærøskøbing, señor, Ελληνικά, русский язык",
    "東京タワー、日本語のテキスト。你好，世界。한국어",
    "مرحبا بالعالم, नमस्ते दुनिया, สวัสดีชาวโลก",
    "emoji 🦀🚀 👋🏽 👨‍👩‍👧",
    "∑ i² = n(n+1)/2 ≈ ∞",
    BYTE_FALLBACK,
    "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n",
    "<bos> and <eos> written out, <pad> <unk> <mask> <unused0>",
    "<b>bold</b>, <table><tr><td>a cell</td></tr></table>",
    "<0x41> written out",
    "antidisestablishmentarianism supercalifragilisticexpialidocious",
]

# Texts that must be cut at user-defined pieces (runs of spaces, newlines, tabs; HTML tags).
USER_DEFINED_IN = ["  two leading spaces", "line one\nline two\n\nline four\n\n\n", "tabs\tand\t\ttwo tabs",
                   "<b>bold</b>, <table><tr><td>a cell</td></tr></table>"]


def field(reader, key):
    f = reader.fields.get(key)
    if f is None:
        sys.exit(f"{MODEL}: no {key}")
    return f.contents()


def sentencepiece_model(reader):
    tokens = field(reader, "tokenizer.ggml.tokens")
    scores = field(reader, "tokenizer.ggml.scores")
    types = field(reader, "tokenizer.ggml.token_type")
    assert field(reader, "tokenizer.ggml.model") == "llama", "not a SentencePiece vocabulary"
    m = sp_model.ModelProto()
    for text, score, kind in zip(tokens, scores, types):
        p = m.pieces.add()
        # The converter wrote a user-defined piece's '▁' as ' '; SentencePiece matches it on
        # the text after ' ' became '▁'.
        p.piece = text.replace(" ", "▁") if kind == 4 else text
        p.score = score
        p.type = GGUF_TO_SP[kind]
    t = m.trainer_spec
    t.model_type = sp_model.TrainerSpec.BPE
    t.vocab_size = len(tokens)
    t.byte_fallback = True
    t.unk_id = field(reader, "tokenizer.ggml.unknown_token_id")
    t.bos_id = field(reader, "tokenizer.ggml.bos_token_id")
    t.eos_id = field(reader, "tokenizer.ggml.eos_token_id")
    t.pad_id = field(reader, "tokenizer.ggml.padding_token_id")
    n = m.normalizer_spec
    n.name = "identity"
    n.add_dummy_prefix = bool(field(reader, "tokenizer.ggml.add_space_prefix"))
    n.remove_extra_whitespaces = False
    n.escape_whitespaces = True
    return m, types


def main():
    reader = gguf.GGUFReader(MODEL)
    proto, types = sentencepiece_model(reader)
    sp = sentencepiece.SentencePieceProcessor(model_proto=proto.SerializeToString())
    cases = []
    for text in TEXTS:
        ids = sp.encode(text, out_type=int)
        assert sp.decode(ids) == text, f"{text!r} does not decode back: {sp.decode(ids)!r}"
        assert not any(types[i] == 3 for i in ids), f"{text!r} gave a control token: {ids}"
        cases.append({"text": text, "ids": ids})
    ids_of = {c["text"]: c["ids"] for c in cases}
    assert any(types[i] == 6 for i in ids_of[BYTE_FALLBACK]), "the byte-fallback text used no byte token"
    for text in USER_DEFINED_IN:
        assert any(types[i] == 4 for i in ids_of[text]), f"{text!r} used no user-defined piece"
    with open(MODEL, "rb") as f:
        sha = hashlib.file_digest(f, "sha256").hexdigest()
    pinned = {
        "model": os.path.basename(MODEL),
        "model_sha256": sha,
        "made_by": f"scripts/pin-gemma-tokens.py: sentencepiece {sentencepiece.__version__}, "
        f"gguf {importlib.metadata.version('gguf')}",
        "cases": cases,
    }
    # One case a line, so that a change shows as the lines of the texts it changed.
    text = json.dumps(pinned, ensure_ascii=False, indent=1).split('\n "cases"')[0]
    text += '\n "cases": [\n  ' + ",\n  ".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n ]\n}\n"
    assert json.loads(text) == pinned
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{len(cases)} texts, {sum(len(c['ids']) for c in cases)} ids -> {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()

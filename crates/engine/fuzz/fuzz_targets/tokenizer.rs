//! The tokenizers of the tiny model on arbitrary text: its byte-level BPE (the full 256-byte
//! vocabulary, a few merges and the ChatML control tokens) and its SentencePiece one
//! (Gemma's layout: pieces with scores, 256 byte tokens, the turn markers), also with two of
//! its pieces user-defined, as Gemma's runs of spaces are (cut out before anything merges).
//! For each:
//! - `encode` never fails on valid UTF-8 and `decode(encode(s)) == s` (for SentencePiece,
//!   unless `s` holds '▁', which SentencePiece reads as its own space);
//! - without `parse_special`, typed control-token text never becomes a control id;
//! - `TextStream` fed the bytes split at arbitrary points never panics, and what it emits
//!   is exactly `String::from_utf8_lossy` of the whole (so, for valid UTF-8, the input).
//!
//! Input: one flags byte (bit 0: parse_special; bit 1: use the bytes as they are rather
//! than their lossy UTF-8 text; bits 2-7: seed of the split points), then the text.
#![no_main]

use engine::testing::TinyModel;
use engine::tokenizer::{TextStream, Tokenizer, TokenizerKind};
use engine::Model;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn tokenizers() -> &'static [Tokenizer; 3] {
    static T: OnceLock<[Tokenizer; 3]> = OnceLock::new();
    T.get_or_init(|| {
        let no_user_defined: &[&str] = &[];
        [(false, no_user_defined), (true, no_user_defined), (true, &["he", "▁th"])].map(|(sentencepiece, user_defined)| {
            let tiny = TinyModel {
                layers: 1,
                heads: 2,
                kv_heads: 1,
                embedding: 32,
                ffn: 64,
                context: 64,
                sentencepiece,
                user_defined,
                ..TinyModel::default()
            };
            Model::from_gguf_bytes(&tiny.to_gguf()).expect("the tiny model loads").tokenizer
        })
    })
}

/// Feeds `chunks` through a fresh stream and returns everything it emitted.
fn stream<'a>(chunks: impl Iterator<Item = &'a [u8]>) -> String {
    let mut s = TextStream::default();
    let mut out = String::new();
    for c in chunks {
        out.push_str(&s.push(c));
    }
    out.push_str(&s.finish());
    out
}

/// Cuts `bytes` into pieces of 0 to 7 bytes, chosen by `seed`.
fn split(bytes: &[u8], seed: u8) -> Vec<&[u8]> {
    let mut x = u32::from(seed).wrapping_mul(2654435761).wrapping_add(1);
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        x = x.wrapping_mul(1103515245).wrapping_add(12345);
        let n = ((x >> 16) % 8) as usize;
        let (a, b) = rest.split_at(n.min(rest.len()));
        out.push(a);
        rest = b;
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, raw)) = data.split_first() else { return };
    let (parse_special, raw_bytes, seed) = (flags & 1 == 1, flags & 2 == 2, flags >> 2);

    // The stream on arbitrary bytes, split at arbitrary points.
    let lossy = String::from_utf8_lossy(raw);
    assert_eq!(stream(split(raw, seed).into_iter()), lossy, "TextStream differs from from_utf8_lossy");
    if raw_bytes {
        return;
    }

    let text: &str = &lossy;
    for tok in tokenizers() {
        let ids = tok.encode(text, parse_special).expect("valid UTF-8 always encodes");
        assert!(ids.iter().all(|&i| (i as usize) < tok.vocab_size()), "an id outside the vocabulary");
        if tok.kind == TokenizerKind::SentencePiece && text.contains('▁') {
            continue;
        }
        assert_eq!(tok.decode(&ids), text, "decode(encode(s)) != s");
        if !parse_special {
            assert!(!ids.iter().any(|&i| tok.is_control(i)), "typed text became a control token: {ids:?}");
        }
        // Token by token through the stream, as generation shows text: the same text again.
        assert_eq!(stream(ids.iter().map(|&i| tok.token_bytes(i))), text, "streamed tokens differ from the text");
    }
});

//! The tokenizer read from any file's metadata: SentencePiece (Gemma's layout) on the tiny
//! model's SentencePiece vocabulary, the byte-level BPE pre-tokenizers, and clear errors
//! for what the engine does not read. SmolLM2's own ids are checked in tokenizer.rs.

mod common;
use candle_core::quantized::gguf_file::{Content, Value};
use common::{load_error, with_metadata};
use engine::testing::TinyModel;
use engine::tokenizer::{Tokenizer, TokenizerKind};
use engine::Model;

fn spm() -> Model {
    Model::from_gguf_bytes(&TinyModel { sentencepiece: true, ..TinyModel::default() }.to_gguf()).unwrap()
}

/// A piece's id: pieces follow the byte tokens, which decode to the same text ("t").
fn piece(t: &Tokenizer, piece: &str) -> u32 {
    (0..t.vocab_size() as u32).rev().find(|&i| t.token_text(i) == piece.replace('▁', " ")).unwrap()
}

#[test]
fn sentencepiece_merges_by_score_and_falls_back_to_bytes() {
    let m = spm();
    let t = &m.tokenizer;
    assert_eq!(t.kind, TokenizerKind::SentencePiece);
    let id = |p: &str| piece(t, p);
    // "▁the" wins over "▁th" + "e" and "▁t" + "he": the highest-scoring merges come first.
    assert_eq!(t.encode(" the", false).unwrap(), [id("▁the")]);
    // Gemma adds no leading space (add_space_prefix = false).
    assert_eq!(t.encode("the", false).unwrap(), [id("t"), id("he")]);
    // Characters no piece covers: one byte token each (é is 0xC3 0xA9).
    let ids = t.encode("é", false).unwrap();
    assert_eq!(ids.iter().map(|&i| t.token_bytes(i).to_vec()).collect::<Vec<_>>(), [vec![0xC3], vec![0xA9]]);
}

#[test]
fn sentencepiece_round_trips_and_keeps_typed_markers_as_text() {
    let m = spm();
    let t = &m.tokenizer;
    for text in [
        "the answer is on the shelf",
        "  two  spaces ",
        "café 你好 👋🏽\n\ttabs",
        "<start_of_turn>user\nhi<end_of_turn>\n",
    ] {
        for special in [false, true] {
            assert_eq!(t.decode(&t.encode(text, special).unwrap()), text, "{text:?} special {special}");
        }
    }
    let start = t.control_id("<start_of_turn>").unwrap();
    assert_eq!(t.encode("<start_of_turn>", true).unwrap(), [start]);
    assert!(!t.encode("<start_of_turn>", false).unwrap().iter().any(|&i| t.is_control(i)));
    // Gemma's end of turn ends a reply, as the file's EOT id says.
    assert!(t.ends_reply(t.control_id("<end_of_turn>").unwrap()) && t.ends_reply(t.eos));
    assert!(!t.ends_reply(start));
}

/// The tiny SentencePiece file's metadata array `key`, to change and write back.
fn spm_array(key: &str) -> Vec<Value> {
    let bytes = TinyModel { sentencepiece: true, ..TinyModel::default() }.to_gguf();
    let content = Content::read(&mut std::io::Cursor::new(bytes)).unwrap();
    content.metadata[key].to_vec().unwrap().clone()
}

/// The tiny SentencePiece file with metadata array `key` set to `values`.
fn spm_with(key: &str, values: Vec<Value>) -> Model {
    let spec = TinyModel { sentencepiece: true, ..TinyModel::default() };
    Model::from_gguf_bytes(&with_metadata(spec, key, Some(Value::Array(values)))).unwrap()
}

/// User-defined tokens (Gemma's runs of spaces, tabs and newlines, its HTML tags) are cut out
/// of the text before anything merges, typed or not, as llama.cpp and SentencePiece do: here
/// the piece "he" made one.
#[test]
fn user_defined_tokens_are_cut_out_before_merging() {
    let plain = spm();
    let id = |p: &str| piece(&plain.tokenizer, p);
    let spec = TinyModel { sentencepiece: true, user_defined: &["he"], ..TinyModel::default() };
    let m = Model::from_gguf_bytes(&spec.to_gguf()).unwrap();
    let t = &m.tokenizer;
    // Merged from characters, " the" is one piece; with "he" cut out first, it cannot be.
    assert_eq!(plain.tokenizer.encode(" the", false).unwrap(), [id("▁the")]);
    for special in [false, true] {
        assert_eq!(t.encode(" the", special).unwrap(), [id("▁t"), id("he")], "special {special}");
        assert_eq!(t.encode("ahead", special).unwrap(), [id("a"), id("he"), id("a"), id("d")]);
        assert_eq!(t.decode(&t.encode("the hearth", special).unwrap()), "the hearth");
    }
}

/// A control token whose text is empty matches nothing (it matched everywhere, so encoding
/// with control tokens never ended); user-defined tokens are found the same way.
#[test]
fn an_empty_token_text_matches_nothing() {
    let plain = spm();
    let end = plain.tokenizer.control_id("<end_of_turn>").unwrap();
    let mut tokens = spm_array("tokenizer.ggml.tokens");
    tokens[end as usize] = Value::String(String::new());
    let m = spm_with("tokenizer.ggml.tokens", tokens);
    let text = "<start_of_turn>user\nhi";
    assert_eq!(m.tokenizer.encode(text, true).unwrap(), plain.tokenizer.encode(text, true).unwrap());
    assert!(!m.tokenizer.encode(text, true).unwrap().contains(&end));
}

#[test]
fn each_bpe_pre_tokenizer_splits_digits_its_own_way() {
    // The tiny vocabulary has no multi-digit tokens, so digits are counted by byte either
    // way; what differs is where a space may join: "Ġ1" is a merge.
    let digits = |pre: &str| {
        let b = with_metadata(TinyModel::default(), "tokenizer.ggml.pre", Some(Value::String(pre.into())));
        let m = Model::from_gguf_bytes(&b).unwrap();
        let ids = m.tokenizer.encode("a 123", false).unwrap();
        assert_eq!(m.tokenizer.decode(&ids), "a 123", "{pre}");
        ids.len()
    };
    // smollm and qwen2 split every digit alone (" ", "1", "2", "3"); gpt2 keeps " 123"
    // together, so " 1" merges.
    assert_eq!(digits("smollm"), digits("qwen2"));
    assert_eq!(digits("gpt2") + 1, digits("smollm"));
    assert_eq!(digits("llama-bpe"), digits("gpt2") + 1, "llama-bpe's numbers take no space");
}

#[test]
fn unknown_tokenizers_are_refused_by_name() {
    let b = with_metadata(TinyModel::default(), "tokenizer.ggml.pre", Some(Value::String("tekken".into())));
    assert!(load_error(&b).contains("tokenizer.ggml.pre is 'tekken'"));
    let b = with_metadata(TinyModel::default(), "tokenizer.ggml.model", Some(Value::String("bert".into())));
    assert!(load_error(&b).contains("tokenizer.ggml.model is 'bert'"));
    let spec = TinyModel { sentencepiece: true, ..TinyModel::default() };
    let b = with_metadata(spec.clone(), "tokenizer.ggml.scores", None);
    assert!(load_error(&b).contains("tokenizer.ggml.scores"));
    let b = with_metadata(spec, "tokenizer.ggml.eot_token_id", Some(Value::U32(100_000)));
    assert!(load_error(&b).contains("tokenizer.ggml.eot_token_id is not a token id inside the vocabulary"));
}

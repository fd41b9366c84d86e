//! The tokenizer read from any file's metadata: SentencePiece (Gemma's layout) on the tiny
//! model's SentencePiece vocabulary, the byte-level BPE pre-tokenizers, and clear errors
//! for what the engine does not read. SmolLM2's own ids are checked in tokenizer.rs.

mod common;
use candle_core::quantized::gguf_file::Value;
use common::{load_error, with_metadata};
use engine::testing::TinyModel;
use engine::tokenizer::TokenizerKind;
use engine::Model;

fn spm() -> Model {
    Model::from_gguf_bytes(&TinyModel { sentencepiece: true, ..TinyModel::default() }.to_gguf()).unwrap()
}

#[test]
fn sentencepiece_merges_by_score_and_falls_back_to_bytes() {
    let m = spm();
    let t = &m.tokenizer;
    assert_eq!(t.kind, TokenizerKind::SentencePiece);
    // A piece's id: pieces follow the byte tokens, which decode to the same text ("t").
    let id =
        |piece: &str| (0..t.vocab_size() as u32).rev().find(|&i| t.token_text(i) == piece.replace('▁', " ")).unwrap();
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

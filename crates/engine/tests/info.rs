//! `engine::gguf::info`: a file described from its header alone, on the real SmolLM2 file
//! and on a small file of each architecture; and a truncated or corrupted file refused
//! with a clear error, never a panic. (The real Gemma 3 file's info is checked in gemma.rs;
//! corrupted headers, in bad_models.rs, go through `info` as through loading.)

mod common;
use candle_core::quantized::gguf_file::{Content, Value};
use common::{real_bytes, with_metadata};
use engine::gguf::info::{info, Info};
use engine::testing::TinyModel;
use engine::Model;
use std::io::Cursor;

fn info_of(bytes: &[u8]) -> engine::Result<Info> {
    info(&mut Cursor::new(bytes))
}

/// What loading the file gives, which `info` must agree with without reading a weight.
fn assert_agrees_with_loading(i: &Info, bytes: &[u8]) {
    let m = Model::from_gguf_bytes(bytes).unwrap();
    let c = &m.config;
    assert_eq!(i.architecture, c.architecture.name());
    assert_eq!(
        (i.layers, i.heads, i.kv_heads, i.head_dim, i.embedding, i.vocab, i.context),
        (c.layers, c.heads, c.kv_heads, c.head_dim, c.embedding, c.vocab, c.context)
    );
    assert_eq!(i.sliding_window, c.sliding_window);
    assert_eq!(i.chat_template, m.has_chat_template());
    assert_eq!(i.file_bytes, bytes.len() as u64);
}

#[test]
fn the_real_smollm2_file() {
    let bytes = real_bytes();
    let i = info_of(&bytes).unwrap();
    assert_eq!(i.architecture, "llama");
    assert_eq!((i.layers, i.heads, i.kv_heads, i.head_dim), (30, 9, 3, 64));
    assert_eq!((i.embedding, i.vocab, i.context), (576, 49152, 8192));
    // The file's own mix: Q4_1 matrices, its tied embedding in Q8_0, norms in F32; 30 layers
    // of 9 tensors, plus the embedding and the final norm.
    let types: Vec<(&str, usize)> = i.tensor_types.iter().map(|(k, v)| (*k, *v)).collect();
    assert_eq!(types, [("F32", 61), ("Q4_1", 210), ("Q8_0", 1)]);
    assert_eq!(i.tensor_types.values().sum::<usize>(), 30 * 9 + 2);
    // SmolLM2-135M: 134,515,008 parameters, its 28.3 M-parameter embedding counted once (tied).
    assert_eq!(i.parameters, 134_515_008);
    assert!(i.chat_template);
    assert_eq!(i.sliding_window, None);
    assert_agrees_with_loading(&i, &bytes);
    let json = serde_json::to_value(&i).unwrap();
    for key in ["architecture", "parameters", "layers", "heads", "kv_heads", "head_dim", "vocab", "context"] {
        assert!(json.get(key).is_some(), "{key} missing from {json}");
    }
    assert_eq!(json["tensor_types"]["Q4_1"], 210);
}

/// Every architecture's small file: the same numbers loading reads. Stored as F32, its
/// parameters are its tensor data's bytes / 4, which the file's size bounds independently of
/// how `info` counts (between them lie only the header and up to 32 bytes of alignment
/// padding per tensor).
#[test]
fn a_small_file_of_each_architecture() {
    for arch in ["llama", "qwen2", "qwen3", "gemma3"] {
        let head_dim = matches!(arch, "qwen3" | "gemma3").then_some(32);
        for f32_weights in [false, true] {
            let spec = TinyModel { architecture: arch.into(), head_dim, f32_weights, ..TinyModel::default() };
            let bytes = spec.to_gguf();
            let i = info_of(&bytes).unwrap();
            assert_agrees_with_loading(&i, &bytes);
            assert_eq!(i.name, None);
            assert_eq!(i.sliding_window.is_some(), arch == "gemma3");
            let content = Content::read(&mut Cursor::new(&bytes)).unwrap();
            let tensors = content.tensor_infos.len();
            assert_eq!(i.tensor_types.values().sum::<usize>(), tensors, "{arch}");
            if f32_weights {
                assert_eq!(i.tensor_types.keys().collect::<Vec<_>>(), [&"F32"], "{arch}");
                let data = bytes.len() as u64 - content.tensor_data_offset;
                assert!(
                    i.parameters * 4 <= data && data < i.parameters * 4 + 32 * tensors as u64,
                    "{arch}: {} parameters in {data} bytes of F32 data",
                    i.parameters
                );
            } else {
                let types: Vec<&str> = i.tensor_types.keys().copied().collect();
                assert_eq!(types, ["F32", "Q4_1", "Q8_0"], "{arch}");
                assert_eq!(i.tensor_types["Q8_0"], 1, "{arch}: the embedding");
            }
        }
    }
}

#[test]
fn name_and_chat_template_come_from_the_metadata() {
    let named = with_metadata(TinyModel::default(), "general.name", Some(Value::String("Tiny".into())));
    assert_eq!(info_of(&named).unwrap().name.as_deref(), Some("Tiny"));
    // The tiny model carries a ChatML template; without it, the file is a base model.
    assert!(info_of(&TinyModel::default().to_gguf()).unwrap().chat_template);
    let base = with_metadata(TinyModel::default(), "tokenizer.chat_template", None);
    assert!(!info_of(&base).unwrap().chat_template);
}

/// Cut in the header: the header's error. Cut in the tensor data: the first tensor cut is
/// named. Never a panic, never a description of a file that is not all there.
#[test]
fn a_truncated_file_is_refused_with_a_clear_error() {
    let bytes = TinyModel::default().to_gguf();
    let data = Content::read(&mut Cursor::new(&bytes)).unwrap().tensor_data_offset as usize;
    for cut in [0, 3, 8, 24, 100, 1000, data / 2, data + 1, (data + bytes.len()) / 2, bytes.len() - 1] {
        let e = info_of(&bytes[..cut]).unwrap_err().to_string();
        let expected = match cut {
            0 => "empty",
            1..4 => "not a GGUF",
            c if c < data => "truncated",
            _ => "lies past the end of the file",
        };
        assert!(e.contains(expected), "cut at {cut} of {}: {e}", bytes.len());
    }
}

/// A tensor whose dimensions the header makes absurd (each 2^62: their product overflows any
/// integer) is refused as not lying inside the file, by `info` and by loading alike.
#[test]
fn dimensions_that_multiply_past_any_integer_are_refused() {
    let mut bytes = TinyModel::default().to_gguf();
    let name = b"blk.0.attn_q.weight";
    // In the tensor directory: the name, then its dimension count (u32), then the dimensions (u64 each).
    let at = bytes.windows(name.len()).rposition(|w| w == name).unwrap() + name.len();
    let dims = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(dims, 2);
    for d in 0..dims {
        let o = at + 4 + 8 * d;
        bytes[o..o + 8].copy_from_slice(&(1u64 << 62).to_le_bytes());
    }
    let e = info_of(&bytes).unwrap_err().to_string();
    assert!(e.contains("tensor blk.0.attn_q.weight lies past the end of the file"), "{e}");
    let e = common::load_error(&bytes);
    assert!(e.contains("blk.0.attn_q.weight"), "{e}");
}

#[test]
fn refusals_match_loadings() {
    let mamba = TinyModel { architecture: "mamba".into(), ..TinyModel::default() }.to_gguf();
    assert!(info_of(&mamba).unwrap_err().to_string().contains("architecture is 'mamba'"));
    let no_window = with_metadata(
        TinyModel { architecture: "gemma3".into(), head_dim: Some(32), ..TinyModel::default() },
        "gemma3.attention.sliding_window",
        None,
    );
    assert!(info_of(&no_window).unwrap_err().to_string().contains("gemma3.attention.sliding_window is missing"));
}

#[test]
fn a_files_sampling_keys_are_shown_and_set_llama_cpps_row() {
    use common::with_entries;
    use engine::sampler::Stage;
    use engine::systems::{preset, Overrides};
    let llama = preset("llama.cpp").unwrap();
    // Without keys: nothing to show, and the preset is unchanged.
    let plain = TinyModel::default().to_gguf();
    assert_eq!(info_of(&plain).unwrap().sampling, None);
    let model = Model::from_gguf_bytes(&plain).unwrap();
    assert_eq!(llama.with_file(model.sampling.as_ref()), *llama);
    let bytes = with_entries(
        TinyModel::default(),
        &[
            ("general.sampling.sequence", Value::String("penalties;temperature;top_k;top_p;xtc".into())),
            ("general.sampling.top_k", Value::I32(20)),
            ("general.sampling.temp", Value::F32(0.6)),
            ("general.sampling.min_p", Value::F32(0.5)),
            ("general.sampling.top_p", Value::F32(7.0)),
            ("general.sampling.xtc_probability", Value::F32(0.1)),
        ],
    );
    let sampling = info_of(&bytes).unwrap().sampling.expect("the file's keys");
    assert_eq!((sampling.top_k, sampling.temp, sampling.min_p), (Some(20), Some(0.6), Some(0.5)));
    assert_eq!(sampling.top_p, None, "a top_p of 7 is out of range, so not used");
    assert_eq!(sampling.ignored.len(), 2, "{:?}", sampling.ignored);
    assert!(sampling.ignored.iter().any(|i| i.starts_with("general.sampling.top_p: not from 0 to 1")));
    assert!(sampling.ignored.iter().any(|i| i.starts_with("general.sampling.xtc_probability")));
    let model = Model::from_gguf_bytes(&bytes).unwrap();
    assert_eq!(model.sampling.as_ref(), Some(&sampling));
    // llama.cpp's row runs the file's sequence: temperature first here, and min-p, which the
    // sequence leaves out, does not run (its 0.5 with it).
    let row = llama.with_file(Some(&sampling)).settings(&Overrides::default(), 0).unwrap();
    assert_eq!(row.order, [Stage::Temperature, Stage::TopK, Stage::TopP, Stage::MinP]);
    assert_eq!((row.temperature, row.top_k, row.top_p, row.min_p), (0.6, 20, 0.95, 0.0));
    // A setting the user gives still wins, and other systems ignore the file.
    let mine = llama.with_file(Some(&sampling)).settings(&Overrides { top_k: Some(3), ..Overrides::default() }, 0);
    assert_eq!(mine.unwrap().top_k, 3);
    let ollama = preset("ollama").unwrap();
    assert_eq!(ollama.with_file(Some(&sampling)), *ollama);
}

//! Block types in untrusted files: a type the engine does not run, a NaN scale and a
//! K-quant tensor cut short each give one clear sentence naming the tensor, never a panic.

use candle_core::quantized::GgmlDType;
use engine::quant::requantize::{requantize, Scheme};
use engine::testing::{tensor_data_at, with_tensor_type, TinyModel};
use engine::Model;

fn err(bytes: &[u8]) -> String {
    match Model::from_gguf_bytes(bytes) {
        Ok(_) => panic!("a bad file loaded"),
        Err(e) => e.to_string(),
    }
}

/// A tiny model 256 wide, so that its matrices can be K-quants.
fn wide() -> TinyModel {
    TinyModel { layers: 1, heads: 2, kv_heads: 1, embedding: 256, ffn: 32, context: 64, ..TinyModel::default() }
}

#[test]
fn every_type_loads_and_runs_in_a_tiny_model() {
    for t in [
        GgmlDType::Q4_0,
        GgmlDType::Q5_0,
        GgmlDType::Q5_1,
        GgmlDType::Q2K,
        GgmlDType::Q3K,
        GgmlDType::Q4K,
        GgmlDType::Q5K,
        GgmlDType::Q6K,
        GgmlDType::BF16,
        GgmlDType::F16,
    ] {
        let bytes = requantize(&wide().to_gguf(), Scheme::All(t)).unwrap();
        let m = Model::from_gguf_bytes(&bytes).unwrap_or_else(|e| panic!("{t:?}: {e}"));
        let logits = m
            .forward(&[1, 2, 3], 0, &mut engine::kv_cache::KvCache::new(&m.config), 1, engine::arch::Logits::Last)
            .unwrap();
        assert!(logits.iter().all(|v| v.is_finite()), "{t:?}");
    }
}

#[test]
fn an_iq_type_is_refused_naming_the_tensor_and_its_type() {
    let bytes = with_tensor_type(&TinyModel::default().to_gguf(), "blk.0.attn_q.weight", 20);
    assert_eq!(
        err(&bytes),
        "invalid model file: tensor blk.0.attn_q.weight has type IQ4_NL (ggml type 20), which this engine does not \
         run (it runs Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, F16, BF16 and F32)"
    );
    let bytes = with_tensor_type(&TinyModel::default().to_gguf(), "blk.0.ffn_up.weight", 35);
    assert!(err(&bytes).contains("tensor blk.0.ffn_up.weight has type TQ2_0 (ggml type 35)"));
}

#[test]
fn a_nan_scale_is_refused_naming_the_tensor() {
    let mut bytes = requantize(&wide().to_gguf(), Scheme::All(GgmlDType::Q6K)).unwrap();
    // Q6_K keeps its f16 scale d in the last 2 of each super-block's 210 bytes.
    let at = tensor_data_at(&bytes, "blk.0.attn_q.weight") + 208;
    bytes[at..at + 2].copy_from_slice(&half::f16::NAN.to_le_bytes());
    assert_eq!(
        err(&bytes),
        "invalid model file: tensor blk.0.attn_q.weight has a block whose scale is NaN; the file is corrupt"
    );
}

#[test]
fn a_k_quant_file_cut_inside_a_block_is_refused() {
    let bytes = requantize(&wide().to_gguf(), Scheme::All(GgmlDType::Q4K)).unwrap();
    let cut = tensor_data_at(&bytes, "output_norm.weight") - 100;
    let e = err(&bytes[..cut]);
    assert!(e.contains("lies past the end of the file"), "{e}");
}

/// The fuzz corpus's block-type seeds (crates/engine/fuzz/corpus/gguf_load/type-*.gguf,
/// written by examples/fuzz_seeds.rs) are what their names say: each type loads and runs,
/// and each broken copy is refused with its own message.
#[test]
fn the_fuzz_corpus_type_seeds_load_or_say_what_is_wrong() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/gguf_load");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(kind) = name.strip_prefix("type-").and_then(|n| n.strip_suffix(".gguf")) else { continue };
        let bytes = std::fs::read(&path).unwrap();
        let result = Model::from_gguf_bytes(&bytes);
        let expected = match kind {
            "q2_k-nan-scale" => Some("has a block whose scale is NaN"),
            "iq4_nl" => Some("has type IQ4_NL"),
            "q2_k-cut-in-block" => Some("lies past the end of the file"),
            _ => None,
        };
        match (result, expected) {
            (Ok(m), None) => {
                let cache = &mut engine::kv_cache::KvCache::new(&m.config);
                let logits = m.forward(&[1, 2], 0, cache, m.config.layers, engine::arch::Logits::Last).unwrap();
                assert!(logits.iter().all(|v| v.is_finite()), "{name}");
            }
            (Err(e), Some(want)) => assert!(e.to_string().contains(want), "{name}: {e}"),
            (r, _) => panic!("{name}: {:?}", r.err()),
        }
        seen += 1;
    }
    assert_eq!(seen, 13, "the type seeds in {}", dir.display());
}

//! Every block type the engine runs, on the real model: a copy of the built-in SmolLM2
//! requantised to that type (made here, at run time, from its dequantised weights) gives
//! the logits of the plain-f32 reference computed from the same copy's dequantised
//! weights, to within mean |Δlogit| ≤ 1e-3, over the whole vocabulary and over the
//! reference's top 20 (the largest logits, where errors are largest). The engine runs
//! the quantised blocks with ggml's arithmetic, so the only difference left is the order
//! of the additions; a wrong bit field or scale would move the logits by far more.

mod common;
use candle_core::quantized::GgmlDType;
use common::*;
use engine::quant::requantize::{requantize, Scheme};
use engine::reference::{logit_error, Reference, CHECK_PROMPTS};
use engine::Model;

/// A few prompts keep each type's run short; together they still reach every matrix.
const PROMPTS: usize = 3;

fn check(scheme: Scheme) {
    let bytes = requantize(&real_bytes(), scheme).unwrap();
    let model = Model::from_gguf_bytes(&bytes).unwrap();
    let reference = Reference::from_gguf_bytes(&bytes).unwrap();
    let e = logit_error(&model, &reference, &CHECK_PROMPTS[..PROMPTS], 20).unwrap();
    eprintln!("{scheme:?}: {e:?}");
    assert!(e.mean_abs_vocab <= 1e-3, "{scheme:?}: mean |Δlogit| {} over the vocabulary", e.mean_abs_vocab);
    assert!(e.mean_abs <= 1e-3, "{scheme:?}: mean |Δlogit| {} over the reference top-20", e.mean_abs);
    assert_eq!(e.argmax_disagreements, 0, "{scheme:?}");
}

macro_rules! types {
    ($($test:ident: $scheme:expr,)*) => {$(
        #[test]
        fn $test() {
            check($scheme)
        }
    )*};
}

types! {
    q4_0: Scheme::All(GgmlDType::Q4_0),
    q4_1: Scheme::All(GgmlDType::Q4_1),
    q5_0: Scheme::All(GgmlDType::Q5_0),
    q5_1: Scheme::All(GgmlDType::Q5_1),
    q8_0: Scheme::All(GgmlDType::Q8_0),
    q2_k: Scheme::All(GgmlDType::Q2K),
    q3_k: Scheme::All(GgmlDType::Q3K),
    q4_k: Scheme::All(GgmlDType::Q4K),
    q5_k: Scheme::All(GgmlDType::Q5K),
    q6_k: Scheme::All(GgmlDType::Q6K),
    q4_k_m: Scheme::Q4KM,
    f16: Scheme::All(GgmlDType::F16),
    bf16: Scheme::All(GgmlDType::BF16),
    f32: Scheme::All(GgmlDType::F32),
}

/// The K-quant copies do hold K-quant matrices (ffn_down's 1536-wide rows), beside the
/// legacy fallback for the 576-wide ones: the tests above run both kinds in one file.
#[test]
fn k_quant_copies_mix_types_as_llama_cpp_does() {
    let bytes = requantize(&real_bytes(), Scheme::Q4KM).unwrap();
    let content = engine::gguf::read_gguf(&mut std::io::Cursor::new(&bytes)).unwrap();
    let of = |name: &str| content.tensor_infos[name].ggml_dtype;
    assert_eq!(of("blk.0.ffn_down.weight"), GgmlDType::Q6K);
    assert_eq!(of("blk.3.ffn_down.weight"), GgmlDType::Q4K);
    assert_eq!(of("blk.0.attn_q.weight"), GgmlDType::Q5_0);
    assert_eq!(of("blk.0.attn_norm.weight"), GgmlDType::F32);
}

//! The opt-in integer arithmetic (`quant/int16.rs`: Q4_0, Q4_1, Q5_0 and Q8_0 matrices):
//! off by default and leaving the exact pass untouched; on, its decode logits stay within
//! a mean |Δlogit| of 1e-3 of the plain-f32 reference, on copies of SmolLM2 in each of those
//! types; batched decode still equals unbatched; and `probe::integer` measures
//! what it changes. (Threads equal one thread: `threads.rs`.) Each test loads its own model: the
//! setting belongs to the model, and tests run side by side.

mod common;
use candle_core::quantized::GgmlDType;
use common::*;
use engine::arch::{Logits, Model};
use engine::kv_cache::KvCache;
use engine::probe::integer::{integer_deviation, MAX_STEPS};
use candle_core::quantized::gguf_file;
use engine::quant::requantize::{requantize, Scheme};
use engine::reference::{Reference, CHECK_PROMPTS};
use std::time::Instant;

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The last token's logits, decoded as one step after the rest of `ids` is prefilled.
fn decode_last(m: &Model, ids: &[u32]) -> Vec<f32> {
    let (layers, n) = (m.config.layers, ids.len());
    let mut cache = KvCache::new(&m.config);
    m.forward(&ids[..n - 1], 0, &mut cache, layers, Logits::Last).unwrap();
    m.forward(&ids[n - 1..], n - 1, &mut cache, layers, Logits::Last).unwrap()
}

fn chat_ids(m: &Model, prompt: &str) -> Vec<u32> {
    engine::prompt_tokens(&m.tokenizer, prompt, false, engine::SystemPrompt::Default).unwrap()
}

fn clock() -> impl Fn() -> f64 {
    let t0 = Instant::now();
    move || t0.elapsed().as_secs_f64() * 1000.0
}

#[test]
fn off_by_default_and_turning_it_off_gives_the_exact_pass_back() {
    let m = Model::from_gguf_bytes(&real_bytes()).unwrap();
    assert!(!m.integer_activations());
    let ids = chat_ids(&m, CHECK_PROMPTS[0]);
    let exact = decode_last(&m, &ids);
    m.set_integer_activations(true);
    let integer = decode_last(&m, &ids);
    m.set_integer_activations(false);
    assert_eq!(bits(&exact), bits(&decode_last(&m, &ids)));
    // The built-in file's matrices are Q4_1 and Q8_0, so the setting does change its logits.
    assert_ne!(bits(&exact), bits(&integer));
}

/// Each type's copy, decoding its last prompt token with integer arithmetic, against the
/// plain-f32 reference of the same copy. Rounding the activations to 16 bits moves the logits
/// by about 1e-3 on average (measured: 2e-4 to 1.2e-3 per prompt, depending on where the
/// roundings fall), where the exact path stays within 1e-5 (quant_types.rs holds it to 1e-3
/// on every prompt): here each prompt within 3e-3, the type's mean over them within 1e-3,
/// and the same greedy token. A wrong unpacking or scale moves the logits by 0.1 and more.
fn near_the_reference(dtype: GgmlDType) {
    let bytes = requantize(&real_bytes(), Scheme::All(dtype)).unwrap();
    let (m, reference) = (Model::from_gguf_bytes(&bytes).unwrap(), Reference::from_gguf_bytes(&bytes).unwrap());
    m.set_integer_activations(true);
    assert_eq!(m.integer_share(), 1.0);
    let mut means = Vec::new();
    for prompt in &CHECK_PROMPTS[..3] {
        let ids = chat_ids(&m, prompt);
        let (ours, theirs) = (decode_last(&m, &ids), reference.logits(&ids).unwrap());
        let mean = ours.iter().zip(&theirs).map(|(a, b)| (a - b).abs() as f64).sum::<f64>() / ours.len() as f64;
        eprintln!("{dtype:?} {prompt:?}: mean |Δlogit| {mean:.2e}, max {:.2e}", max_abs_diff(&ours, &theirs));
        assert!(mean <= 3e-3, "{dtype:?} {prompt:?}: mean |Δlogit| {mean}");
        assert_eq!(argmax(&ours), argmax(&theirs), "{dtype:?} {prompt:?}: the greedy token moved");
        means.push(mean);
    }
    let mean = means.iter().sum::<f64>() / means.len() as f64;
    assert!(mean <= 1e-3, "{dtype:?}: mean |Δlogit| {mean} over the prompts");
}

#[test]
fn integer_decode_of_q4_0_stays_near_the_plain_f32_reference() {
    near_the_reference(GgmlDType::Q4_0)
}

#[test]
fn integer_decode_of_q4_1_stays_near_the_plain_f32_reference() {
    near_the_reference(GgmlDType::Q4_1)
}

#[test]
fn integer_decode_of_q5_0_stays_near_the_plain_f32_reference() {
    near_the_reference(GgmlDType::Q5_0)
}

#[test]
fn integer_decode_of_q8_0_stays_near_the_plain_f32_reference() {
    near_the_reference(GgmlDType::Q8_0)
}

#[test]
fn batched_integer_decode_equals_each_sequence_alone() {
    let m = Model::from_gguf_bytes(&real_bytes()).unwrap();
    m.set_integer_activations(true);
    let layers = m.config.layers;
    let prompts = [vec![1u32, 504, 2014], vec![1, 9690, 198, 30, 77], vec![1, 40]];
    let mut caches: Vec<KvCache> = prompts
        .iter()
        .map(|p| {
            let mut c = KvCache::new(&m.config);
            m.forward(p, 0, &mut c, layers, Logits::Last).unwrap();
            c
        })
        .collect();
    let tokens = [11u32, 2000, 30_000];
    let alone: Vec<u32> = caches
        .iter()
        .zip(&tokens)
        .flat_map(|(c, &t)| bits(&m.forward(&[t], c.len(), &mut c.clone(), layers, Logits::Last).unwrap()))
        .collect();
    let mut refs: Vec<&mut KvCache> = caches.iter_mut().collect();
    assert_eq!(alone, bits(&m.forward_batch(&tokens, &mut refs).unwrap()));
}

#[test]
fn the_measurement_compares_both_ways_and_leaves_the_setting_as_it_was() {
    let m = Model::from_gguf_bytes(&real_bytes()).unwrap();
    let ids = chat_ids(&m, "What is the capital of France?");
    let d = integer_deviation(&m, &ids, 8, &clock()).unwrap();
    eprintln!("{d:?}");
    assert!(!m.integer_activations());
    assert_eq!(d.steps, 8);
    assert!(d.mean_abs > 0.0 && d.mean_abs <= 1e-3, "mean |Δlogit| {}", d.mean_abs);
    assert!(d.max_abs as f64 >= d.mean_abs);
    assert!(d.same_greedy <= 8 && d.exact_ms > 0.0 && d.integer_ms > 0.0);
    // SmolLM2's matrices are Q4_1, its embedding (also its output head) Q8_0: all of them.
    assert_eq!(d.integer_share, 1.0);
    // On: the same measurement, and the setting stays on.
    m.set_integer_activations(true);
    let again = integer_deviation(&m, &ids, 8, &clock()).unwrap();
    assert!(m.integer_activations());
    assert_eq!((again.mean_abs, again.max_abs, again.same_greedy), (d.mean_abs, d.max_abs, d.same_greedy));
}

/// The Q4_K_M copy mixes types (Q4_K and Q6_K where rows are whole super-blocks, Q5_0 and
/// Q8_0 where they are not): the share counts, from the file's own header, the weights of a
/// step's matrices whose type has integer arithmetic.
#[test]
fn the_share_counts_the_matrices_whose_type_has_integer_arithmetic() {
    let bytes = requantize(&real_bytes(), Scheme::Q4KM).unwrap();
    let m = Model::from_gguf_bytes(&bytes).unwrap();
    let content = gguf_file::Content::read(&mut std::io::Cursor::new(&bytes)).unwrap();
    let head = if content.tensor_infos.contains_key("output.weight") { "output.weight" } else { "token_embd.weight" };
    let (mut integer, mut all) = (0usize, 0usize);
    for (name, t) in &content.tensor_infos {
        let matrix = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"]
            .iter()
            .any(|p| name.starts_with("blk.") && name.ends_with(&format!(".{p}.weight")));
        if matrix || name == head {
            let n = t.shape.elem_count();
            all += n;
            if matches!(t.ggml_dtype, GgmlDType::Q4_0 | GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q8_0) {
                integer += n;
            }
        }
    }
    let share = integer as f64 / all as f64;
    eprintln!("Q4_K_M: {:.1} % of a step's weights have integer arithmetic", share * 100.0);
    assert!(share > 0.0 && share < 1.0);
    assert_eq!(m.integer_share(), share);
}

#[test]
fn a_model_without_such_matrices_is_unchanged() {
    let m = Model::from_gguf_bytes(&requantize(&real_bytes(), Scheme::All(GgmlDType::F16)).unwrap()).unwrap();
    let ids = chat_ids(&m, CHECK_PROMPTS[1]);
    let d = integer_deviation(&m, &ids, 2, &clock()).unwrap();
    assert_eq!((d.integer_share, d.mean_abs, d.max_abs, d.same_greedy), (0.0, 0.0, 0.0, 2));
}

#[test]
fn out_of_range_measurements_are_refused_with_their_range() {
    let m = tiny();
    let e = integer_deviation(&m, &[1, 2], 0, &clock()).unwrap_err().to_string();
    assert!(e.contains(&format!("1..={MAX_STEPS}")), "{e}");
    assert!(integer_deviation(&m, &[1, 2], MAX_STEPS + 1, &clock()).is_err());
    let e = integer_deviation(&m, &[], 4, &clock()).unwrap_err().to_string();
    assert!(e.contains("prompt of 1 to"), "{e}");
}

//! The opt-in integer arithmetic for Q8_0 matrices (`quant/int16.rs`): off by default and
//! leaving the exact pass untouched; on, its decode logits stay within the mean
//! |Δlogit| ≤ 1e-3 of the plain-f32 reference, on a copy of SmolLM2 whose every matrix is
//! Q8_0; batched decode still equals unbatched; and `probe::integer` measures what it
//! changes. (Threads equal one thread: `threads.rs`.) Each test loads its own model: the
//! setting belongs to the model, and tests run side by side.

mod common;
use candle_core::quantized::GgmlDType;
use common::*;
use engine::arch::{Logits, Model};
use engine::kv_cache::KvCache;
use engine::probe::integer::{integer_deviation, MAX_STEPS};
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
    // The built-in file's output head is Q8_0, so the setting does change its logits.
    assert_ne!(bits(&exact), bits(&integer));
}

#[test]
fn integer_decode_of_an_all_q8_0_model_stays_within_1e_3_of_the_plain_f32_reference() {
    let bytes = requantize(&real_bytes(), Scheme::All(GgmlDType::Q8_0)).unwrap();
    let (m, reference) = (Model::from_gguf_bytes(&bytes).unwrap(), Reference::from_gguf_bytes(&bytes).unwrap());
    m.set_integer_activations(true);
    assert_eq!(m.q8_0_share(), 1.0);
    for prompt in &CHECK_PROMPTS[..3] {
        let ids = chat_ids(&m, prompt);
        let (ours, theirs) = (decode_last(&m, &ids), reference.logits(&ids).unwrap());
        let mean = ours.iter().zip(&theirs).map(|(a, b)| (a - b).abs() as f64).sum::<f64>() / ours.len() as f64;
        eprintln!("{prompt:?}: mean |Δlogit| {mean:.2e}, max {:.2e}", max_abs_diff(&ours, &theirs));
        assert!(mean <= 1e-3, "{prompt:?}: mean |Δlogit| {mean}");
        assert_eq!(argmax(&ours), argmax(&theirs), "{prompt:?}: the greedy token moved");
    }
}

#[test]
fn batched_integer_decode_equals_each_sequence_alone() {
    let m = Model::from_gguf_bytes(&requantize(&real_bytes(), Scheme::All(GgmlDType::Q8_0)).unwrap()).unwrap();
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
    // SmolLM2's Q8_0 matrix is its embedding, which is also its output head.
    let c = &m.config;
    let layer = c.embedding * (2 * c.q_dim() + 2 * c.kv_dim()) + 3 * c.embedding * c.ffn;
    let head = c.vocab * c.embedding;
    assert_eq!(d.q8_0_share, head as f64 / (head + c.layers * layer) as f64);
    // On: the same measurement, and the setting stays on.
    m.set_integer_activations(true);
    let again = integer_deviation(&m, &ids, 8, &clock()).unwrap();
    assert!(m.integer_activations());
    assert_eq!((again.mean_abs, again.max_abs, again.same_greedy), (d.mean_abs, d.max_abs, d.same_greedy));
}

#[test]
fn a_model_without_q8_0_matrices_is_unchanged() {
    let m = Model::from_gguf_bytes(&requantize(&real_bytes(), Scheme::All(GgmlDType::Q4_0)).unwrap()).unwrap();
    let ids = chat_ids(&m, CHECK_PROMPTS[1]);
    let d = integer_deviation(&m, &ids, 2, &clock()).unwrap();
    assert_eq!((d.q8_0_share, d.mean_abs, d.max_abs, d.same_greedy), (0.0, 0.0, 0.0, 2));
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

//! Qwen2, Qwen3, Gemma 3 and Llama 3's RoPE factors on small random GGUF files (`TinyModel`), against references
//! that share no code with the engine: candle-transformers 0.11.1's own implementations,
//! run on the same file with every tensor stored as F32 (the values the engine reads in
//! their quantised form), so the reference computes in plain f32. Then every feature that
//! runs a pass (cache, probe hooks, early exit, batch, speculative, threads) on each.

mod common;
#[path = "common/gemma3_reference.rs"]
mod gemma3_reference;
use gemma3_reference::Gemma3Reference;
use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use engine::arch::{Logits, Model};
use engine::kv_cache::KvCache;
use engine::probe::{AttentionCapture, Probe};
use engine::sampler::SamplerSettings;
use engine::speculative::Draft;
use engine::testing::TinyModel;
use std::io::Cursor;
use std::sync::Arc;

/// Gemma 3's head size differs from embedding / heads, as in the real 270M (256 vs 640 / 4);
/// its window (4 positions, every 3rd layer global) is shorter than the prompt.
fn tiny(arch: &str) -> TinyModel {
    let head_dim = matches!(arch, "qwen3" | "gemma3").then_some(32);
    TinyModel { architecture: arch.into(), head_dim, ..TinyModel::default() }
}

fn prompt(len: u32) -> Vec<u32> {
    (0..len).map(|i| (i * 37 + 11) % 290 + 1).collect()
}

fn engine_logits(bytes: &[u8], tokens: &[u32]) -> Vec<f32> {
    let m = Model::from_gguf_bytes(bytes).unwrap();
    m.forward(tokens, 0, &mut KvCache::new(&m.config), m.config.layers, Logits::Last).unwrap()
}

fn input(tokens: &[u32]) -> Tensor {
    Tensor::new(tokens, &Device::Cpu).unwrap().unsqueeze(0).unwrap()
}

fn last_row(t: Tensor) -> Vec<f32> {
    t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
}

fn qwen2_reference(bytes: &[u8], tokens: &[u32]) -> Vec<f32> {
    use candle_transformers::models::quantized_qwen2::ModelWeights;
    let mut r = Cursor::new(bytes);
    let content = gguf_file::Content::read(&mut r).unwrap();
    let mut m = ModelWeights::from_gguf(content, &mut r, &Device::Cpu).unwrap();
    last_row(m.forward(&input(tokens), 0).unwrap())
}

fn qwen3_reference(bytes: &[u8], tokens: &[u32]) -> Vec<f32> {
    use candle_transformers::models::quantized_qwen3::ModelWeights;
    let mut r = Cursor::new(bytes);
    let content = gguf_file::Content::read(&mut r).unwrap();
    let mut m = ModelWeights::from_gguf(content, &mut r, &Device::Cpu).unwrap();
    last_row(m.forward(&input(tokens), 0).unwrap())
}

/// Mean and largest |Δ| between two logit vectors.
fn distance(ours: &[f32], want: &[f32]) -> (f64, f64) {
    assert_eq!(ours.len(), want.len());
    let d: Vec<f64> = ours.iter().zip(want).map(|(a, b)| (a - b).abs() as f64).collect();
    (d.iter().sum::<f64>() / d.len() as f64, d.iter().cloned().fold(0.0, f64::max))
}

fn check(name: &str, ours: Vec<f32>, want: Vec<f32>) {
    let (mean, max) = distance(&ours, &want);
    let spread = want.iter().cloned().fold(f32::MIN, f32::max) - want.iter().cloned().fold(f32::MAX, f32::min);
    println!("{name}: mean |Δlogit| {mean:.2e}, max {max:.2e}, logits spread over {spread:.2}");
    assert!(spread > 1.0, "{name}: the logits must differ for the comparison to mean anything");
    assert!(mean <= 1e-3, "{name}: mean |Δlogit| {mean} > 1e-3 (max {max})");
}

/// Llama 3.2's RoPE factors (`rope_freqs.weight`, llama.cpp's `freq_factors`) divide each
/// rotary pair's frequency: with them the engine follows the plain-f32 llama reference
/// (`engine::reference`, which applies them in its own RoPE table), and they change the
/// logits, so neither side can be ignoring them. A factor that is not a positive number is
/// refused.
#[test]
fn llama3s_rope_factors_divide_each_pairs_frequency() {
    // head_dim 16: 8 rotary pairs; the slow pairs scaled most, as Llama 3's are.
    let factors: Vec<f32> = (0..8).map(|i| 1.0 + i as f32).collect();
    let with = TinyModel { rope_freqs: Some(factors.clone()), ..tiny("llama") }.to_gguf();
    let tokens = prompt(24);
    let reference = engine::reference::Reference::from_gguf_bytes(&with).unwrap();
    check("llama with RoPE factors", engine_logits(&with, &tokens), reference.logits(&tokens).unwrap());
    let (moved, _) = distance(&engine_logits(&with, &tokens), &engine_logits(&tiny("llama").to_gguf(), &tokens));
    assert!(moved > 1e-2, "the factors must change the logits: mean |Δ| {moved}");
    for bad in [0.0, -1.0, f32::NAN] {
        let mut f = factors.clone();
        f[3] = bad;
        let err = Model::from_gguf_bytes(&TinyModel { rope_freqs: Some(f), ..tiny("llama") }.to_gguf()).err().unwrap();
        assert!(err.to_string().contains("rope_freqs.weight holds"), "{bad}: {err}");
    }
}

#[test]
fn qwen2_and_qwen3_match_candle_transformers() {
    type Reference = fn(&[u8], &[u32]) -> Vec<f32>;
    for (arch, reference) in [("qwen2", qwen2_reference as Reference), ("qwen3", qwen3_reference)] {
        let bytes = TinyModel { f32_weights: true, ..tiny(arch) }.to_gguf();
        for len in [1, 9] {
            check(
                &format!("{arch}, {len} tokens"),
                engine_logits(&bytes, &prompt(len)),
                reference(&bytes, &prompt(len)),
            );
        }
    }
}

#[test]
fn gemma3_matches_candle_transformers_past_its_window() {
    for spec in
        [tiny("gemma3"), TinyModel { attn_softcap: Some(2.0), final_softcap: Some(3.0), seed: 9, ..tiny("gemma3") }]
    {
        let spec = TinyModel { f32_weights: true, ..spec };
        let bytes = spec.to_gguf();
        for len in [1, 4, 13] {
            let name = format!("gemma3 (soft-capping {:?}), {len} tokens", spec.attn_softcap);
            let want = Gemma3Reference::from_gguf_bytes(&bytes).last_logits(&prompt(len));
            check(&name, engine_logits(&bytes, &prompt(len)), want);
        }
    }
}

/// Gemma 3's local layers cache only their window and a margin (window 4 here, margin 64):
/// decoding one position at a time far past them gives what one pass over everything gives,
/// the cache's bytes count what is held, a short rollback continues where it is, and one
/// past the margin empties the cache, so a session recomputes rather than reuse what it lost.
/// Speculative decoding, which rolls back rejected drafts, still equals plain greedy.
#[test]
fn gemma3s_local_layers_keep_only_their_window() {
    let m = Arc::new(Model::from_gguf_bytes(&tiny("gemma3").to_gguf()).unwrap());
    let (layers, vocab, window) = (m.config.layers, m.config.vocab, m.config.window(0).unwrap());
    let p = prompt(300);
    let all = m.forward(&p, 0, &mut KvCache::new(&m.config), layers, Logits::All).unwrap();
    let at = |i: usize| &all[i * vocab..(i + 1) * vocab];
    let mut cache = KvCache::new(&m.config);
    m.forward(&p[..20], 0, &mut cache, layers, Logits::Last).unwrap();
    for i in 20..300 {
        let got = m.forward(&p[i..=i], i, &mut cache, layers, Logits::Last).unwrap();
        let (mean, _) = distance(&got, at(i));
        assert!(mean < 1e-4, "position {i}, past the window, differs from one pass by {mean}");
    }
    // The window and the margin, dropped 64 at a time: 4 + 64 to 4 + 2 × 64 - 1 positions.
    let held: Vec<usize> = cache.layers.iter().map(|l| l.held()).collect();
    for (l, &h) in held.iter().enumerate() {
        match m.config.window(l) {
            Some(_) => assert!((window + 64..=KvCache::local_positions_at_most(window)).contains(&h), "local layer {l} holds {h}"),
            None => assert_eq!(h, 300, "global layer {l}"),
        }
    }
    let per_position = 2 * m.config.kv_dim() * 4;
    assert_eq!(cache.bytes(), per_position * held.iter().sum::<usize>());
    assert!(cache.bytes() <= KvCache::bytes_for(&m.config, 300));
    assert!(cache.bytes() < per_position * layers * 300 * 6 / 10, "the local layers' memory stopped growing");
    // One long prefill leaves no more than decoding does.
    let mut once = KvCache::new(&m.config);
    m.forward(&p, 0, &mut once, layers, Logits::Last).unwrap();
    assert!(once.bytes() <= KvCache::bytes_for(&m.config, 300));
    // Back two positions: still held, and recomputing them gives the same logits.
    cache.truncate(298);
    assert_eq!(cache.len(), 298);
    let again = m.forward(&p[298..300], 298, &mut cache, layers, Logits::All).unwrap();
    assert!(distance(&again[vocab..], at(299)).0 < 1e-4);
    // Back past the margin: the local layers lost what position 30 must see.
    cache.truncate(30);
    assert_eq!((cache.len(), cache.bytes()), (0, 0));
    assert!(m.forward(&p[30..31], 30, &mut cache, layers, Logits::Last).is_err(), "a pass cannot continue at 30");
    // A session told to reuse a 30-token prefix after 300 tokens recomputes, and says so.
    let g = SamplerSettings::greedy();
    let mut s = common::session(m.clone());
    s.start(&p, 0).unwrap();
    s.generate(&g, 1, |_| true).unwrap();
    let shorter = [&p[..30], &[7, 8]].concat();
    let reuse = s.start(&shorter, 0).unwrap();
    assert_eq!((reuse.reused, reuse.computed), (0, 32));
    let mut fresh = common::session(m.clone());
    fresh.start(&shorter, 0).unwrap();
    assert_eq!(s.generate(&g, 8, |_| true).unwrap().tokens, fresh.generate(&g, 8, |_| true).unwrap().tokens);
    // Speculative decoding past the window rolls back within the margin: plain greedy's text.
    let mut plain = common::session(m.clone());
    plain.start(&p[..200], 0).unwrap();
    let want = plain.generate(&g, 40, |_| true).unwrap().tokens;
    for draft in [Draft::PromptLookup, Draft::EarlyExit { layers: 2 }] {
        let mut s = common::session(m.clone());
        s.start(&p[..200], 0).unwrap();
        let got = s.generate_speculative(&g, 40, draft, 8, |_, _| true).unwrap();
        assert_eq!(got.generation.tokens, want, "{draft:?}");
    }
}

/// The quantised file (Q4_1 layers, Q8_0 embedding) loads and reads its hyper-parameters.
#[test]
fn the_config_follows_each_files_metadata() {
    for arch in ["qwen2", "qwen3", "gemma3"] {
        let m = Model::from_gguf_bytes(&tiny(arch).to_gguf()).unwrap();
        assert_eq!(m.config.architecture.name(), arch);
        let local: Vec<bool> = (0..4).map(|l| m.config.window(l).is_some()).collect();
        match arch {
            "gemma3" => {
                assert_eq!(m.config.head_dim, 32);
                assert_eq!(local, [true, true, false, true]);
                assert_eq!((m.config.rope_base_of(0), m.config.rope_base_of(2)), (10_000.0, 1_000_000.0));
            }
            _ => assert_eq!(local, [false; 4]),
        }
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Per architecture, on the quantised file: prefill in chunks and decode agree with one
/// pass; a probe changes nothing and sees a local layer's window; early exit, batch,
/// speculative decoding and threads run and agree with the plain pass.
#[test]
fn every_pass_works_for_every_architecture() {
    static TURN: std::sync::Once = std::sync::Once::new();
    TURN.call_once(|| rayon::ThreadPoolBuilder::new().num_threads(3).build_global().unwrap());
    for arch in ["llama", "qwen2", "qwen3", "gemma3"] {
        let m = Arc::new(Model::from_gguf_bytes(&tiny(arch).to_gguf()).unwrap());
        let (layers, vocab) = (m.config.layers, m.config.vocab);
        let p = prompt(13);
        let mut cache = KvCache::new(&m.config);
        let all = m.forward(&p, 0, &mut cache, layers, Logits::All).unwrap();
        // In chunks, then one at a time: the cache (and a local layer's window over it)
        // gives what one pass gives.
        let mut cache = KvCache::new(&m.config);
        m.forward(&p[..5], 0, &mut cache, layers, Logits::Last).unwrap();
        for i in 5..13 {
            let got = m.forward(&p[i..=i], i, &mut cache, layers, Logits::Last).unwrap();
            let (mean, _) = distance(&got, &all[i * vocab..(i + 1) * vocab]);
            assert!(mean < 1e-4, "{arch}: position {i} decoded differs from the prefill by {mean}");
        }
        // A probe: bit-identical logits; in layer 0 (local for Gemma 3) rows sum to 1 and
        // are zero before the window.
        let plain = m.forward(&p, 0, &mut KvCache::new(&m.config), layers, Logits::Last).unwrap();
        let mut probe = Probe { attention: Some(AttentionCapture::new(0, None)), hidden: Some(Vec::new()) };
        let probed = m.forward_probed(&p, 0, &mut KvCache::new(&m.config), layers, Logits::Last, &mut probe).unwrap();
        assert_eq!(bits(&plain), bits(&probed), "{arch}: a probe changes the logits");
        assert_eq!(probe.hidden.as_ref().unwrap().len(), layers);
        let window = m.config.window(0);
        for row in &probe.attention.as_ref().unwrap().rows {
            assert!((row.weights.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            let first = window.map_or(0, |w| (row.position + 1).saturating_sub(w));
            assert!(row.weights[..first].iter().all(|&w| w == 0.0), "{arch}: attention outside the window");
            assert!(row.weights[first..].iter().all(|&w| w > 0.0));
        }
        // Early exit: the first two layers only.
        let early = m.forward(&p, 0, &mut KvCache::new(&m.config), 2, Logits::Last).unwrap();
        assert_ne!(bits(&early), bits(&plain));
        // A batch of two sequences of different lengths: each bit-identical to its own decode.
        let (mut a, mut b) = (KvCache::new(&m.config), KvCache::new(&m.config));
        m.forward(&p[..7], 0, &mut a, layers, Logits::Last).unwrap();
        m.forward(&p, 0, &mut b, layers, Logits::Last).unwrap();
        let (mut a1, mut b1) = (a.clone(), b.clone());
        let batch = m.forward_batch(&[5, 9], &mut [&mut a, &mut b]).unwrap();
        let alone_a = m.forward(&[5], 7, &mut a1, layers, Logits::Last).unwrap();
        let alone_b = m.forward(&[9], 13, &mut b1, layers, Logits::Last).unwrap();
        assert_eq!(bits(&batch), bits(&[alone_a, alone_b].concat()), "{arch}: batch differs from one sequence");
        // Speculative decoding is lossless for greedy, with either draft.
        let g = SamplerSettings::greedy();
        let mut s = common::session(m.clone());
        s.start(&p, 0).unwrap();
        let want = s.generate(&g, 12, |_| true).unwrap().tokens;
        for draft in [Draft::PromptLookup, Draft::EarlyExit { layers: 2 }] {
            let mut s = common::session(m.clone());
            s.start(&p, 0).unwrap();
            let got = s.generate_speculative(&g, 12, draft, 3, |_, _| true).unwrap();
            assert_eq!(got.generation.tokens, want, "{arch}: {draft:?}");
        }
        // Threads: bit-identical to one thread.
        engine::parallel::set_threads(3);
        let threaded = m.forward(&p, 0, &mut KvCache::new(&m.config), layers, Logits::All).unwrap();
        engine::parallel::set_threads(1);
        assert_eq!(bits(&threaded), bits(&all), "{arch}: threads change the logits");
    }
}

/// Missing or inconsistent hyper-parameters are refused, naming the key.
#[test]
fn missing_or_inconsistent_metadata_is_refused() {
    use candle_core::quantized::gguf_file::Value;
    use common::{load_error, with_metadata};
    let cases: [(&str, &str, Option<Value>, &str); 7] = [
        ("qwen2", "qwen2.attention.layer_norm_rms_epsilon", None, "metadata qwen2.attention.layer_norm_rms_epsilon is missing"),
        ("gemma3", "gemma3.attention.sliding_window", None, "metadata gemma3.attention.sliding_window is missing"),
        ("gemma3", "gemma3.attention.sliding_window", Some(Value::U32(0)), "attention.sliding_window = 0 is outside"),
        ("qwen3", "qwen3.attention.value_length", Some(Value::U32(16)), "qwen3.attention.value_length = 16 differs"),
        ("qwen2", "qwen2.rope.freq_base", None, "metadata qwen2.rope.freq_base is missing"),
        (
            "gemma3",
            "gemma3.final_logit_softcapping",
            Some(Value::F32(-1.0)),
            "final_logit_softcapping is not a positive",
        ),
        (
            "qwen3",
            "qwen3.attention.key_length",
            Some(Value::String("32".into())),
            "qwen3.attention.key_length is not an integer",
        ),
    ];
    for (arch, key, value, message) in cases {
        let err = load_error(&with_metadata(tiny(arch), key, value));
        assert!(err.contains(message), "{arch} {key}: {err}");
    }
}

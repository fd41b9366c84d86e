//! The engine, built for wasm32 with SIMD, running in headless Chromium: a tiny random
//! llama (written as GGUF in memory) goes through the same loading and forward code as
//! the real model. Run by scripts/test.sh:
//! `cargo test --release --target wasm32-unknown-unknown -p inference-playground --lib`.

use engine::testing::TinyModel;
use engine::{Model, SamplerSettings, Session, StopReason};
use std::sync::Arc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

fn model() -> Arc<Model> {
    Arc::new(Model::from_gguf_bytes(&TinyModel::default().to_gguf()).expect("the tiny model loads"))
}

fn greedy_run(model: &Arc<Model>, tokens: usize) -> engine::Generation {
    let mut session = Session::new(model.clone(), Box::new(performance_now));
    let prompt = model
        .tokenizer
        .encode("the cat sat on", false)
        .expect("encodes");
    session.start(&prompt, 1).expect("starts");
    // Whatever the random weights say, the run must not end early at an end-of-turn token.
    session
        .generate(&SamplerSettings::greedy(), tokens, |_| true)
        .expect("generates")
}

#[wasm_bindgen_test]
fn greedy_generation_is_deterministic() {
    let model = model();
    let first = greedy_run(&model, 8);
    let second = greedy_run(&model, 8);
    assert!(!first.tokens.is_empty() && first.tokens.len() <= 8);
    assert_eq!(first.tokens.len(), first.steps.len());
    if first.stop == StopReason::MaxTokens {
        assert_eq!(first.tokens.len(), 8);
    }
    assert_eq!(
        first.tokens, second.tokens,
        "greedy decoding must repeat itself exactly"
    );
    assert!(
        first.steps.iter().all(|s| s.prob == 1.0),
        "greedy steps have probability 1"
    );
    assert!(first
        .tokens
        .iter()
        .all(|&t| (t as usize) < model.config.vocab));
}

#[wasm_bindgen_test]
fn distributions_sum_to_one() {
    let model = model();
    let mut session = Session::new(model.clone(), Box::new(performance_now));
    let prompt = model
        .tokenizer
        .encode("hello there", false)
        .expect("encodes");
    session.start(&prompt, 3).expect("starts");
    for settings in [SamplerSettings::plain(1.0, 3), SamplerSettings::default()] {
        let dist = session.distribution(&settings).expect("a distribution");
        let total: f64 = dist.candidates.iter().map(|c| c.prob as f64).sum();
        let kept: f64 = dist.candidates.iter().map(|c| c.final_prob as f64).sum();
        assert!((total - 1.0).abs() < 1e-4, "softmax sums to {total}");
        assert!(
            (kept - 1.0).abs() < 1e-4,
            "renormalised probabilities sum to {kept}"
        );
        assert_eq!(dist.candidates.len(), model.config.vocab);
    }
    let step = session
        .step(&SamplerSettings::plain(1.0, 3))
        .expect("a step");
    assert!(step.prob > 0.0 && step.prob <= 1.0);
    assert!(step.forward_ms >= 0.0, "the clock is performance.now()");
}

// The worker's loading path: the file stays a JavaScript Uint8Array, read through JsReader,
// and its SHA-256 comes from crypto.subtle (or the wasm fallback).
mod js_file {
    use crate::worker::js_file::{hex, sha256_hex, sha256_in_wasm, JsBytes, JsReader};
    use engine::kv_cache::KvCache;
    use engine::arch::Logits;
    use engine::Model;
    use js_sys::Uint8Array;
    use std::io::{Read, Seek, SeekFrom};
    use wasm_bindgen_test::*;

    fn sample(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    #[wasm_bindgen_test]
    fn the_tiny_model_loads_the_same_from_a_js_buffer() {
        let bytes = engine::testing::TinyModel::default().to_gguf();
        let from_slice = Model::from_gguf_bytes(&bytes).expect("loads from a slice");
        let from_js = Model::from_gguf_reader(&mut JsReader::new(Uint8Array::from(&bytes[..])))
            .expect("loads from a Uint8Array");
        assert_eq!(from_slice.weight_bytes(), from_js.weight_bytes());
        let prompt = [1, 2, 3, 4];
        let run = |m: &Model| {
            let mut cache = KvCache::new(&m.config);
            m.forward(&prompt, 0, &mut cache, m.config.layers, Logits::All)
                .expect("forward")
        };
        assert_eq!(
            run(&from_slice),
            run(&from_js),
            "identical weights, identical logits"
        );
    }

    #[wasm_bindgen_test]
    fn reads_and_seeks_like_a_slice() {
        // Larger than the read-ahead, so reads cross its boundary and some bypass it.
        let data = sample(200_000);
        let mut reader = JsReader::new(Uint8Array::from(&data[..]));
        let mut got = Vec::new();
        let mut buf = vec![0u8; 70_000];
        let mut step = 1;
        loop {
            let n = reader.read(&mut buf[..step]).expect("reads");
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
            step = (step * 3 + 1) % 69_997 + 1;
        }
        assert_eq!(got, data, "sequential reads of varied sizes give the file");

        for (at, len) in [
            (0, 4),
            (65_530, 12),
            (199_990, 10),
            (100_000, 70_000),
            (5, 0),
        ] {
            reader.seek(SeekFrom::Start(at)).expect("seeks");
            let mut out = vec![0u8; len];
            reader.read_exact(&mut out).expect("reads exactly");
            assert_eq!(
                out,
                data[at as usize..at as usize + len],
                "{len} bytes at {at}"
            );
        }
        assert_eq!(
            reader.seek(SeekFrom::End(-3)).expect("from the end"),
            199_997
        );
        assert_eq!(reader.seek(SeekFrom::Current(-7)).expect("back"), 199_990);
        assert_eq!(
            reader.seek(SeekFrom::End(10)).expect("past the end"),
            200_010
        );
        assert_eq!(reader.read(&mut buf).expect("reads nothing"), 0);
        let mut four = [0u8; 4];
        assert!(
            reader.read_exact(&mut four).is_err(),
            "read_exact past the end fails"
        );
        assert!(
            reader.seek(SeekFrom::Current(-300_000)).is_err(),
            "a negative position is an error"
        );
    }

    #[wasm_bindgen_test]
    fn collects_chunks_whatever_the_announced_length() {
        let data = sample(10_000);
        let chunks = || data.chunks(3_000).map(Uint8Array::from);
        for announced in [Some(10_000), Some(4_000), Some(50_000), Some(0), None] {
            let mut bytes = JsBytes::with_capacity(announced);
            for chunk in chunks() {
                bytes.push(chunk).expect("pushes");
            }
            assert_eq!(bytes.len(), 10_000);
            assert_eq!(bytes.finish().to_vec(), data, "announced {announced:?}");
        }
        assert_eq!(JsBytes::with_capacity(Some(100)).finish().length(), 0);
    }

    #[wasm_bindgen_test]
    async fn sha256_in_the_browser_and_in_wasm_agree() {
        let abc = Uint8Array::from(&b"abc"[..]);
        let want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_hex(&abc).await.expect("digests"), want);
        assert_eq!(hex(&sha256_in_wasm(&abc)), want);
        // More than one of the fallback's 1 MB slices.
        let big = Uint8Array::from(&sample(2_500_000)[..]);
        assert_eq!(
            sha256_hex(&big).await.expect("digests"),
            hex(&sha256_in_wasm(&big))
        );
        assert_eq!(
            hex(&sha256_in_wasm(&Uint8Array::new_with_length(0))),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}

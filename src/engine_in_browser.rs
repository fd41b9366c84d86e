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

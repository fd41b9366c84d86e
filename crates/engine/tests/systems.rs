//! The systems' presets: every one has its sources, its settings pass the engine's checks,
//! and a setting a system lacks or a temperature outside its range is refused, saying so.

use engine::sampler::{distribution, Stage, DEFAULT_ORDER};
use engine::systems::{preset, Overrides, Setting, PRESETS};

#[test]
fn every_preset_cites_its_sources_with_a_version() {
    let mut ids: Vec<_> = PRESETS.iter().map(|p| p.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), PRESETS.len(), "ids are unique");
    for p in &PRESETS {
        assert!(!p.sources.is_empty(), "{} has no source", p.id);
        for s in p.sources {
            assert!(s.url.starts_with("https://") && !s.title.is_empty() && !s.version.is_empty(), "{} {s:?}", p.id);
        }
        assert!(!p.notes.is_empty(), "{}", p.id);
        if let Some(order) = p.order {
            assert!(DEFAULT_ORDER.iter().all(|s| order.contains(s)), "{} order {order:?}", p.id);
        }
    }
}

#[test]
fn each_presets_defaults_are_valid_engine_settings() {
    for p in &PRESETS {
        let s = p.settings(&Overrides::default(), 7).unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert_eq!(s.seed, 7);
        assert_eq!(s.order, p.order.map_or(DEFAULT_ORDER.to_vec(), |o| o.to_vec()));
        let d = distribution(&[3.0, 2.0, 1.0, 0.5, 0.0, -1.0], &s, &[]);
        assert!(d.eligible >= 1);
    }
}

#[test]
fn the_documented_defaults() {
    let s = |id| preset(id).unwrap().settings(&Overrides::default(), 0).unwrap();
    let llama = s("llama.cpp");
    assert_eq!((llama.temperature, llama.top_k, llama.top_p, llama.min_p), (0.8, 40, 0.95, 0.05));
    assert_eq!(llama.order, [Stage::TopK, Stage::TopP, Stage::MinP, Stage::Temperature]);
    let ollama = s("ollama");
    assert_eq!((ollama.temperature, ollama.top_k, ollama.top_p, ollama.min_p), (0.8, 40, 0.9, 0.0));
    // GGUF models run on llama-server since 2026-05-29: llama.cpp's chain, temperature last.
    assert_eq!(ollama.order, llama.order);
    assert_eq!(ollama.temperature_place(), 3);
    let vllm = s("vllm");
    assert_eq!((vllm.temperature, vllm.top_k, vllm.top_p, vllm.min_p), (1.0, 0, 1.0, 0.0));
    let openai = s("openai");
    assert_eq!((openai.temperature, openai.top_k, openai.top_p, openai.min_p), (1.0, 0, 1.0, 0.0));
    // Hugging Face's generate is greedy until asked to sample; then its own defaults apply.
    let hf = preset("hf").unwrap();
    assert_eq!(s("hf").temperature, 0.0);
    let sampling = hf.settings(&Overrides { top_p: Some(0.9), ..Overrides::default() }, 0).unwrap();
    assert_eq!((sampling.temperature, sampling.top_k, sampling.top_p), (1.0, 50, 0.9));
}

#[test]
fn what_a_system_lacks_or_refuses_is_an_error_that_says_so() {
    let openai = preset("openai").unwrap();
    assert!(!openai.has(Setting::TopK) && !openai.has(Setting::MinP) && openai.has(Setting::TopP));
    let err = openai.settings(&Overrides { top_k: Some(5), ..Overrides::default() }, 0).unwrap_err();
    assert!(err.contains("has no top-k") && err.contains("temperature, top-p"), "{err}");
    let err = openai.settings(&Overrides { temperature: Some(2.5), ..Overrides::default() }, 0).unwrap_err();
    assert!(err.contains("from 0 to 2") && err.contains("2.5"), "{err}");
    let err = preset("hf").unwrap().settings(&Overrides { temperature: Some(0.0), ..Overrides::default() }, 0).unwrap_err();
    assert!(err.contains("strictly positive"), "{err}");
    let err = preset("gemini").unwrap_err();
    assert!(err.contains("hf, llama.cpp, vllm, ollama, openai"), "{err}");
}

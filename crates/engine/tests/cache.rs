//! The KV cache against full recomputation, on the tiny model (Q4_1/Q8_0 weights, GQA).

mod common;
use common::*;
use engine::arch::Logits;
use engine::kv_cache::KvCache;
use engine::sampler::Rng;
use engine::SamplerSettings;

const TOL: f32 = 1e-4;

fn prompt() -> Vec<u32> {
    (0..40).map(|i| (i * 37 + 5) % 290 + 1).collect()
}

#[test]
fn cached_step_by_step_logits_equal_full_recompute() {
    let m = tiny();
    let toks = prompt();
    let mut cache = KvCache::new(&m.config);
    for i in 0..toks.len() {
        let stepwise = m.forward(&toks[i..=i], i, &mut cache, m.config.layers, Logits::Last).unwrap();
        let mut fresh = KvCache::new(&m.config);
        let full = m.forward(&toks[..=i], 0, &mut fresh, m.config.layers, Logits::Last).unwrap();
        assert!(max_abs_diff(&stepwise, &full) < TOL, "position {i}: {}", max_abs_diff(&stepwise, &full));
    }
}

#[test]
fn all_position_logits_equal_step_by_step_logits() {
    let m = tiny();
    let toks = prompt();
    let mut cache = KvCache::new(&m.config);
    let all = m.forward(&toks, 0, &mut cache, m.config.layers, Logits::All).unwrap();
    let v = m.config.vocab;
    let mut cache = KvCache::new(&m.config);
    for i in 0..toks.len() {
        let one = m.forward(&toks[i..=i], i, &mut cache, m.config.layers, Logits::Last).unwrap();
        assert!(max_abs_diff(&one, &all[i * v..(i + 1) * v]) < TOL, "position {i}");
    }
}

#[test]
fn truncate_then_recompute_equals_a_fresh_run() {
    let m = tiny();
    let toks = prompt();
    let mut cache = KvCache::new(&m.config);
    m.forward(&toks, 0, &mut cache, m.config.layers, Logits::Last).unwrap();
    cache.truncate(25);
    assert_eq!(cache.len(), 25);
    let other: Vec<u32> = vec![9, 8, 7, 6];
    let after = m.forward(&other, 25, &mut cache, m.config.layers, Logits::All).unwrap();
    let mut fresh = KvCache::new(&m.config);
    let mut seq = toks[..25].to_vec();
    seq.extend(&other);
    let want = m.forward(&seq, 0, &mut fresh, m.config.layers, Logits::All).unwrap();
    let v = m.config.vocab;
    assert!(max_abs_diff(&after, &want[25 * v..]) < TOL);
}

#[test]
fn kv_bytes_follow_the_formula() {
    let m = tiny();
    let c = &m.config;
    let mut cache = KvCache::new(c);
    m.forward(&prompt()[..10], 0, &mut cache, c.layers, Logits::Last).unwrap();
    assert_eq!(cache.bytes(), 2 * c.layers * c.kv_heads * c.head_dim * 10 * 4);
}

#[test]
fn early_exit_runs_only_the_first_layers() {
    let m = tiny();
    let toks = prompt();
    let mut cache = KvCache::new(&m.config);
    let two = m.forward(&toks, 0, &mut cache, 2, Logits::Last).unwrap();
    assert_eq!(cache.layers[0].len, toks.len());
    assert_eq!(cache.layers[3].len, 0, "layers past the exit are untouched");
    let full = m.forward(&toks, 0, &mut KvCache::new(&m.config), m.config.layers, Logits::Last).unwrap();
    assert!(max_abs_diff(&two, &full) > 1e-3, "a 2-layer exit is a different model");
    assert_eq!(cache.len(), 0, "the cache counts only positions every layer holds");
}

#[test]
fn prefix_reuse_gives_the_same_logits_as_a_cold_run() {
    let m = tiny();
    let mut warm = session(m.clone());
    let first = prompt();
    warm.start(&first, 1).unwrap();
    let greedy = SamplerSettings::greedy();
    for _ in 0..5 {
        warm.step(&greedy).unwrap();
    }
    let mut second = warm.tokens().to_vec();
    second.extend([40, 41, 42]);
    let reuse = warm.start(&second, 1).unwrap();
    // The last drawn token was never fed back, so it and the 3 new ones are computed.
    assert_eq!(reuse.reused, first.len() + 4);
    assert_eq!(reuse.computed, 4);
    let warm_dist = warm.distribution(&greedy).unwrap();
    let mut cold = session(m);
    let cold_reuse = cold.start(&second, 1).unwrap();
    assert_eq!((cold_reuse.reused, cold_reuse.computed), (0, second.len()));
    let cold_dist = cold.distribution(&greedy).unwrap();
    let logits = |d: &engine::Distribution| {
        let mut v = vec![0f32; d.candidates.len()];
        d.candidates.iter().for_each(|c| v[c.id as usize] = c.logit);
        v
    };
    assert!(max_abs_diff(&logits(&warm_dist), &logits(&cold_dist)) < TOL);
}

#[test]
fn cache_off_text_equals_cache_on_text_under_greedy() {
    let m = tiny();
    let run = |use_cache: bool| {
        let mut s = session(m.clone());
        s.use_cache = use_cache;
        s.start(&prompt(), 3).unwrap();
        let g = s.generate(&SamplerSettings::greedy(), 24, |_| true).unwrap();
        (g.tokens, s.kv_len())
    };
    let (on, on_kv) = run(true);
    let (off, off_kv) = run(false);
    assert_eq!(on, off);
    assert!(on_kv > 0);
    assert_eq!(off_kv, 0, "with the cache off nothing is kept");
}

#[test]
fn rewind_then_step_reproduces_the_same_greedy_token() {
    let m = tiny();
    let mut s = session(m);
    s.start(&prompt(), 0).unwrap();
    let g = SamplerSettings::greedy();
    let toks: Vec<u32> = (0..6).map(|_| s.step(&g).unwrap().token).collect();
    s.rewind(3).unwrap();
    assert_eq!(s.generated(), 3);
    let again: Vec<u32> = (0..3).map(|_| s.step(&g).unwrap().token).collect();
    assert_eq!(again, toks[3..]);
    assert!(s.rewind(7).is_err());
}

#[test]
fn forced_token_is_appended_and_reported() {
    let m = tiny();
    let mut s = session(m);
    s.start(&prompt(), 0).unwrap();
    let step = s.force(77, &SamplerSettings::greedy()).unwrap();
    assert!(step.forced);
    assert_eq!(step.prob, 0.0, "greedy gives every other token probability 0");
    assert_eq!(*s.tokens().last().unwrap(), 77);
}

#[test]
fn each_step_reports_the_models_own_log_probability() {
    let m = tiny();
    let mut s = session(m);
    s.start(&prompt(), 4).unwrap();
    let plain = SamplerSettings::plain(1.0, 4);
    let dist = s.distribution(&plain).unwrap();
    let step = s.step(&SamplerSettings { temperature: 0.3, top_k: 2, ..SamplerSettings::default() }).unwrap();
    let want = dist.get(step.token).unwrap().prob.ln();
    assert!((step.model_logprob - want).abs() < 1e-4, "{} vs {want}", step.model_logprob);
}

#[test]
fn a_generator_set_per_position_redraws_after_rewind_as_a_fresh_run_draws() {
    let m = tiny();
    let hot = SamplerSettings::plain(1.5, 7);
    // A fresh run: one generator stream from the seed.
    let mut fresh = session(m.clone());
    fresh.start(&prompt(), 7).unwrap();
    let want: Vec<u32> = (0..5).map(|_| fresh.step(&hot).unwrap().token).collect();
    // Lesson 1: the n-th token drawn with the stream's n-th number, whatever happened before.
    let mut s = session(m);
    s.start(&prompt(), 0).unwrap();
    let step = |s: &mut engine::Session| {
        s.set_rng(Rng::at(7, s.generated() as u64));
        s.step(&hot).unwrap().token
    };
    let first: Vec<u32> = (0..5).map(|_| step(&mut s)).collect();
    assert_eq!(first, want);
    s.rewind(3).unwrap();
    let again: Vec<u32> = (0..3).map(|_| step(&mut s)).collect();
    assert_eq!(again, want[2..]);
}

#[test]
fn prefill_progress_counts_each_slice_up_to_the_tokens_the_cache_lacks() {
    let m = tiny();
    let mut s = session(m);
    let first = prompt();
    s.start(&first, 1).unwrap();
    assert_eq!(s.prefill_progress(), (0, first.len()));
    let mut seen = Vec::new();
    while !s.prefill_chunk(16).unwrap() {
        seen.push(s.prefill_progress());
    }
    seen.push(s.prefill_progress());
    assert_eq!(seen, [(16, 40), (32, 40), (40, 40)]);
    // A longer prompt that shares the first: only the new tokens are counted.
    let mut longer = first.clone();
    longer.extend([7, 8, 9]);
    let reuse = s.start(&longer, 1).unwrap();
    assert_eq!(s.prefill_progress(), (0, reuse.computed));
    while !s.prefill_chunk(2).unwrap() {}
    assert_eq!(s.prefill_progress(), (reuse.computed, reuse.computed));
}

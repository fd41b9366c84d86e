//! A pass split over threads (`engine::parallel`) gives bit-identical results to one
//! thread: every kernel (decode, few-token verification, prefill, batched decode, the
//! output head and attention) on the real model, and greedy text through a session.

mod common;
use common::*;
use engine::arch::{Logits, Model};
use engine::kv_cache::KvCache;
use engine::{parallel, SamplerSettings};
use std::sync::Arc;

fn prompt(n: u32) -> Vec<u32> {
    (0..n).map(|i| (i * 1013 + 17) % 40_000 + 2).collect()
}

/// Prefill of 37 tokens (every position's logits), two decode steps, and a 5-token pass.
fn passes(m: &Model) -> Vec<Vec<u32>> {
    let mut cache = KvCache::new(&m.config);
    let layers = m.config.layers;
    let mut out = vec![m.forward(&prompt(37), 0, &mut cache, layers, Logits::All).unwrap()];
    for t in [450u32, 1200] {
        out.push(m.forward(&[t], cache.len(), &mut cache, layers, Logits::Last).unwrap());
    }
    out.push(m.forward(&prompt(5), cache.len(), &mut cache, layers, Logits::All).unwrap());
    out.iter().map(|l| bits(l)).collect()
}

#[test]
fn every_pass_is_bit_identical_at_every_thread_count() {
    let m = real();
    let one = at_threads(1, || passes(&m));
    for n in [2, 3] {
        assert!(one == at_threads(n, || passes(&m)), "{n} threads changed the logits");
    }
}

/// One batched decode step of three sequences at three lengths: a pair and an odd one in
/// `matmul_batch`.
fn batched(m: &Model) -> Vec<u32> {
    let mut prefix = KvCache::new(&m.config);
    m.forward(&prompt(12), 0, &mut prefix, m.config.layers, Logits::Last).unwrap();
    let mut caches: Vec<KvCache> = (0..3).map(|_| prefix.clone()).collect();
    for (s, c) in caches.iter_mut().enumerate() {
        for j in 0..s as u32 {
            m.forward(&[900 + j], c.len(), c, m.config.layers, Logits::Last).unwrap();
        }
    }
    let mut refs: Vec<&mut KvCache> = caches.iter_mut().collect();
    bits(&m.forward_batch(&[11, 2000, 30_000], &mut refs).unwrap())
}

#[test]
fn batched_decode_is_bit_identical_at_every_thread_count() {
    let m = real();
    let one = at_threads(1, || batched(&m));
    assert!(one == at_threads(3, || batched(&m)), "3 threads changed the batched logits");
}

/// The opt-in integer arithmetic (its own copy of the model: the others share `real()`
/// with it off): each Q4_1 and Q8_0 product rounds its activation row once, before the split.
#[test]
fn integer_arithmetic_is_bit_identical_at_every_thread_count() {
    let m = Model::from_gguf_bytes(&real_bytes()).unwrap();
    m.set_integer_activations(true);
    let one = at_threads(1, || (passes(&m), batched(&m)));
    assert!(one == at_threads(3, || (passes(&m), batched(&m))), "3 threads changed the integer logits");
}

#[test]
fn greedy_text_is_the_same_at_every_thread_count() {
    let m = real();
    let generate = |m: Arc<Model>| {
        let ids = m.tokenizer.encode("The three primary colours are", false).unwrap();
        let mut s = session(m);
        s.start(&ids, 0).unwrap();
        s.generate(&SamplerSettings::greedy(), 24, |_| true).unwrap().tokens
    };
    let one = at_threads(1, || generate(m.clone()));
    assert_eq!(one, at_threads(2, || generate(m.clone())));
}

#[test]
fn thread_counts_are_clamped_to_the_pool() {
    at_threads(1, || {
        assert_eq!(parallel::max_threads(), 3);
        assert_eq!(parallel::set_threads(0), 1);
        assert_eq!(parallel::set_threads(64), 3);
        assert_eq!(parallel::threads(), 3);
    });
}

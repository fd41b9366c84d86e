//! One forward pass taken apart (`Model::forward_timed`, Lesson 2's drawing): its logits
//! are the plain pass's, its parts own every parameter of the file exactly once, their
//! times are real (none negative, shares summing to 1), and what each part reads follows
//! from the tensors and the cache: weights once per pass, the embedding per token, the
//! cache per position attended.

mod common;
use common::*;
use engine::arch::Logits;
use engine::gguf::info::info;
use engine::kv_cache::KvCache;
use engine::probe::{Part, PassParts, PARTS};
use engine::testing::TinyModel;
use engine::Model;
use std::io::Cursor;
use std::time::Instant;

fn timed(model: &Model, tokens: &[u32], start: usize, cache: &mut KvCache) -> (Vec<f32>, PassParts) {
    let t0 = Instant::now();
    let clock = move || t0.elapsed().as_secs_f64() * 1000.0;
    model.forward_timed(tokens, start, cache, &clock).unwrap()
}

fn part(parts: &PassParts, which: Part) -> &engine::probe::PassPart {
    parts.parts.iter().find(|p| p.part == which).unwrap()
}

/// A prefill of `prompt`, then one decode step, timed and plain: the same logits, bit for bit.
fn check_model(model: &Model, file: &[u8], prompt: &[u32]) {
    let parameters = info(&mut Cursor::new(file)).unwrap().parameters;
    let (mut plain, mut cache) = (KvCache::new(&model.config), KvCache::new(&model.config));
    let n = prompt.len() - 1;
    let expected = model.forward(&prompt[..n], 0, &mut plain, model.config.layers, Logits::Last).unwrap();
    let (logits, prefill) = timed(model, &prompt[..n], 0, &mut cache);
    assert_eq!(logits, expected, "the timed prefill's logits are the plain pass's");
    let expected = model.forward(&prompt[n..], n, &mut plain, model.config.layers, Logits::Last).unwrap();
    let (logits, decode) = timed(model, &prompt[n..], n, &mut cache);
    assert_eq!(logits, expected, "the timed decode step's logits are the plain pass's");
    for (pass, tokens, start) in [(&prefill, n, 0), (&decode, 1, n)] {
        assert_eq!((pass.tokens, pass.start, pass.blocks), (tokens, start, model.config.layers));
        assert_eq!(pass.parts.iter().map(|p| p.part).collect::<Vec<_>>(), PARTS.to_vec(), "every part, in the token's order");
        assert_eq!(pass.parts.iter().map(|p| p.parameters).sum::<u64>(), parameters, "the parts own every parameter once");
        assert!(pass.parts.iter().all(|p| p.ms >= 0.0 && p.ms.is_finite()));
        assert!(pass.total_ms() > 0.0);
        assert!((pass.shares().iter().sum::<f64>() - 1.0).abs() < 1e-9);
        // The cache: each position's keys and values written once, read by every later one.
        let kv = 2 * 4 * model.config.kv_dim() as u64 * pass.blocks as u64;
        assert_eq!(part(pass, Part::PositionsAndCache).cache_written, kv * tokens as u64);
        let attended: u64 = (start..start + tokens).map(|p| p as u64 + 1).sum();
        assert_eq!(part(pass, Part::Scores).cache_read, kv * attended);
    }
    // Weights are read once per pass, however many tokens; the embedding row by row.
    for which in [Part::QkvProjections, Part::OutputProjection, Part::Mlp, Part::OutputHead] {
        assert_eq!(part(&prefill, which).weight_bytes, part(&decode, which).weight_bytes, "{which:?}");
        assert!(part(&decode, which).weight_bytes > 0, "{which:?}");
    }
    assert_eq!(part(&prefill, Part::Embedding).weight_bytes, n as u64 * part(&decode, Part::Embedding).weight_bytes);
    // Every byte the weights hold is read by some part (the embedding's only by the tokens'
    // rows, and again whole by a tied head).
    let weights: u64 = decode.parts.iter().filter(|p| p.part != Part::Embedding).map(|p| p.weight_bytes).sum();
    let embedding = part(&decode, Part::Embedding).weight_bytes * model.config.vocab as u64;
    let tied = part(&decode, Part::OutputHead).parameters == 0;
    assert_eq!(weights + embedding, model.weight_bytes() as u64 + if tied { embedding } else { 0 });
}

#[test]
fn the_tiny_models_timed_pass_is_its_plain_pass_taken_apart() {
    let file = TinyModel::default().to_gguf();
    let prompt: Vec<u32> = (0..24).map(|i| (i * 37 + 5) % 290 + 1).collect();
    check_model(&tiny(), &file, &prompt);
}

#[test]
fn smollm2s_timed_pass_is_its_plain_pass_taken_apart() {
    let file = real_bytes();
    let model = real();
    let prompt = model.tokenizer.encode("The path of one token through the model, part by part.", false).unwrap();
    check_model(&model, &file, &prompt);
    // SmolLM2's head is tied to its embedding: it owns nothing and reads the whole matrix.
    let (_, decode) = timed(&model, &prompt[..1], 0, &mut KvCache::new(&model.config));
    let (head, embedding) = (part(&decode, Part::OutputHead), part(&decode, Part::Embedding));
    assert_eq!(head.parameters, 0);
    assert_eq!(embedding.parameters, (model.config.vocab * model.config.embedding) as u64);
    assert_eq!(head.weight_bytes, embedding.weight_bytes * model.config.vocab as u64);
}

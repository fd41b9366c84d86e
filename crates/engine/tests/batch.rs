//! Batched decoding (`engine::batch`) against one session per sample: the same tokens for
//! the same seeds and settings, and bit-identical logits.

mod common;
use common::*;
use engine::arch::{Logits, Model};
use engine::batch::{BatchDecoder, BatchSample};
use engine::kv_cache::KvCache;
use engine::{SamplerSettings, StopReason};
use std::sync::Arc;

fn prompt() -> Vec<u32> {
    (0..24).map(|i| (i * 37 + 5) % 290 + 1).collect()
}

/// Each sample through its own fresh session, as self-consistency ran them.
fn unbatched(model: &Arc<Model>, prompt: &[u32], s: &BatchSample) -> (Vec<u32>, StopReason) {
    let mut session = session(model.clone());
    session.start(prompt, s.seed).unwrap();
    let g = session.generate(&s.settings, s.max_tokens, |_| true).unwrap();
    (g.tokens, g.stop)
}

fn assert_batch_matches(model: &Arc<Model>, prompt: &[u32], samples: &[BatchSample]) -> Vec<(Vec<u32>, StopReason)> {
    let mut batch = BatchDecoder::new(model.clone(), prompt, samples).unwrap();
    batch.run().unwrap();
    samples
        .iter()
        .zip(batch.sequences())
        .enumerate()
        .map(|(i, (s, seq))| {
            let (tokens, stop) = unbatched(model, prompt, s);
            assert_eq!(seq.tokens, tokens, "sample {i} ({s:?})");
            assert_eq!(seq.stop, Some(stop), "sample {i}");
            assert_eq!(
                batch.text(i),
                model.tokenizer.decode(&tokens[..tokens.len() - usize::from(stop == StopReason::EndOfTurn)])
            );
            (tokens, stop)
        })
        .collect()
}

#[test]
fn batched_logits_are_bit_identical_to_single_sequence_passes() {
    let (m, p) = (tiny(), prompt());
    let mut prefix = KvCache::new(&m.config);
    m.forward(&p, 0, &mut prefix, m.config.layers, Logits::Last).unwrap();
    // 11 sequences (a full tile of 8 and 3 more), each one token further than the last, so
    // that every sequence attends over a different length.
    let mut caches: Vec<KvCache> = Vec::new();
    let mut tokens = Vec::new();
    for s in 0..11u32 {
        let mut c = prefix.clone();
        for j in 0..s {
            m.forward(&[(s * 13 + j * 7) % 290 + 3], c.len(), &mut c, m.config.layers, Logits::Last).unwrap();
        }
        caches.push(c);
        tokens.push((s * 31) % 290 + 3);
    }
    let mut singles = caches.clone();
    let mut refs: Vec<&mut KvCache> = caches.iter_mut().collect();
    let batched = m.forward_batch(&tokens, &mut refs).unwrap();
    let v = m.config.vocab;
    for (s, c) in singles.iter_mut().enumerate() {
        let one = m.forward(&[tokens[s]], c.len(), c, m.config.layers, Logits::Last).unwrap();
        assert_eq!(&batched[s * v..(s + 1) * v], &one[..], "sequence {s}");
        assert_eq!(caches[s].len(), c.len());
        assert_eq!(caches[s].layers[0].k, c.layers[0].k, "sequence {s}'s new keys");
    }
}

#[test]
fn greedy_and_sampled_tokens_equal_unbatched_sampling_with_the_same_seeds() {
    let m = tiny();
    let p = prompt();
    // Greedy, plain softmax at two temperatures, cuts and a repetition penalty; each with
    // its own length, so that sequences leave the batch at different steps.
    let samples: Vec<BatchSample> = (0..10u64)
        .map(|i| {
            let settings = match i % 4 {
                0 => SamplerSettings::greedy(),
                1 => SamplerSettings::plain(1.0, 0),
                2 => SamplerSettings { repeat_penalty: 1.3, ..SamplerSettings::default() },
                _ => SamplerSettings::plain(3.0, 0),
            };
            BatchSample { seed: 100 + i, settings, max_tokens: 5 + 7 * i as usize }
        })
        .collect();
    let out = assert_batch_matches(&m, &p, &samples);
    let lengths: std::collections::BTreeSet<usize> = out.iter().map(|(t, _)| t.len()).collect();
    assert!(lengths.len() >= 5, "sequences should finish at different steps: {lengths:?}");
    // The two greedy samples agree where both run (the seed does not matter to greedy).
    let n = out[0].0.len();
    assert_eq!(out[0].0[..n], out[4].0[..n]);
}

#[test]
fn end_of_turn_and_full_context_end_sequences_as_a_session_does() {
    // A short context, and a near-uniform sampler over 291 tokens: some samples draw the
    // end-of-turn token early, the others run until the context is full.
    let m = Arc::new(
        Model::from_gguf_bytes(&engine::testing::TinyModel { context: 96, ..Default::default() }.to_gguf()).unwrap(),
    );
    let p = prompt();
    let samples: Vec<BatchSample> = (0..16u64)
        .map(|i| BatchSample { seed: i, settings: SamplerSettings::plain(10.0, 0), max_tokens: 1000 })
        .collect();
    let out = assert_batch_matches(&m, &p, &samples);
    assert!(out.iter().any(|(_, s)| *s == StopReason::EndOfTurn), "{out:?}");
    assert!(out.iter().any(|(_, s)| *s == StopReason::ContextFull), "{out:?}");
}

#[test]
fn bad_requests_are_errors() {
    let m = tiny();
    let ok = BatchSample { seed: 0, settings: SamplerSettings::greedy(), max_tokens: 4 };
    let message = |samples: &[BatchSample], prompt: &[u32]| match BatchDecoder::new(m.clone(), prompt, samples) {
        Ok(_) => panic!("should fail"),
        Err(e) => e.to_string(),
    };
    assert!(message(&[], &prompt()).contains("at least one sample"));
    assert!(message(std::slice::from_ref(&ok), &[]).contains("the prompt is empty"));
    let bad =
        BatchSample { settings: SamplerSettings { temperature: -1.0, ..SamplerSettings::default() }, ..ok.clone() };
    assert!(message(&[ok.clone(), bad], &prompt()).contains("temperature"));
    let too_long = vec![5; m.config.context];
    assert!(message(std::slice::from_ref(&ok), &too_long).contains("shorten it"));
    // Forcing tokens into a finished sequence, one outside the vocabulary, or past the context.
    let mut batch = BatchDecoder::new(m.clone(), &prompt(), &[ok.clone(), ok]).unwrap();
    batch.stop(0).unwrap();
    let error = |r: engine::Result<()>| r.unwrap_err().to_string();
    assert!(error(batch.force(0, &[5], 1)).contains("not a live sequence"));
    assert!(error(batch.force(2, &[5], 1)).contains("not a live sequence"));
    assert!(error(batch.force(1, &[m.config.vocab as u32], 1)).contains("outside the vocabulary"));
    assert!(error(batch.force(1, &vec![5; m.config.context], 1)).contains("the context is full"));
    assert!(error(batch.stop(2)).contains("of a batch of 2"));
    // None of that changed the live sequence: it still runs to its 4 tokens.
    batch.run().unwrap();
    assert_eq!(batch.sequences()[1].tokens.len(), 4);
    assert_eq!(batch.sequences()[0].stop, Some(StopReason::StopSequence));
}

#[test]
fn real_model_samples_equal_unbatched_sampling() {
    let m = real();
    let p = engine::prompt_tokens(&m.tokenizer, "What is 7 times 8?", false, engine::SystemPrompt::Default).unwrap();
    let samples: Vec<BatchSample> = (0..8u64)
        .map(|i| BatchSample {
            seed: 42 + i,
            settings: if i == 0 { SamplerSettings::greedy() } else { SamplerSettings::plain(0.9, 0) },
            max_tokens: 24,
        })
        .collect();
    assert_batch_matches(&m, &p, &samples);
}

/// A session on the prompt, computed in slices of 7 tokens, then 3 greedy tokens: a context
/// whose cache is not one fresh pass.
fn sliced_session(model: &Arc<Model>) -> engine::Session {
    let mut s = session(model.clone());
    s.start(&prompt(), 0).unwrap();
    while !s.prefill_chunk(7).unwrap() {}
    for _ in 0..3 {
        s.step(&SamplerSettings::greedy()).unwrap();
    }
    s
}

#[test]
fn a_batch_from_a_session_continues_it_as_the_session_would() {
    let m = tiny();
    let samples: Vec<BatchSample> = (0..5u64)
        .map(|i| BatchSample { seed: 7 + i, settings: SamplerSettings::plain(1.5, 0), max_tokens: 4 + 3 * i as usize })
        .collect();
    let mut base = sliced_session(&m);
    // Not computed yet: the last step's token is still waiting.
    let error = BatchDecoder::from_session(&base, &samples).err().unwrap().to_string();
    assert!(error.contains("not computed and cached"), "{error}");
    base.prefill_chunk(usize::MAX).unwrap();
    let mut batch = BatchDecoder::from_session(&base, &samples).unwrap();
    batch.run().unwrap();
    for (i, s) in samples.iter().enumerate() {
        let mut one = sliced_session(&m);
        one.set_rng(engine::sampler::Rng::new(s.seed));
        let g = one.generate(&s.settings, s.max_tokens, |_| true).unwrap();
        let drawn: Vec<u32> = g.steps.iter().map(|step| step.token).collect();
        assert_eq!(batch.sequences()[i].tokens, drawn, "sample {i}");
    }
    // A session whose cache is off keeps nothing to continue from.
    base.use_cache = false;
    base.start(&prompt(), 0).unwrap();
    base.prefill_chunk(usize::MAX).unwrap();
    assert!(BatchDecoder::from_session(&base, &samples).is_err());
}

#[test]
fn a_batch_is_at_most_8_wide_and_fits_the_context() {
    assert_eq!(BatchDecoder::width(8192, 300), 8);
    assert_eq!(BatchDecoder::width(2048, 300), 6);
    assert_eq!(BatchDecoder::width(2048, 4000), 1);
    assert_eq!(BatchDecoder::width(2048, 0), 8);
}

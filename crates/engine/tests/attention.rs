//! Lesson 2's hooks into the forward pass: the attention capture and the logit lens, on the
//! tiny model for the invariants and on the real SmolLM2 against the plain-f32 reference.

mod common;
use common::*;
use engine::arch::Logits;
use engine::kv_cache::KvCache;
use engine::probe::{logit_lens, settled_layer, AttentionCapture, PassBench, Probe};
use engine::reference::Reference;
use engine::testing::TinyModel;
use engine::{chat_tokens, Message, Model, SystemPrompt};

fn prompt() -> Vec<u32> {
    (0..24).map(|i| (i * 53 + 11) % 290 + 1).collect()
}

/// Every head's rows of `layer` (0-based) from one uncached pass over `tokens`.
fn captured(m: &Model, tokens: &[u32], layer: usize, head: Option<usize>) -> AttentionCapture {
    let mut probe = Probe { attention: Some(AttentionCapture::new(layer, head)), hidden: None };
    m.forward_probed(tokens, 0, &mut KvCache::new(&m.config), m.config.layers, Logits::Last, &mut probe).unwrap();
    probe.attention.unwrap()
}

#[test]
fn attention_rows_sum_to_one_and_are_causal() {
    let m = tiny();
    let toks = prompt();
    for layer in [0, m.config.layers - 1] {
        let cap = captured(&m, &toks, layer, None);
        assert_eq!(cap.rows.len(), toks.len() * m.config.heads);
        for head in 0..m.config.heads {
            for (i, row) in cap.matrix(head, toks.len()).into_iter().enumerate() {
                let row = row.expect("every position was computed");
                let sum: f32 = row.iter().sum();
                assert!((sum - 1.0).abs() < 1e-5, "layer {layer} head {head} row {i}: sum {sum}");
                assert!(row[i + 1..].iter().all(|&w| w == 0.0), "row {i} attends to the future");
                assert!(row[..=i].iter().all(|&w| w > 0.0 && w <= 1.0));
            }
        }
    }
}

#[test]
fn one_head_capture_keeps_only_that_head() {
    let m = tiny();
    let cap = captured(&m, &prompt(), 1, Some(2));
    assert_eq!(cap.rows.len(), prompt().len());
    assert!(cap.rows.iter().all(|r| r.head == 2));
    assert_eq!(cap.rows, captured(&m, &prompt(), 1, None).rows.into_iter().filter(|r| r.head == 2).collect::<Vec<_>>());
}

#[test]
fn probing_does_not_change_the_logits() {
    let m = tiny();
    let toks = prompt();
    let plain = m.forward(&toks, 0, &mut KvCache::new(&m.config), m.config.layers, Logits::All).unwrap();
    let mut probe = Probe { attention: Some(AttentionCapture::new(2, None)), hidden: Some(Vec::new()) };
    let probed =
        m.forward_probed(&toks, 0, &mut KvCache::new(&m.config), m.config.layers, Logits::All, &mut probe).unwrap();
    assert_eq!(plain, probed);
}

/// A session's prefill then decode steps (each new query over cached keys) give the rows
/// of one uncached pass over the whole context.
#[test]
fn cached_decode_rows_equal_an_uncached_pass() {
    let m = tiny();
    let layer = 3;
    let mut s = session(m.clone());
    s.probe.attention = Some(AttentionCapture::new(layer, None));
    s.start(&prompt(), 1).unwrap();
    for _ in 0..6 {
        s.step(&engine::SamplerSettings::default()).unwrap();
    }
    s.prefill_chunk(usize::MAX).unwrap(); // the last drawn token's own row
    let context = s.tokens().to_vec();
    let live = s.probe.attention.take().unwrap();
    let fresh = captured(&m, &context, layer, None);
    for head in 0..m.config.heads {
        let (a, b) = (live.matrix(head, context.len()), fresh.matrix(head, context.len()));
        for (i, (a, b)) in a.iter().zip(&b).enumerate() {
            let (a, b) = (a.as_ref().expect("cached row"), b.as_ref().unwrap());
            assert!(max_abs_diff(a, b) < 1e-5, "head {head} row {i}: {}", max_abs_diff(a, b));
        }
    }
}

#[test]
fn tiny_attention_equals_the_f32_reference() {
    let bytes = TinyModel::default().to_gguf();
    let m = Model::from_gguf_bytes(&bytes).unwrap();
    let reference = Reference::from_gguf_bytes(&bytes).unwrap();
    let toks = prompt();
    for layer in 0..m.config.layers {
        let want = reference.attention(&toks, layer).unwrap();
        let cap = captured(&m, &toks, layer, None);
        for (head, want) in want.iter().enumerate() {
            for (row, want) in cap.matrix(head, toks.len()).iter().zip(want) {
                let d = max_abs_diff(row.as_ref().unwrap(), want);
                assert!(d < 1e-4, "layer {layer} head {head}: {d}");
            }
        }
    }
}

/// Each layer's top token through the lens, and the last layer's is the model's own
/// next-token distribution, token for token.
fn lens_matches_final_distribution(m: &Model, toks: &[u32]) {
    let mut probe = Probe { attention: None, hidden: Some(Vec::new()) };
    let logits =
        m.forward_probed(toks, 0, &mut KvCache::new(&m.config), m.config.layers, Logits::Last, &mut probe).unwrap();
    let hidden = probe.hidden.unwrap();
    assert_eq!(hidden.len(), m.config.layers);
    let lens = logit_lens(m, &hidden, 5).unwrap();
    assert_eq!(lens.iter().map(|l| l.layer).collect::<Vec<_>>(), (1..=m.config.layers).collect::<Vec<_>>());
    let last = &lens.last().unwrap().top;
    let dist = engine::sampler::distribution(&logits, &engine::SamplerSettings::plain(1.0, 0), &[]);
    for (lens, model) in last.iter().zip(dist.top(5)) {
        assert_eq!(lens.id, model.id);
        assert!((lens.prob - model.prob).abs() < 1e-6, "{} vs {}", lens.prob, model.prob);
    }
    for l in &lens {
        let p: Vec<f32> = l.top.iter().map(|t| t.prob).collect();
        assert!(p.windows(2).all(|w| w[0] >= w[1]) && p.iter().sum::<f32>() <= 1.0 + 1e-5);
    }
    let settled = settled_layer(&lens).unwrap();
    assert!(lens[settled - 1..].iter().all(|l| l.top[0].id == last[0].id));
    assert!(settled == 1 || lens[settled - 2].top[0].id != last[0].id);
}

#[test]
fn tiny_lens_last_layer_is_the_final_distribution() {
    lens_matches_final_distribution(&tiny(), &prompt());
}

#[test]
fn pass_bench_times_a_pass_and_refuses_sizes_it_has_no_room_for() {
    let m = tiny();
    let mut bench = PassBench::new(&m, prompt(), 8).unwrap();
    assert_eq!(bench.max_tokens(), prompt().len() - 8);
    let clock = std::cell::Cell::new(0.0);
    let tick = || {
        clock.set(clock.get() + 1.0);
        clock.get()
    };
    assert_eq!(bench.median_ms(&m, 4, 3, &tick).unwrap(), 1.0, "a tick before and after each pass");
    // The cache went back to position 8: the same pass again gives the same logits.
    assert_eq!(bench.median_ms(&m, 16, 1, &tick).unwrap(), 1.0);
    assert!(bench.median_ms(&m, 0, 1, &tick).is_err());
    assert!(bench.median_ms(&m, 17, 1, &tick).is_err());
    assert!(PassBench::new(&m, prompt(), 24).is_err());
}

// The real model.

fn real_reference() -> Reference {
    Reference::from_gguf_bytes(&real_bytes()).unwrap()
}

fn chat(m: &Model, text: &str) -> Vec<u32> {
    chat_tokens(&m.tokenizer, &[Message::user(text)], SystemPrompt::Default).unwrap()
}

#[test]
fn real_attention_equals_the_f32_reference() {
    let m = real();
    let reference = real_reference();
    let mut worst = 0f32;
    for (text, layers, heads) in [
        ("What is the capital of France?", [0, 14, 29], [0, 4, 8]),
        ("def fibonacci(n):", [1, 7, 22], [1, 3, 6]),
        ("Explain what a KV cache is in one sentence.", [5, 19, 28], [2, 5, 7]),
    ] {
        let toks = chat(&m, text);
        for layer in layers {
            let want = reference.attention(&toks, layer).unwrap();
            let cap = captured(&m, &toks, layer, None);
            for head in heads {
                for (i, (row, want)) in cap.matrix(head, toks.len()).iter().zip(&want[head]).enumerate() {
                    let d = max_abs_diff(row.as_ref().unwrap(), want);
                    worst = worst.max(d);
                    assert!(d < 1e-4, "{text:?} layer {} head {} row {i}: {d}", layer + 1, head + 1);
                }
            }
        }
    }
    eprintln!("attention vs f32 reference: max |Δweight| {worst:e}");
}

#[test]
fn real_lens_last_layer_is_the_final_distribution() {
    let m = real();
    lens_matches_final_distribution(&m, &chat(&m, "What is the capital of France?"));
}

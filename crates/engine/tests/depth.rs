//! The deep-thinking ratio (probe/depth.rs) on the real model: every layer's divergence from
//! the last is 0 at the last layer and within [0, ln 2]; it equals a plain-f32 reference
//! (candle's own llama, softmax and Jensen–Shannon in f64, written out naively); settling
//! depths and the DTR follow from the divergences by the definition; scoring a greedy
//! reply teacher-forced gives the divergences of the generation's own hidden states; and
//! replies scored after one shared prefill of their prompt get exactly the divergences of
//! each scored alone.

mod common;
use common::*;
use engine::kv_cache::KvCache;
use engine::probe::depth::{divergences, score, settle, SharedPrompt, Thresholds, TokenDepth, Unit};
use engine::reference::Reference;
use engine::{prompt_tokens, Model, SamplerSettings, SystemPrompt};
use std::f64::consts::LN_2;
use std::sync::OnceLock;

const PROMPTS: [&str; 3] =
    ["What is 17 + 25?", "Name a mammal that can fly.", "Is 91 a prime number? Answer yes or no."];

fn prompt(text: &str) -> Vec<u32> {
    prompt_tokens(&real().tokenizer, text, false, SystemPrompt::Default).unwrap()
}

/// The greedy reply of up to `n` tokens, and the hidden states after every layer of each
/// pass that produced one of its tokens (the session's own probe: the prefill for the first,
/// a one-token decode for each later one), position-major as `divergences` takes them.
fn generate(prompt: &[u32], n: usize) -> (Vec<u32>, Vec<f32>) {
    let mut s = session(real());
    s.probe.hidden = Some(Vec::new());
    s.start(prompt, 0).unwrap();
    let (mut tokens, mut rows) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let step = s.step(&SamplerSettings::greedy()).unwrap();
        rows.extend(s.probe.hidden.as_ref().unwrap().iter().flatten());
        tokens.push(step.token);
        if step.stop {
            break;
        }
    }
    (tokens, rows)
}

/// Per prompt: its tokens, the greedy reply, the generation's states and the teacher-forced scores.
struct Case {
    prompt: Vec<u32>,
    reply: Vec<u32>,
    generated_states: Vec<f32>,
    scored: Vec<TokenDepth>,
}

fn cases() -> &'static Vec<Case> {
    static C: OnceLock<Vec<Case>> = OnceLock::new();
    C.get_or_init(|| {
        PROMPTS
            .iter()
            .map(|text| {
                let prompt = prompt(text);
                let (reply, generated_states) = generate(&prompt, 24);
                let scored = score(&real(), &prompt, &reply).unwrap();
                Case { prompt, reply, generated_states, scored }
            })
            .collect()
    })
}

#[test]
fn every_token_has_one_divergence_per_layer_zero_at_the_last_and_within_0_to_ln_2() {
    let layers = real().config.layers;
    for c in cases() {
        assert_eq!(c.scored.len(), c.reply.len());
        for (t, &id) in c.scored.iter().zip(&c.reply) {
            assert_eq!(t.id, id);
            assert_eq!(t.jsd.len(), layers);
            assert_eq!(t.jsd[layers - 1], 0.0, "{:?}", t.jsd);
            for &d in &t.jsd {
                assert!((0.0..=LN_2 as f32).contains(&d), "D = {d} outside [0, ln 2]: {:?}", t.jsd);
            }
        }
        // Not all zero: for most tokens the first layer's lens is far from the model's own
        // distribution (D near ln 2: almost no overlap).
        let far = c.scored.iter().filter(|t| t.jsd[0] > 0.5).count();
        assert!(2 * far > c.scored.len(), "{far} of {}", c.scored.len());
    }
}

/// Naive f64: softmax of each, then ½ Σ p ln(p/m) + ½ Σ q ln(q/m) over terms with m > 0.
fn reference_jsd(p_logits: &[f32], q_logits: &[f32]) -> f64 {
    let softmax = |z: &[f32]| {
        let max = z.iter().map(|&v| v as f64).fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = z.iter().map(|&v| (v as f64 - max).exp()).collect();
        let s: f64 = e.iter().sum();
        e.into_iter().map(|v| v / s).collect::<Vec<f64>>()
    };
    let (p, q) = (softmax(p_logits), softmax(q_logits));
    let kl = |a: f64, m: f64| if a > 0.0 { a * (a / m).ln() } else { 0.0 };
    p.iter().zip(&q).map(|(&p, &q)| ((p + q) / 2.0, p, q)).map(|(m, p, q)| 0.5 * kl(p, m) + 0.5 * kl(q, m)).sum()
}

#[test]
fn divergences_equal_a_plain_f32_reference_within_1e_3() {
    let reference = Reference::from_gguf_bytes(&real_bytes()).unwrap();
    let mut worst = 0f64;
    for c in cases() {
        // The first 6 reply tokens: the reference holds every layer's logits in memory.
        let n = c.reply.len().min(6);
        let all: Vec<u32> = c.prompt.iter().chain(&c.reply[..n]).copied().collect();
        let first = c.prompt.len() - 1;
        let lens = reference.lens_logits(&all, first..first + n).unwrap();
        for (t, layers) in lens.iter().enumerate() {
            let last = layers.last().unwrap();
            for (l, logits) in layers.iter().enumerate() {
                let want = reference_jsd(last, logits);
                let got = c.scored[t].jsd[l] as f64;
                worst = worst.max((want - got).abs());
                assert!((want - got).abs() < 1e-3, "token {t} layer {}: engine {got}, reference {want}", l + 1);
            }
        }
    }
    eprintln!("largest |D - reference D|: {worst:.2e}");
}

/// The definition, written out again: c_t = the smallest l with min_{j ≤ l} D_j ≤ g, deep
/// when c_t ≥ ⌈ρL⌉, which for a whole number c_t is c_t ≥ ρL. D in nats, or in bits
/// (D / ln 2) when `bits`.
fn settle_by_definition(jsd: &[f32], g: f64, bits: bool) -> Option<usize> {
    let d = |d: f32| if bits { (d as f64 / LN_2).min(1.0) } else { d as f64 };
    (1..=jsd.len()).find(|&l| jsd[..l].iter().map(|&x| d(x)).fold(f64::INFINITY, f64::min) <= g)
}

#[test]
fn settling_depth_and_dtr_follow_from_the_divergences_for_every_g_and_rho() {
    let layers = real().config.layers;
    let mut seen_deep = (false, false);
    for c in cases() {
        for g in [0.0, 0.01, 0.1, 0.25, 0.5, 0.6, LN_2] {
            // ρ·30 whole in binary (0.5, 0.9, 1), between layers (0.85, 0.62), or 0.
            for rho in [0.0, 0.5, 0.62, 0.85, 0.9, 1.0] {
                let t = Thresholds::new(g, rho, Unit::Nats).unwrap();
                let mut deep = 0;
                for token in &c.scored {
                    let want = settle_by_definition(&token.jsd, g, false).expect("the last layer's D is 0");
                    assert_eq!(settle(token.jsd.iter().map(|&d| d as f64), g), want, "g={g}: {:?}", token.jsd);
                    assert_eq!(t.settle(&token.jsd), want, "g={g}: {:?}", token.jsd);
                    let is_deep = want as f64 >= rho * layers as f64;
                    assert_eq!(t.deep(&token.jsd), is_deep, "g={g} rho={rho} settle={want}");
                    deep += usize::from(is_deep);
                    if rho == 0.85 && g == 0.5 {
                        seen_deep = (seen_deep.0 || is_deep, seen_deep.1 || !is_deep);
                    }
                }
                let (n, dtr) = t.ratio(c.scored.iter().map(|s| s.jsd.as_slice()));
                assert_eq!(n, deep);
                assert_eq!(dtr, Some(deep as f64 / c.scored.len() as f64));
            }
        }
    }
    // At g = 0.5 nats these replies have deep and shallow tokens, so the test above saw both.
    assert_eq!(seen_deep, (true, true));
    // In bits (the default unit), at the study's sweep of g: D / ln 2 against g.
    for c in cases() {
        for g in [0.25, 0.5, 0.75, 1.0] {
            let t = Thresholds::new(g, 0.85, Unit::Bits).unwrap();
            for token in &c.scored {
                assert_eq!(Some(t.settle(&token.jsd)), settle_by_definition(&token.jsd, g, true), "g={g} bits");
            }
        }
    }
}

#[test]
fn the_first_deep_layer_is_the_ceiling_of_rho_times_layers() {
    let at = |rho| Thresholds::new(0.5, rho, Unit::Bits).unwrap().first_deep_layer(30);
    assert_eq!((at(0.85), at(0.5), at(1.0), at(0.0)), (26, 15, 30, 0));
    // 0.1 × 30 is 3.0000000000000004 in binary: still layer 3, not 4.
    assert_eq!(at(0.1), 3);
    assert_eq!(at(0.7), 21);
}

#[test]
fn thresholds_outside_their_ranges_are_refused_with_the_range() {
    for (g, rho) in [(-0.01, 0.85), (0.7, 0.85), (f64::NAN, 0.85), (0.5, -0.1), (0.5, 1.01), (0.5, f64::NAN)] {
        let e = Thresholds::new(g, rho, Unit::Nats).unwrap_err().to_string();
        assert!(e.contains("0 to"), "{e}");
    }
    for (g, rho) in [(-0.01, 0.85), (1.01, 0.85), (f64::NAN, 0.85), (0.5, 1.01)] {
        let e = Thresholds::new(g, rho, Unit::Bits).unwrap_err().to_string();
        assert!(e.contains("0 to"), "{e}");
    }
}

#[test]
fn teacher_forced_scoring_equals_the_generations_own_states() {
    let model = real();
    let layers = model.config.layers;
    for c in cases() {
        let generated = divergences(&model, &c.generated_states, layers).unwrap();
        assert_eq!(generated.len(), c.scored.len());
        // Prefill (the tiled kernel) and decode (the matrix-vector kernel) round differently:
        // logits differ by about 5e-5, which moves a divergence by about as much; 1e-3 is a
        // bound with room that a wrong position or layer (D differing by 0.01 to 0.5) breaks.
        let mut worst = 0f32;
        for (t, (g, s)) in generated.iter().zip(&c.scored).enumerate() {
            for (l, (a, b)) in g.iter().zip(&s.jsd).enumerate() {
                worst = worst.max((a - b).abs());
                assert!((a - b).abs() < 1e-3, "token {t} layer {}: generation {a}, teacher-forced {b}", l + 1);
            }
        }
        eprintln!("largest |D generation - D teacher-forced|: {worst:.2e}");
        // The teacher-forced pass's own last layer predicts each reply token: its argmax is
        // the greedy token at every position.
        let all: Vec<u32> = c.prompt.iter().chain(&c.reply).copied().collect();
        let first = c.prompt.len() - 1;
        let (_, states) =
            model.forward_states(&all, 0, &mut KvCache::new(&model.config), first..first + c.reply.len()).unwrap();
        for (t, &id) in c.reply.iter().enumerate() {
            let logits = model.head(states.row(first + t, layers - 1)).unwrap();
            assert_eq!(argmax(&logits), id, "reply token {t}");
        }
    }
}

#[test]
fn scoring_in_one_chunk_or_many_gives_the_same_divergences() {
    // A reply longer than one chunk of the head (128 rows = 4 positions of 30 layers):
    // divergences of the whole equal those of each position alone.
    let model = real();
    let c = &cases()[0];
    let layers = model.config.layers;
    let all: Vec<u32> = c.prompt.iter().chain(&c.reply).copied().collect();
    let first = c.prompt.len() - 1;
    let (_, states) =
        model.forward_states(&all, 0, &mut KvCache::new(&model.config), first..first + c.reply.len()).unwrap();
    let whole = divergences(&model, &states.rows, layers).unwrap();
    let per_position = layers * model.config.embedding;
    for (t, rows) in states.rows.chunks(per_position).enumerate() {
        assert_eq!(divergences(&model, rows, layers).unwrap()[0], whole[t], "position {t}");
    }
}

#[test]
fn replies_scored_after_one_shared_prompt_equal_each_scored_alone_bit_for_bit() {
    let model = real();
    for c in cases() {
        let shared = SharedPrompt::new(&model, &c.prompt).unwrap();
        // Lengths whose own pass alone would take the decode kernels (1 to 8 tokens), the
        // tiled one (9 on), and the whole reply; one prompt's cache serves them all.
        for n in [1, 2, 8, 9, 12, c.reply.len()].into_iter().filter(|&n| n <= c.reply.len()) {
            let alone = score(&model, &c.prompt, &c.reply[..n]).unwrap();
            assert_eq!(shared.score(&model, &c.reply[..n]).unwrap(), alone, "{n} reply tokens");
        }
    }
    // A prompt of a few tokens is not prefilled alone: each reply's pass takes it whole.
    let short = &cases()[0].prompt[..3];
    let reply = &cases()[0].reply[..4];
    assert_eq!(SharedPrompt::new(&model, short).unwrap().score(&model, reply).unwrap(), score(&model, short, reply).unwrap());
}

#[test]
fn bad_input_is_refused() {
    let model: std::sync::Arc<Model> = real();
    let p = prompt("Hi");
    assert!(score(&model, &p, &[]).unwrap_err().to_string().contains("no tokens"));
    assert!(score(&model, &[], &[1]).is_err());
    assert!(SharedPrompt::new(&model, &[]).is_err());
    assert!(SharedPrompt::new(&model, &p).unwrap().score(&model, &[]).unwrap_err().to_string().contains("no tokens"));
    let too_long = vec![1u32; model.config.context];
    assert!(score(&model, &p, &too_long).unwrap_err().to_string().contains("context"));
    assert!(score(&model, &p, &[model.config.vocab as u32]).unwrap_err().to_string().contains("vocabulary"));
}

#[test]
fn a_lesson_3_sample_is_scored_on_the_tokens_it_generated_in_its_own_context() {
    use engine::reasoning::runner::run_all;
    use engine::reasoning::strategy::{prompt_ids, RunConfig, Strategy};
    use engine::reasoning::tasks::bundled_tasks;
    use engine::reasoning::trace_depth::{sample_depth, task_prompt};
    let model = real();
    let tasks: Vec<_> = bundled_tasks().into_iter().filter(|t| ["arith-01", "chain-02"].contains(&t.id.as_str())).collect();
    // A budget of 24 cuts some traces, so both kinds of sample (forced `Answer:` or not) occur.
    let cfg = RunConfig { strategy: Strategy::SelfConsistency, samples: 3, temperature: 0.7, budget: 24, seed: 5, forced_answer: true };
    let results = run_all(&mut session(model.clone()), &tasks, &cfg, || 0.0).unwrap();
    let mut forced = (0, 0);
    for (task, r) in tasks.iter().zip(&results) {
        let shared = task_prompt(&model, task, cfg.strategy).unwrap();
        for sample in &r.samples {
            let d = sample_depth(&model, &shared, sample).unwrap().unwrap();
            let bytes: Vec<u8> =
                d.tokens.iter().flat_map(|t| model.tokenizer.token_bytes(t.id).to_vec()).collect();
            let text = String::from_utf8_lossy(&bytes);
            // Forced: the reasoning before `Answer:`; otherwise reasoning and answer, in one context.
            if sample.forced_answer {
                forced.0 += 1;
                assert_eq!(text, sample.reasoning);
            } else {
                forced.1 += 1;
                let end = model.tokenizer.token_text(*sample.tokens.last().unwrap());
                let written = format!("{}{}", sample.reasoning, sample.answer_text);
                assert!(text == written || text == format!("{written}{end}"), "{text:?} vs {written:?}");
            }
            assert_eq!(d.texts.len(), d.tokens.len());
            // Scored after the task's shared prompt: what scoring it alone gives, bit for bit.
            let alone = score(&model, &prompt_ids(&model.tokenizer, task, cfg.strategy).unwrap(), sample.continuous_tokens());
            assert_eq!(alone.unwrap(), d.tokens);
        }
    }
    assert!(forced.0 > 0 && forced.1 > 0, "{forced:?}");
}

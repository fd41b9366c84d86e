//! The Lesson 3 runner on the tiny model: token accounting, budgets, votes, determinism.

mod common;
use common::*;
use engine::reasoning::runner::{run_all, ItemRunner};
use engine::reasoning::strategy::{summarize, ItemResult, RunConfig, Strategy};
use engine::reasoning::task::Task;
use engine::reasoning::tasks::{bundled_tasks, select};
use engine::testing::TinyModel;
use engine::Model;
use std::sync::Arc;
use std::time::Instant;

fn run(strategy: Strategy, samples: usize, budget: usize, seed: u64) -> Vec<ItemResult> {
    let tasks = select(&bundled_tasks(), None, Some(4), Some(3));
    let cfg = RunConfig { strategy, samples, temperature: 1.0, budget, seed, forced_answer: true };
    let mut s = session(tiny());
    let t0 = Instant::now();
    run_all(&mut s, &tasks, &cfg, || t0.elapsed().as_secs_f64() * 1000.0).unwrap()
}

#[test]
fn reasoning_plus_answer_tokens_equal_total_for_every_strategy() {
    for strategy in [Strategy::Direct, Strategy::Cot, Strategy::SelfConsistency, Strategy::Hidden] {
        let items = run(strategy, 3, 12, 1);
        assert_eq!(items.len(), 4);
        for i in &items {
            assert_eq!(i.reasoning_tokens + i.answer_tokens, i.total_tokens);
            let per_sample: usize = i.samples.iter().map(|s| s.reasoning_tokens + s.answer_tokens).sum();
            assert_eq!(per_sample, i.total_tokens);
            assert!(i.total_tokens > 0);
        }
        let sum = summarize(strategy, &items);
        assert_eq!(sum.reasoning_tokens + sum.answer_tokens, sum.total_tokens);
        assert_eq!(sum.n, 4);
    }
}

#[test]
fn the_live_token_count_grows_by_one_per_token_and_ends_at_the_total() {
    let task = select(&bundled_tasks(), None, Some(1), Some(3)).remove(0);
    for strategy in [Strategy::Direct, Strategy::Cot, Strategy::SelfConsistency, Strategy::Hidden] {
        let cfg = RunConfig { strategy, samples: 3, temperature: 1.0, budget: 6, seed: 4, forced_answer: true };
        let mut runner = ItemRunner::new(task.clone(), cfg).unwrap();
        let mut s = session(tiny());
        // Self-consistency's 3 samples decode together: a call draws a token for each.
        let per_call = if strategy == Strategy::SelfConsistency { 3 } else { 1 };
        let mut seen = 0;
        let result = loop {
            // The last call generates the last token(s), then returns the result.
            if let Some(result) = runner.advance(&mut s, 0.0).unwrap() {
                break result;
            }
            let now = runner.tokens();
            assert!(now >= seen && now <= seen + per_call, "{strategy:?}: {seen} then {now}");
            seen = now;
        };
        assert!(result.total_tokens > seen && result.total_tokens <= seen + per_call, "{strategy:?}");
    }
}

#[test]
fn direct_spends_no_reasoning_tokens_and_budgets_bound_reasoning() {
    assert!(run(Strategy::Direct, 1, 12, 1).iter().all(|i| i.reasoning_tokens == 0));
    for i in run(Strategy::Cot, 1, 7, 1) {
        assert!(i.samples[0].reasoning_tokens <= 7, "{}", i.samples[0].reasoning_tokens);
    }
    // Hidden reasoning always ends with the runner's forced answer line.
    assert!(run(Strategy::Hidden, 1, 5, 1).iter().all(|i| i.samples[0].forced_answer));
}

#[test]
fn self_consistency_votes_over_every_sample() {
    for i in run(Strategy::SelfConsistency, 3, 6, 2) {
        assert_eq!(i.samples.len(), 3);
        if let Some(v) = &i.votes {
            assert!(v.counts.iter().map(|c| c.1).sum::<usize>() <= 3);
            assert_eq!(i.final_answer.as_deref(), Some(v.winner.as_str()));
            // The vote counts exactly the keys the checker scored.
            let voted: usize = v.counts.iter().map(|c| c.1).sum();
            assert_eq!(voted, i.samples.iter().filter(|s| s.canonical.is_some()).count());
        }
        assert!(i.expected.is_some());
        assert_eq!(i.correct, i.final_answer.is_some() && i.final_answer == i.expected);
        for s in &i.samples {
            assert_eq!(s.correct, s.canonical.is_some() && s.canonical == i.expected);
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_results() {
    let strip = |v: Vec<ItemResult>| {
        v.into_iter()
            .map(|mut i| {
                i.latency_ms = 0.0;
                i
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(run(Strategy::SelfConsistency, 2, 6, 9)), strip(run(Strategy::SelfConsistency, 2, 6, 9)));
}

#[test]
fn bad_run_settings_are_errors() {
    let bad = |cfg: RunConfig| cfg.validate().unwrap_err().to_string();
    let ok = RunConfig { strategy: Strategy::Cot, samples: 1, temperature: 0.7, budget: 64, seed: 0, forced_answer: true };
    assert!(bad(RunConfig { samples: 0, ..ok.clone() }).contains("samples"));
    assert!(bad(RunConfig { budget: 0, ..ok.clone() }).contains("budget"));
    assert!(bad(RunConfig { temperature: f32::NAN, strategy: Strategy::SelfConsistency, ..ok.clone() })
        .contains("temperature"));
}

/// Every task through `runner` on one session, latencies zeroed (they are the only figures
/// that may differ between two runs).
fn run_with(
    model: &Arc<Model>,
    tasks: &[Task],
    cfg: &RunConfig,
    max_context: usize,
    runner: fn(Task, RunConfig) -> engine::Result<ItemRunner>,
) -> Vec<ItemResult> {
    let mut s = session(model.clone());
    s.set_max_context(max_context);
    let mut out = Vec::new();
    for task in tasks {
        let mut r = runner(task.clone(), cfg.clone()).unwrap();
        let mut result = loop {
            if let Some(result) = r.advance(&mut s, 0.0).unwrap() {
                break result;
            }
        };
        result.latency_ms = 0.0;
        out.push(result);
    }
    out
}

/// Self-consistency batched against its samples decoded one after another: the same
/// samples (text, token counts, forced answers), extracted answers, verdicts and votes.
/// `max_context` caps the session, and with it how many samples a batch takes.
fn assert_batched_equals_unbatched(
    model: &Arc<Model>,
    tasks: &[Task],
    cfg: &RunConfig,
    max_context: usize,
) -> Vec<ItemResult> {
    let batched = run_with(model, tasks, cfg, max_context, ItemRunner::new);
    let unbatched = run_with(model, tasks, cfg, max_context, ItemRunner::unbatched);
    for (b, u) in batched.iter().zip(&unbatched) {
        for (i, (bs, us)) in b.samples.iter().zip(&u.samples).enumerate() {
            assert_eq!(bs, us, "task {}, sample {i}", b.task_id);
        }
        assert_eq!(b, u, "task {}", b.task_id);
    }
    assert_eq!(batched.len(), tasks.len());
    batched
}

#[test]
fn batched_self_consistency_gives_the_samples_of_one_session_per_sample() {
    // 10 samples: in a long context a batch of 8, then one of 2; in a short one, batches
    // of fewer (their caches together stay within the context). A budget of 5 forces most
    // answers.
    let model = Arc::new(Model::from_gguf_bytes(&TinyModel { context: 8192, ..Default::default() }.to_gguf()).unwrap());
    let tasks = select(&bundled_tasks(), None, Some(4), Some(3));
    for (temperature, max_context) in [(1.5, 8192), (3.0, 8192), (3.0, 700)] {
        let cfg = RunConfig { strategy: Strategy::SelfConsistency, samples: 10, temperature, budget: 5, seed: 11, forced_answer: true };
        let items = assert_batched_equals_unbatched(&model, &tasks, &cfg, max_context);
        let samples: Vec<_> = items.iter().flat_map(|i| &i.samples).collect();
        assert_eq!(samples.len(), 40);
        assert!(samples.iter().any(|s| s.forced_answer), "a forced answer mid-batch should be covered");
        let texts: std::collections::BTreeSet<_> = samples.iter().map(|s| &s.reasoning).collect();
        assert!(texts.len() >= 5, "sampled traces should differ: {} distinct of 40", texts.len());
    }
}

#[test]
fn a_batch_takes_at_most_8_samples_and_as_many_as_fit_the_context_together() {
    let model = Arc::new(Model::from_gguf_bytes(&TinyModel { context: 8192, ..Default::default() }.to_gguf()).unwrap());
    let task = select(&bundled_tasks(), None, Some(1), Some(3)).remove(0);
    let cfg = RunConfig { strategy: Strategy::SelfConsistency, samples: 10, temperature: 3.0, budget: 40, seed: 5, forced_answer: true };
    // The most tokens one call adds: one per sample of the batch.
    let widest = |max_context: usize| {
        let mut s = session(model.clone());
        s.set_max_context(max_context);
        let mut r = ItemRunner::new(task.clone(), cfg.clone()).unwrap();
        let (mut seen, mut widest) = (0, 0);
        while r.advance(&mut s, 0.0).unwrap().is_none() {
            widest = widest.max(r.tokens() - seen);
            seen = r.tokens();
        }
        widest
    };
    let prompt = engine::chat_tokens(
        &model.tokenizer,
        &[engine::Message::user(&engine::reasoning::strategy::prompt(&task, Strategy::SelfConsistency))],
        engine::SystemPrompt::Default,
    )
    .unwrap()
    .len();
    assert_eq!(widest(8192), 8);
    // Room for 3 samples of at most prompt + budget + "\nAnswer:" + answer cap, not 4.
    assert_eq!(widest(4 * (prompt + 40 + 32)), 3);
}

#[test]
fn batched_self_consistency_on_the_real_model_equals_unbatched() {
    let tasks = select(&bundled_tasks(), None, Some(3), Some(1));
    let cfg = RunConfig { strategy: Strategy::SelfConsistency, samples: 4, temperature: 0.7, budget: 24, seed: 42, forced_answer: true };
    let items = assert_batched_equals_unbatched(&real(), &tasks, &cfg, 2048);
    let samples: Vec<_> = items.iter().flat_map(|i| &i.samples).collect();
    assert!(samples.iter().any(|s| s.forced_answer), "the budget should force some answers");
    assert!(samples.iter().any(|s| !s.forced_answer), "some traces should end by themselves");
    assert!(samples.iter().any(|s| s.canonical.is_some()), "some samples should settle on an answer");
}

#[test]
fn without_the_forced_answer_a_cut_trace_ends_with_no_answer_and_with_it_the_run_is_unchanged() {
    let tasks = select(&bundled_tasks(), None, Some(6), Some(3));
    for strategy in [Strategy::Cot, Strategy::SelfConsistency, Strategy::Hidden] {
        let on = RunConfig { strategy, samples: 3, temperature: 1.0, budget: 10, seed: 2, forced_answer: true };
        // A config written before the option (a saved run, a page's message) forces, as before.
        let mut older = serde_json::to_value(&on).unwrap();
        older.as_object_mut().unwrap().remove("forced_answer");
        assert_eq!(serde_json::from_value::<RunConfig>(older).unwrap(), on);
        let off = RunConfig { forced_answer: false, ..on.clone() };
        let with = run_all(&mut session(tiny()), &tasks, &on, || 0.0).unwrap();
        let without = run_all(&mut session(tiny()), &tasks, &off, || 0.0).unwrap();
        let mut cut = 0;
        for (a, b) in with.iter().zip(&without) {
            assert_eq!(a.samples.len(), b.samples.len());
            for (x, y) in a.samples.iter().zip(&b.samples) {
                // The same reasoning either way, up to where the budget ends it.
                assert_eq!((&x.reasoning, x.reasoning_tokens, x.truncated), (&y.reasoning, y.reasoning_tokens, y.truncated));
                if !y.truncated {
                    assert_eq!(x, y, "{strategy:?}: a trace the budget did not cut is the same sample");
                    continue;
                }
                cut += 1;
                assert_eq!(y.reasoning_tokens, 10);
                assert!(x.forced_answer, "{strategy:?}: with the option the runner writes the answer line");
                assert!(!y.forced_answer && y.answer_text.is_empty() && y.answer_tokens == 0, "{strategy:?}: {y:?}");
                assert_eq!((&y.extracted, &y.canonical, y.correct), (&None, &None, false), "{strategy:?}: no answer");
                assert_eq!(y.tokens.as_slice(), &x.tokens[..x.reasoning_tokens]);
            }
            assert_eq!(b.reasoning_tokens + b.answer_tokens, b.total_tokens);
        }
        assert!(cut > 0, "{strategy:?}: the budget cut no trace, so nothing was tested");
    }
}

//! The Lesson 3 runner on the tiny model: token accounting, budgets, votes, determinism.

mod common;
use common::*;
use engine::reasoning::strategy::{run_all, summarize, ItemRunner, RunConfig, Strategy};
use engine::reasoning::tasks::{bundled_tasks, select};
use std::time::Instant;

fn run(strategy: Strategy, samples: usize, budget: usize, seed: u64) -> Vec<engine::reasoning::strategy::ItemResult> {
    let tasks = select(&bundled_tasks(), None, Some(4), Some(3));
    let cfg = RunConfig { strategy, samples, temperature: 1.0, budget, seed };
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
        let cfg = RunConfig { strategy, samples: 3, temperature: 1.0, budget: 6, seed: 4 };
        let mut runner = ItemRunner::new(task.clone(), cfg).unwrap();
        let mut s = session(tiny());
        let mut seen = 0;
        let result = loop {
            // The last call generates the last token, then returns the result.
            if let Some(result) = runner.advance(&mut s, 0.0).unwrap() {
                break result;
            }
            let now = runner.tokens();
            assert!(now == seen || now == seen + 1, "{strategy:?}: {seen} then {now}");
            seen = now;
        };
        assert_eq!(seen + 1, result.total_tokens, "{strategy:?}");
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
    let strip = |v: Vec<engine::reasoning::strategy::ItemResult>| {
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
    let ok = RunConfig { strategy: Strategy::Cot, samples: 1, temperature: 0.7, budget: 64, seed: 0 };
    assert!(bad(RunConfig { samples: 0, ..ok.clone() }).contains("samples"));
    assert!(bad(RunConfig { budget: 0, ..ok.clone() }).contains("budget"));
    assert!(bad(RunConfig { temperature: f32::NAN, strategy: Strategy::SelfConsistency, ..ok.clone() })
        .contains("temperature"));
}

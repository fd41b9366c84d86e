//! Speculative decoding is lossless: greedy output equals plain greedy output, and under
//! sampling the first speculative token follows the target's distribution.

mod common;
use common::*;
use engine::sampler::SamplerSettings;
use engine::speculative::{prompt_lookup, Draft};
use engine::{chat_tokens, Message, SystemPrompt};

fn tiny_prompts() -> Vec<Vec<u32>> {
    (0..20u32)
        .map(|p| {
            // Some prompts repeat themselves, so that prompt lookup has something to find.
            let base: Vec<u32> = (0..12).map(|i| (i * 31 + p * 17) % 280 + 3).collect();
            if p % 2 == 0 {
                [base.clone(), base[..6].to_vec()].concat()
            } else {
                base
            }
        })
        .collect()
}

#[test]
fn greedy_speculation_equals_plain_greedy_on_the_tiny_model() {
    let m = tiny();
    let g = SamplerSettings::greedy();
    let mut accepted_any = false;
    for prompt in tiny_prompts() {
        let mut plain = session(m.clone());
        plain.start(&prompt, 0).unwrap();
        let plain_run = plain.generate(&g, 20, |_| true).unwrap();
        let (want, want_steps) = (plain_run.tokens, plain_run.steps);
        for draft in [Draft::PromptLookup, Draft::EarlyExit { layers: 2 }] {
            for k in 1..=8 {
                let mut s = session(m.clone());
                s.start(&prompt, 0).unwrap();
                let out = s.generate_speculative(&g, 20, draft, k, |_, _| true).unwrap();
                assert_eq!(out.generation.tokens, want, "{draft:?} k={k} prompt {prompt:?}");
                for (a, b) in out.generation.steps.iter().zip(&want_steps) {
                    assert!((a.model_logprob - b.model_logprob).abs() < 1e-3, "log-probabilities agree");
                }
                assert!(out.accepted <= out.drafted);
                accepted_any |= out.accepted > 0;
            }
        }
    }
    assert!(accepted_any, "some drafts must be accepted for the test to mean anything");
}

#[test]
fn greedy_speculation_equals_plain_greedy_on_the_real_model() {
    let m = real();
    let g = SamplerSettings::greedy();
    for text in
        ["Repeat this list exactly: apple, banana, cherry, apple, banana, cherry", "What is the capital of France?"]
    {
        let ids = chat_tokens(&m.tokenizer, &[Message::user(text)], SystemPrompt::Default).unwrap();
        let mut plain = session(m.clone());
        plain.start(&ids, 0).unwrap();
        let want = plain.generate(&g, 24, |_| true).unwrap().tokens;
        for (draft, k) in [(Draft::PromptLookup, 4), (Draft::EarlyExit { layers: 10 }, 3)] {
            let mut s = session(m.clone());
            s.start(&ids, 0).unwrap();
            let out = s.generate_speculative(&g, 24, draft, k, |_, _| true).unwrap();
            assert_eq!(out.generation.tokens, want, "{draft:?} on {text}");
        }
    }
}

#[test]
fn the_first_speculative_token_follows_the_target_distribution() {
    let m = tiny();
    let prompt: Vec<u32> = [10u32, 20, 30, 40, 10, 20, 30].to_vec();
    let settings = SamplerSettings { temperature: 1.5, top_k: 6, top_p: 1.0, min_p: 0.0, ..SamplerSettings::default() };
    let mut reference = session(m.clone());
    reference.start(&prompt, 0).unwrap();
    let target = reference.distribution(&settings).unwrap();
    for draft in [Draft::PromptLookup, Draft::EarlyExit { layers: 1 }] {
        let n = 3000;
        let mut counts = std::collections::HashMap::new();
        for seed in 0..n {
            let mut s = session(m.clone());
            s.start(&prompt, seed).unwrap();
            let (cycle, steps) = s.speculative_step(&settings, draft, 3).unwrap();
            assert!(!cycle.drafted.is_empty(), "{draft:?} proposed nothing");
            *counts.entry(steps[0].token).or_insert(0usize) += 1;
        }
        let fit = fit(&target.candidates[..6], &counts, n as usize);
        assert_eq!(counts.values().sum::<usize>(), n as usize);
        assert!(counts.keys().all(|id| target.get(*id).unwrap().eligible()), "{draft:?} drew an ineligible token");
        assert_eq!(fit.dof, 5);
        assert!(fit.p_value > 0.001, "{draft:?}: {fit:?}, counts {counts:?}");
    }
}

#[test]
fn prompt_lookup_copies_what_followed_the_last_match() {
    assert_eq!(prompt_lookup(&[1, 2, 3, 4, 5, 1, 2, 3], 2), [4, 5]);
    assert_eq!(prompt_lookup(&[7, 1, 2, 9, 1, 2], 5), [9, 1, 2]);
    assert_eq!(prompt_lookup(&[1, 2, 3], 4), Vec::<u32>::new());
}

#[test]
fn bad_speculation_settings_are_errors() {
    let m = tiny();
    let mut s = session(m);
    s.start(&[5, 6, 7], 0).unwrap();
    let g = SamplerSettings::greedy();
    assert!(s.speculative_step(&g, Draft::PromptLookup, 0).unwrap_err().to_string().contains("draft_len"));
    assert!(s
        .speculative_step(&g, Draft::EarlyExit { layers: 4 }, 2)
        .unwrap_err()
        .to_string()
        .contains("draft_layers"));
}

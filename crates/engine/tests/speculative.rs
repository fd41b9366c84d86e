//! Speculative decoding is lossless: greedy output equals plain greedy output, with or
//! without a repetition penalty, and under sampling the speculative tokens follow the
//! target's distribution.

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
    for g in [SamplerSettings::greedy(), penalized_greedy()] {
        greedy_speculation_equals_plain_greedy_on_tiny(&g);
    }
}

/// Greedy with CTRL's repetition penalty, stronger than its 1.2: a speculation that ignored
/// it would repeat what plain greedy avoids.
fn penalized_greedy() -> SamplerSettings {
    SamplerSettings { repeat_penalty: 1.3, ..SamplerSettings::greedy() }
}

fn greedy_speculation_equals_plain_greedy_on_tiny(g: &SamplerSettings) {
    let m = tiny();
    let g = g.clone();
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
                assert_eq!(out.generation.tokens, want, "{draft:?} k={k} prompt {prompt:?} {g:?}");
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
    for g in [SamplerSettings::greedy(), penalized_greedy()] {
        greedy_speculation_equals_plain_greedy_on_real(&g);
    }
}

fn greedy_speculation_equals_plain_greedy_on_real(g: &SamplerSettings) {
    let m = real();
    let g = g.clone();
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
            assert_eq!(out.generation.tokens, want, "{draft:?} on {text} with {g:?}");
            // Greedy β is 1 for each accepted draft and 0 for the first rejected one (the last
            // cycle may stop early, at an end of turn, and is left out).
            let whole = &out.cycles[..out.cycles.len().saturating_sub(1)];
            for c in whole {
                let ones = c.betas.iter().filter(|&&b| b == 1.0).count();
                assert_eq!(ones, c.accepted, "{c:?}");
                assert_eq!(c.betas.len(), (c.accepted + 1).min(c.drafted.len()), "{c:?}");
            }
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

/// Draw counts as the page cells them: each token expected at least once on its own, every
/// other token together; `(count, probability)` pairs covering every outcome.
fn cells(target: &engine::Distribution, counts: &std::collections::HashMap<u32, usize>, n: usize) -> Vec<(u64, f64)> {
    let own: Vec<&engine::sampler::Candidate> =
        target.candidates.iter().filter(|c| c.final_prob as f64 * n as f64 >= 1.0).collect();
    let mut cells: Vec<(u64, f64)> =
        own.iter().map(|c| (*counts.get(&c.id).unwrap_or(&0) as u64, c.final_prob as f64)).collect();
    let rest_count = n as u64 - cells.iter().map(|c| c.0).sum::<u64>();
    let rest_prob = (1.0 - cells.iter().map(|c| c.1).sum::<f64>()).max(0.0);
    cells.push((rest_count, rest_prob));
    cells
}

/// From `ids`, `starts` speculative starts (seeds 0, 1, …): the second tokens of those whose
/// first token was the target's most likely one, tested against the target's distribution
/// given that token by chi-square and by distance. Returns how many of the tested starts had
/// their first draft accepted (their second token then came from the same cycle: the next
/// accepted draft, a resample from the residual, or the bonus token).
fn second_tokens_follow_the_target(m: std::sync::Arc<engine::Model>, ids: &[u32], settings: &SamplerSettings, draft: Draft, starts: u64) -> (usize, usize) {
    use engine::chi_square::{chi_square, expected_total_variation, total_variation};
    let mut reference = session(m.clone());
    reference.start(ids, 0).unwrap();
    let top = reference.distribution(settings).unwrap().candidates[0].id;
    reference.start(&[ids.to_vec(), vec![top]].concat(), 0).unwrap();
    let target = reference.distribution(settings).unwrap();
    let mut s = session(m);
    let (mut counts, mut n, mut same_cycle) = (std::collections::HashMap::new(), 0usize, 0usize);
    for seed in 0..starts {
        let two = s.speculative_two_tokens(ids, settings, draft, 2, seed).unwrap();
        if let (true, Some(second)) = (two.first == top, two.second) {
            *counts.entry(second).or_insert(0usize) += 1;
            n += 1;
            same_cycle += usize::from(two.first_accepted);
        }
    }
    assert!(n >= 100, "{draft:?}: only {n} starts began with the most likely token");
    let cells = cells(&target, &counts, n);
    let fit = chi_square(&cells, n as u64).expect("two or more outcomes to test");
    assert!(fit.p_value > 0.001, "{draft:?}: {fit:?} over {n} draws, counts {counts:?}");
    let probs: Vec<f64> = cells.iter().map(|c| c.1).collect();
    let (tvd, chance) = (total_variation(&cells, n as u64), expected_total_variation(&probs, n as u64));
    assert!(tvd < 2.5 * chance, "{draft:?}: distance {tvd:.3}, chance alone {chance:.3}");
    (n, same_cycle)
}

/// A penalty makes the second token depend on the history the first token joined.
#[test]
fn the_second_speculative_token_follows_the_target_distribution_given_the_first() {
    // The real model with prompt lookup (an early-exit draft recomputes the prompt's first
    // layers at every start: minutes on a shared machine). Its first draft after the chat
    // template is rarely right, so its second tokens come mostly from a second cycle, whose
    // history holds the first token. The first token is likely and not in the prompt.
    let m = real();
    let ids = chat_tokens(
        &m.tokenizer,
        &[Message::user("What is the capital of France? Answer in one word.")],
        SystemPrompt::Default,
    )
    .unwrap();
    let settings = SamplerSettings { repeat_penalty: 1.3, ..SamplerSettings::plain(0.8, 0) };
    second_tokens_follow_the_target(m, &ids, &settings, Draft::PromptLookup, 300);
    // The tiny model with an early-exit draft. Its random first layer almost never proposes
    // one of the target's six kept tokens, so here too the second token comes from a second
    // cycle.
    let settings = SamplerSettings { temperature: 1.5, top_k: 6, top_p: 1.0, min_p: 0.0, repeat_penalty: 1.3, ..SamplerSettings::default() };
    second_tokens_follow_the_target(tiny(), &[10, 20, 30, 40, 10, 20, 30], &settings, Draft::EarlyExit { layers: 1 }, 3000);
}

/// The second token from the first token's own cycle: after an accepted draft, the next draft
/// accepted, a token resampled from the residual, or the bonus token, which is where a wrong
/// history or bonus would show. A counting prompt makes prompt lookup's drafts (the numbers
/// that followed the last match) likely, so most first drafts are accepted.
#[test]
fn the_second_token_of_an_accepted_drafts_cycle_follows_the_target_distribution() {
    let m = real();
    let text = "1 2 3 4 5 6 7 8 9 10 1 2 3 4 5 6 7 8 9 10 1 2 3";
    let ids = engine::prompt_tokens(&m.tokenizer, text, true, SystemPrompt::Default).unwrap();
    let settings = SamplerSettings { top_k: 3, repeat_penalty: 1.1, ..SamplerSettings::plain(1.5, 0) };
    let (n, same_cycle) = second_tokens_follow_the_target(m, &ids, &settings, Draft::PromptLookup, 300);
    assert!(2 * same_cycle > n, "only {same_cycle} of {n} second tokens came from the first token's own cycle");
}

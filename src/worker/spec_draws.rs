//! Lesson 2's test of speculative sampling: from one prompt, `trials` speculative starts, one
//! seed each, and the first two tokens each emitted. The first tokens are counted against
//! plain sampling's probabilities; the second tokens of the trials whose first was the most
//! likely token, against plain sampling's probabilities given that token (what catches a
//! wrong history or bonus token, which the first token never meets).

use super::generate::prefill;
use super::lesson_two::begin;
use super::state;
use super::{post::post, yield_now::yield_now};
use crate::protocol::{CacheMode, DrawCell, Response, SecondDraws, StagePrompt, MAX_DRAW_TRIALS};
use engine::speculative::{Draft, MAX_DRAFT};
use engine::{Distribution, SamplerSettings};
use std::collections::HashMap;

pub async fn spec_draws(
    id: u32,
    prompt: &StagePrompt,
    settings: &SamplerSettings,
    draft: Draft,
    draft_len: usize,
    trials: usize,
) -> Result<Response, String> {
    if !(1..=MAX_DRAFT).contains(&draft_len) {
        return Err(format!("draft_len is {draft_len}; it must be 1 to {MAX_DRAFT}."));
    }
    if !(1..=MAX_DRAW_TRIALS).contains(&trials) {
        return Err(format!("trials is {trials}; it must be 1 to {MAX_DRAW_TRIALS}."));
    }
    if settings.temperature == 0.0 {
        return Err("Greedy decoding draws nothing: set a temperature above 0.".into());
    }
    begin(id, prompt, CacheMode::Reuse, settings, 2)?;
    if !prefill(id).await? {
        return Ok(Response::StageSpecDraws { cells: Vec::new(), trials: 0, first_accepted: 0, second: None });
    }
    // Both targets, fixed before any draw: the first token's, and the second's given the
    // first token's most likely value.
    let targets = state::with(|s| match s.owned(id) {
        None => Ok(None),
        Some(session) => {
            let ids = session.tokens().to_vec();
            let first = session.distribution(settings).map_err(|e| e.to_string())?;
            let top = first.candidates[0].id;
            session.start(&[ids.clone(), vec![top]].concat(), 0).map_err(|e| e.to_string())?;
            let second = session.distribution(settings).map_err(|e| e.to_string())?;
            Ok::<_, String>(Some((ids, first, top, second)))
        }
    })?;
    let (ids, first_target, top, second_target) = targets.ok_or("The request lost its session.")?;
    let (mut firsts, mut seconds): (HashMap<u32, u64>, HashMap<u32, u64>) = (HashMap::new(), HashMap::new());
    let (mut done, mut first_accepted, mut second_trials) = (0, 0, 0);
    while done < trials {
        let seed = done as u64;
        let drawn = state::with(|s| {
            s.owned(id).map(|session| session.speculative_two_tokens(&ids, settings, draft, draft_len, seed))
        });
        let two = match drawn {
            None => break,
            Some(result) => result.map_err(|e| e.to_string())?,
        };
        *firsts.entry(two.first).or_default() += 1;
        if let (true, Some(second)) = (two.first == top, two.second) {
            *seconds.entry(second).or_default() += 1;
            second_trials += 1;
        }
        first_accepted += usize::from(two.first_accepted);
        done += 1;
        if done % 20 == 0 {
            post(id, Response::StageDrawsProgress { done, total: trials });
            yield_now().await;
        }
    }
    let text_of = |t: u32| state::with(|s| s.model().map(|m| m.tokenizer.token_text(t))).unwrap_or_default();
    let second = (second_trials > 0).then(|| SecondDraws {
        first: text_of(top),
        cells: cells(&second_target, &seconds, second_trials, &text_of),
        trials: second_trials,
    });
    let cells = cells(&first_target, &firsts, done, &text_of);
    Ok(Response::StageSpecDraws { cells, trials: done, first_accepted, second })
}

/// Each token expected at least once in `n` draws has its own cell (most likely first); all
/// the others are one more cell, with every draw that fell among them. The cells are fixed by
/// the target alone, before looking at the draws: a drawn rare token does not get its own.
fn cells(target: &Distribution, counts: &HashMap<u32, u64>, n: usize, text_of: &dyn Fn(u32) -> String) -> Vec<DrawCell> {
    let mut cells: Vec<DrawCell> = target
        .candidates
        .iter()
        .filter(|c| c.final_prob as f64 * n as f64 >= 1.0)
        .map(|c| DrawCell {
            token: Some(c.id),
            text: text_of(c.id),
            prob: c.final_prob,
            count: counts.get(&c.id).copied().unwrap_or(0),
        })
        .collect();
    let rest_prob = 1.0 - cells.iter().map(|c| c.prob as f64).sum::<f64>();
    let rest_count = n as u64 - cells.iter().map(|c| c.count).sum::<u64>();
    if rest_prob > 1e-9 || rest_count > 0 {
        cells.push(DrawCell { token: None, text: String::new(), prob: rest_prob.max(0.0) as f32, count: rest_count });
    }
    cells
}

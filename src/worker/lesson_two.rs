//! Lesson 2's requests: generations that report what every token cost (with the KV cache
//! reused, cold or off), the model's shape for the KV formula, and speculative decoding one
//! cycle at a time, timed exactly like plain decoding so that the page can compare the two.

use super::generate::{self, decode, prefill, Decoded};
use super::state::{self, performance_now};
use super::{post::post, prompt, yield_now::yield_now};
use crate::content::STAGES;
use crate::protocol::{CacheMode, CycleReport, Response, StagePrompt, TokenCost};
use engine::speculative::{Cycle, Draft, MAX_DRAFT};
use engine::{chat_tokens, Model, SamplerSettings, Session, Step, StopReason, SystemPrompt};

pub fn shape() -> Result<Response, String> {
    state::with(|s| {
        let config = s.model()?.config.clone();
        Ok(Response::StageShape {
            kv_bytes_per_position: config.kv_bytes_per_position(),
            config,
        })
    })
}

pub async fn measure(
    id: u32,
    prompt: &StagePrompt,
    cache: CacheMode,
    settings: &SamplerSettings,
    max_tokens: usize,
) -> Result<Response, String> {
    begin(id, prompt, cache, settings, max_tokens)?;
    if !prefill(id).await? {
        return Ok(Response::StageDone {
            text: String::new(),
            stop: StopReason::Cancelled,
        });
    }
    let Decoded { text, stop, .. } = decode(id, settings, max_tokens, true, |step, session| {
        post_cost(id, step, session)
    })
    .await?;
    Ok(Response::StageDone { text, stop })
}

pub async fn speculate(
    id: u32,
    prompt: &StagePrompt,
    settings: &SamplerSettings,
    draft: Option<Draft>,
    draft_len: usize,
    max_tokens: usize,
) -> Result<Response, String> {
    // Checked here as well as by the engine: a cycle with room for no draft is a plain step.
    if draft.is_some() && !(1..=MAX_DRAFT).contains(&draft_len) {
        return Err(format!(
            "draft_len is {draft_len}; it must be 1 to {MAX_DRAFT}."
        ));
    }
    begin(id, prompt, CacheMode::Reuse, settings, max_tokens)?;
    if !prefill(id).await? {
        return Ok(Response::StageDone {
            text: String::new(),
            stop: StopReason::Cancelled,
        });
    }
    // The first token comes from the prefill's logits, with or without a draft: only the
    // tokens after it are decoding.
    let first = decode(id, settings, 1, true, |step, session| {
        post_cost(id, step, session)
    })
    .await?;
    let Decoded {
        mut text,
        tokens: mut generated,
        stop,
    } = first;
    if stop != StopReason::MaxTokens {
        return Ok(Response::StageDone { text, stop });
    }
    let stop = loop {
        if generated >= max_tokens {
            break StopReason::MaxTokens;
        }
        // Never draft past max_tokens: both runs must produce the same number of tokens.
        let k = draft_len.min(max_tokens - generated - 1);
        let cycle = state::with(|s| match s.owned(id) {
            None => Ok(None),
            Some(session) if session.tokens().len() >= session.max_context() => Ok(Some(None)),
            Some(session) => {
                cycle(session, settings, draft.filter(|_| k > 0), k).map(|c| Some(Some(c)))
            }
        })?;
        let (report, end) = match cycle {
            None => break StopReason::Cancelled,
            Some(None) => break StopReason::ContextFull,
            Some(Some(cycle)) => cycle,
        };
        generated += report.tokens;
        text.push_str(&report.text);
        post(id, Response::StageCycle { cycle: report });
        if end {
            break StopReason::EndOfTurn;
        }
        yield_now().await;
    };
    Ok(Response::StageDone { text, stop })
}

/// Checks the request, takes the session as `cache` says, starts the prompt in it and tells
/// the page the prompt's tokens.
pub(super) fn begin(
    id: u32,
    prompt: &StagePrompt,
    cache: CacheMode,
    settings: &SamplerSettings,
    max_tokens: usize,
) -> Result<(), String> {
    generate::check(settings, max_tokens)?;
    let response = state::with(|s| {
        let session = match cache {
            CacheMode::Reuse => s.take(id)?,
            CacheMode::Cold | CacheMode::Off => s.take_fresh(id)?,
        };
        session.use_cache = cache != CacheMode::Off;
        let ids = prompt_ids(session.model(), prompt)?;
        let reuse = session
            .start(&ids, settings.seed)
            .map_err(|e| e.to_string())?;
        let tokens = ids
            .iter()
            .map(|&t| session.model().tokenizer.token_text(t))
            .collect();
        Ok::<_, String>(Response::StagePrompt {
            tokens,
            reused: reuse.reused,
        })
    })?;
    post(id, response);
    Ok(())
}

fn prompt_ids(model: &Model, prompt: &StagePrompt) -> Result<Vec<u32>, String> {
    match prompt {
        StagePrompt::Chat(messages) => {
            if messages.iter().any(|m| m.content.trim().is_empty()) {
                return Err("A message of the chat is empty.".into());
            }
            chat_tokens(&model.tokenizer, messages, SystemPrompt::Default)
                .map_err(|e| e.to_string())
        }
        StagePrompt::Raw(text) => prompt::prompt_ids(model, text, false),
        StagePrompt::Filler(n) => filler(model, *n),
    }
}

/// Exactly `n` tokens of this lesson's own text, repeated if need be: a prompt-length sweep
/// times the work, which does not depend on what the words say.
pub(super) fn filler(model: &Model, n: usize) -> Result<Vec<u32>, String> {
    let text = model
        .tokenizer
        .encode(STAGES.as_str(), false)
        .map_err(|e| e.to_string())?;
    if n == 0 || text.is_empty() {
        return Err("A filler prompt needs at least one token.".into());
    }
    Ok(text.into_iter().cycle().take(n).collect())
}

pub(super) fn post_cost(id: u32, step: &Step, session: &Session) {
    let cost = TokenCost {
        // The step's token is already appended: the context's length is its position.
        position: session.tokens().len(),
        piece: step.piece.clone(),
        ms: step.forward_ms + step.sample_ms,
        computed: step.computed,
        kv_bytes: session.kv_bytes(),
    };
    post(id, Response::StageCost { cost });
}

/// One cycle: draft and verify, or without a draft one plain step. Either is timed here,
/// around the engine call, so that both count the same work (sampling included). Also
/// says whether the generation ended in it.
fn cycle(
    session: &mut Session,
    settings: &SamplerSettings,
    draft: Option<Draft>,
    k: usize,
) -> Result<(CycleReport, bool), String> {
    let t0 = performance_now();
    let (cycle, steps) = match draft {
        Some(draft) => session.speculative_step(settings, draft, k),
        None => session.step(settings).map(|step| {
            let plain = Cycle {
                target_token: Some(step.token),
                verify_ms: step.forward_ms,
                ..Cycle::default()
            };
            (plain, vec![step])
        }),
    }
    .map_err(|e| e.to_string())?;
    let ms = performance_now() - t0;
    let text_of = |t: u32| session.model().tokenizer.token_text(t);
    let report = CycleReport {
        drafted: cycle.drafted.iter().map(|&t| text_of(t)).collect(),
        accepted: cycle.accepted,
        target: cycle.target_token.map(text_of),
        text: steps.iter().map(|s| s.piece.as_str()).collect(),
        tokens: steps.len(),
        draft_ms: cycle.draft_ms,
        verify_ms: cycle.verify_ms,
        ms,
        betas: cycle.betas,
    };
    Ok((report, steps.iter().any(|s| s.stop)))
}

//! Streams a generation token by token, yielding to the event loop between prefill slices
//! and between tokens, so that Stop takes effect within one token.

use super::{post::post, prompt::turn_ids, state, yield_now::yield_now};
use crate::protocol::{check_stop_sequences, Alternative, Response, Turn, MAX_ALTERNATIVES};
use engine::{Reuse, SamplerSettings, Session, Step, StopReason};

/// Prompt tokens computed per slice: about a tenth of a second in the browser.
pub const PREFILL_SLICE: usize = 16;

/// The checks every generating request makes before it touches the session.
pub fn check(settings: &SamplerSettings, max_tokens: usize) -> Result<(), String> {
    settings.validate().map_err(|e| e.to_string())?;
    if max_tokens == 0 {
        return Err("max_tokens must be at least 1.".into());
    }
    Ok(())
}

/// Checks a generation request and starts the session on its prompt (nothing computed yet).
pub fn begin(
    id: u32,
    prompt: &str,
    chat: bool,
    settings: &SamplerSettings,
    max_tokens: usize,
) -> Result<(), String> {
    begin_turn(id, prompt, chat, settings, max_tokens, &Turn::default()).map(|_| ())
}

/// `begin` for a prompt inside a conversation: says how the context met the cache.
fn begin_turn(
    id: u32,
    prompt: &str,
    chat: bool,
    settings: &SamplerSettings,
    max_tokens: usize,
    turn: &Turn,
) -> Result<Reuse, String> {
    check(settings, max_tokens)?;
    check_stop_sequences(&turn.stop)?;
    if turn.alternatives > MAX_ALTERNATIVES {
        return Err(format!(
            "At most {MAX_ALTERNATIVES} alternatives per token."
        ));
    }
    state::with(|s| {
        let session = s.take(id)?;
        let ids = turn_ids(session.model(), prompt, chat, turn)?;
        session
            .start(&ids, settings.seed)
            .map_err(|e| e.to_string())
    })
}

pub async fn generate(
    id: u32,
    prompt: &str,
    chat: bool,
    settings: &SamplerSettings,
    max_tokens: usize,
    turn: &Turn,
    stop_at_end_of_turn: bool,
) -> Result<Response, String> {
    let reuse = begin_turn(id, prompt, chat, settings, max_tokens, turn)?;
    if !prefill(id).await? {
        return Ok(done(String::new(), 0, StopReason::Cancelled));
    }
    let token = |step: &Step, session: &Session| Response::Token {
        piece: step.piece.clone(),
        token: step.token,
        prob: step.prob,
        ms: step.forward_ms + step.sample_ms,
        forced: step.forced,
        alternatives: alternatives(step, session, turn.alternatives),
    };
    // The text this request added, for the stop sequences.
    let mut added = String::new();
    let mut ends = move |step: &Step| {
        added.push_str(&step.piece);
        turn.stop.iter().any(|s| added.contains(s.as_str()))
    };
    // A branch's alternative comes first, placed rather than drawn.
    let forced = match turn.force {
        None => None,
        Some(t) => {
            let forced = state::with(|s| {
                s.owned(id).map(|session| {
                    session
                        .force(t, settings)
                        .map(|step| (token(&step, session), step))
                })
            });
            match forced {
                None => return Ok(done(String::new(), 0, StopReason::Cancelled)),
                Some(Err(e)) => return Err(e.to_string()),
                Some(Ok((response, step))) => {
                    post(id, response);
                    Some(step)
                }
            }
        }
    };
    let ended = forced.as_ref().and_then(|step| {
        if step.stop {
            Some(StopReason::EndOfTurn)
        } else if ends(step) {
            Some(StopReason::StopSequence)
        } else if max_tokens == 1 {
            Some(StopReason::MaxTokens)
        } else {
            None
        }
    });
    let before = usize::from(forced.is_some());
    let lead = forced.map_or(String::new(), |step| step.piece);
    let Decoded { text, tokens, stop } = match ended {
        Some(stop) => Decoded {
            text: lead,
            tokens: 1,
            stop,
        },
        None => {
            let rest = decode_until(
                id,
                settings,
                max_tokens - before,
                stop_at_end_of_turn,
                |step, session| {
                    post(id, token(step, session));
                    ends(step)
                },
            )
            .await?;
            Decoded {
                text: lead + &rest.text,
                tokens: before + rest.tokens,
                stop: rest.stop,
            }
        }
    };
    let finished = state::with(|s| {
        s.owned(id).map(|session| {
            let t = session.timings();
            Response::Done {
                text: session.text(),
                tokens,
                ttft_ms: t.ttft_ms,
                prefill_tps: t.prefill_tokens_per_s(),
                decode_tps: t.decode_tokens_per_s(),
                stop,
                reused: reuse.reused,
                computed: reuse.computed,
                context: session.tokens().len(),
            }
        })
    });
    Ok(finished.unwrap_or_else(|| done(text, tokens, stop)))
}

/// The `n` most likely candidates of the distribution `step` was drawn from.
fn alternatives(step: &Step, session: &Session, n: usize) -> Vec<Alternative> {
    let Some(dist) = step.distribution.as_ref() else {
        return Vec::new();
    };
    let tok = &session.model().tokenizer;
    dist.top(n)
        .iter()
        .map(|c| Alternative {
            token: c.id,
            text: tok.token_text(c.id),
            prob: c.prob,
            final_prob: c.final_prob,
            cut_by: c.cut_by,
        })
        .collect()
}

/// What a decode loop produced. Kept here as well as in the session: a cancelled request
/// may have lost the session.
pub struct Decoded {
    pub text: String,
    pub tokens: usize,
    pub stop: StopReason,
}

/// Draws up to `max_tokens` tokens after the prefill, yielding between them; `on_step`
/// sees each step and the session it was drawn in. Without `stop_at_end_of_turn` it draws
/// exactly `max_tokens` (the benchmark's fixed length).
pub async fn decode(
    id: u32,
    settings: &SamplerSettings,
    max_tokens: usize,
    stop_at_end_of_turn: bool,
    mut on_step: impl FnMut(&Step, &Session),
) -> Result<Decoded, String> {
    decode_until(
        id,
        settings,
        max_tokens,
        stop_at_end_of_turn,
        |step, session| {
            on_step(step, session);
            false
        },
    )
    .await
}

/// `decode`, where `on_step` returns true to end the generation after that step (a stop
/// sequence appeared).
async fn decode_until(
    id: u32,
    settings: &SamplerSettings,
    max_tokens: usize,
    stop_at_end_of_turn: bool,
    mut on_step: impl FnMut(&Step, &Session) -> bool,
) -> Result<Decoded, String> {
    let mut text = String::new();
    let mut tokens = 0;
    let stop = loop {
        if tokens >= max_tokens {
            break StopReason::MaxTokens;
        }
        let step = state::with(|s| match s.owned(id) {
            None => Ok::<_, String>(None),
            Some(session) if session.tokens().len() >= session.max_context() => Ok(Some(None)),
            Some(session) => {
                let step = session.step(settings).map_err(|e| e.to_string())?;
                let end = on_step(&step, session);
                Ok(Some(Some((step, end))))
            }
        })?;
        let step = match step {
            None => break StopReason::Cancelled,
            Some(None) => break StopReason::ContextFull,
            Some(Some(step)) => step,
        };
        let (step, end) = step;
        tokens += 1;
        text.push_str(&step.piece);
        if step.stop && stop_at_end_of_turn {
            break StopReason::EndOfTurn;
        }
        if end {
            break StopReason::StopSequence;
        }
        yield_now().await;
    };
    Ok(Decoded { text, tokens, stop })
}

/// Computes the prompt in slices, reporting progress after each when there is more than one.
/// False if the request lost the session meanwhile.
pub async fn prefill(id: u32) -> Result<bool, String> {
    loop {
        let ready = state::with(|s| {
            s.owned(id).map(|session| {
                let ready = session.prefill_chunk(PREFILL_SLICE)?;
                Ok::<_, engine::EngineError>((ready, session.prefill_progress()))
            })
        });
        let (ready, (done, total)) = match ready {
            None => return Ok(false),
            Some(Err(e)) => return Err(e.to_string()),
            Some(Ok(progress)) => progress,
        };
        if total > PREFILL_SLICE {
            post(id, Response::Prefill { done, total });
        }
        if ready {
            return Ok(true);
        }
        yield_now().await;
    }
}

/// The end of a generation that lost its session: what it streamed, without timings.
fn done(text: String, tokens: usize, stop: StopReason) -> Response {
    Response::Done {
        text,
        tokens,
        ttft_ms: 0.0,
        prefill_tps: 0.0,
        decode_tps: 0.0,
        stop,
        reused: 0,
        computed: 0,
        context: 0,
    }
}

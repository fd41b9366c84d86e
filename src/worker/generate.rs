//! Streams a generation token by token, yielding to the event loop between prefill slices
//! and between tokens, so that Stop takes effect within one token.

use super::{post::post, prompt::prompt_ids, state, yield_now::yield_now};
use crate::protocol::Response;
use engine::{SamplerSettings, Session, Step, StopReason};

/// Prompt tokens computed per slice: about a tenth of a second in the browser.
pub const PREFILL_SLICE: usize = 16;

/// Checks a generation request and starts the session on its prompt (nothing computed yet).
/// The checks every generating request makes before it touches the session.
pub fn check(settings: &SamplerSettings, max_tokens: usize) -> Result<(), String> {
    settings.validate().map_err(|e| e.to_string())?;
    if max_tokens == 0 {
        return Err("max_tokens must be at least 1.".into());
    }
    Ok(())
}

pub fn begin(
    id: u32,
    prompt: &str,
    chat: bool,
    settings: &SamplerSettings,
    max_tokens: usize,
) -> Result<(), String> {
    check(settings, max_tokens)?;
    state::with(|s| {
        let session = s.take(id)?;
        let ids = prompt_ids(session.model(), prompt, chat)?;
        session
            .start(&ids, settings.seed)
            .map_err(|e| e.to_string())
    })?;
    Ok(())
}

pub async fn generate(
    id: u32,
    prompt: &str,
    chat: bool,
    settings: &SamplerSettings,
    max_tokens: usize,
    stop_at_end_of_turn: bool,
) -> Result<Response, String> {
    begin(id, prompt, chat, settings, max_tokens)?;
    if !prefill(id).await? {
        return Ok(done(String::new(), 0, StopReason::Cancelled));
    }

    let Decoded { text, tokens, stop } =
        decode(id, settings, max_tokens, stop_at_end_of_turn, |step, _| {
            let ms = step.forward_ms + step.sample_ms;
            post(
                id,
                Response::Token {
                    piece: step.piece.clone(),
                    token: step.token,
                    prob: step.prob,
                    ms,
                },
            )
        })
        .await?;
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
            }
        })
    });
    Ok(finished.unwrap_or_else(|| done(text, tokens, stop)))
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
                on_step(&step, session);
                Ok(Some(Some(step)))
            }
        })?;
        let step = match step {
            None => break StopReason::Cancelled,
            Some(None) => break StopReason::ContextFull,
            Some(Some(step)) => step,
        };
        tokens += 1;
        text.push_str(&step.piece);
        if step.stop && stop_at_end_of_turn {
            break StopReason::EndOfTurn;
        }
        yield_now().await;
    };
    Ok(Decoded { text, tokens, stop })
}

/// Computes the prompt in slices. False if the request lost the session meanwhile.
pub async fn prefill(id: u32) -> Result<bool, String> {
    loop {
        let ready = state::with(|s| {
            s.owned(id)
                .map(|session| session.prefill_chunk(PREFILL_SLICE))
        });
        match ready {
            None => return Ok(false),
            Some(Err(e)) => return Err(e.to_string()),
            Some(Ok(true)) => return Ok(true),
            Some(Ok(false)) => yield_now().await,
        }
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
    }
}

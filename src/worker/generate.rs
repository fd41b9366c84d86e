//! Streams a generation token by token, yielding to the event loop between prefill slices
//! and between tokens, so that Stop takes effect within one token.

use super::{post::post, prompt::prompt_ids, state, yield_now::yield_now};
use crate::protocol::Response;
use engine::{SamplerSettings, StopReason};

/// Prompt tokens computed per slice: about a tenth of a second in the browser.
pub const PREFILL_SLICE: usize = 16;

pub async fn generate(
    id: u32,
    prompt: &str,
    chat: bool,
    settings: &SamplerSettings,
    max_tokens: usize,
) -> Result<Response, String> {
    settings.validate().map_err(|e| e.to_string())?;
    if max_tokens == 0 {
        return Err("max_tokens must be at least 1.".into());
    }
    state::with(|s| {
        let session = s.take(id)?;
        let ids = prompt_ids(session.model(), prompt, chat)?;
        session
            .start(&ids, settings.seed)
            .map_err(|e| e.to_string())
    })?;
    if !prefill(id).await? {
        return Ok(done(String::new(), 0, StopReason::Cancelled));
    }

    // Kept here as well as in the session: a cancelled request may have lost the session.
    let mut text = String::new();
    let mut tokens = 0;
    let stop = loop {
        if tokens >= max_tokens {
            break StopReason::MaxTokens;
        }
        let step = state::with(|s| match s.owned(id) {
            None => Ok(None),
            Some(session) if session.tokens().len() >= session.max_context() => Ok(Some(None)),
            Some(session) => session
                .step(settings)
                .map(|step| Some(Some(step)))
                .map_err(|e| e.to_string()),
        })?;
        let step = match step {
            None => break StopReason::Cancelled,
            Some(None) => break StopReason::ContextFull,
            Some(Some(step)) => step,
        };
        tokens += 1;
        text.push_str(&step.piece);
        post(
            id,
            Response::Token {
                piece: step.piece,
                token: step.token,
                prob: step.prob,
                ms: step.forward_ms + step.sample_ms,
            },
        );
        if step.stop {
            break StopReason::EndOfTurn;
        }
        yield_now().await;
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
            }
        })
    });
    Ok(finished.unwrap_or_else(|| done(text, tokens, stop)))
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

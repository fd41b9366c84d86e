//! Lesson 1's requests: look at the next-token logits, then step, force or rewind one
//! token at a time in the same session; the vocabulary's texts; and whole continuations
//! for the comparison of two settings.

use super::{generate, generate::prefill, prompt::prompt_ids, state, yield_now::yield_now};
use crate::protocol::{Response, TopToken};
use engine::sampler::Rng;
use engine::{SamplerSettings, Session, StopReason};

/// How many of the most likely tokens come with their text and probability.
const TOP: usize = 20;

pub async fn logits(id: u32, prompt: &str, chat: bool) -> Result<Response, String> {
    state::with(|s| {
        let session = s.take(id)?;
        let ids = prompt_ids(session.model(), prompt, chat)?;
        session.start(&ids, 0).map_err(|e| e.to_string())
    })?;
    computed(id).await?;
    state::with(|s| {
        let (session, logits) = owned_logits(s, id)?;
        // The model's own distribution: temperature 1, nothing cut.
        let dist = session
            .distribution(&SamplerSettings::plain(1.0, 0))
            .map_err(|e| e.to_string())?;
        let tokenizer = &session.model().tokenizer;
        let top = dist
            .top(TOP)
            .iter()
            .map(|c| TopToken {
                token: c.id,
                text: tokenizer.token_text(c.id),
                logit: c.logit,
                prob: c.prob,
            })
            .collect();
        Ok(Response::Logits { logits, top })
    })
}

/// Draws the next token, or appends `forced` instead. The n-th generated token is drawn
/// with the n-th number of the generator seeded with `settings.seed`: Rewind then Step
/// draws the same number again, and a run from the prompt draws what `Generate` would.
pub fn step(id: u32, forced: Option<u32>, settings: &SamplerSettings) -> Result<Response, String> {
    state::with(|s| {
        let session = s.take(id)?;
        let step = match forced {
            Some(token) => session.force(token, settings),
            None => {
                session.set_rng(Rng::at(settings.seed, session.generated() as u64));
                session.step(settings)
            }
        };
        Ok(Response::Stepped {
            step: step.map_err(|e| e.to_string())?,
        })
    })
}

pub fn rewind(id: u32, n: usize) -> Result<Response, String> {
    state::with(|s| {
        let session = s.take(id)?;
        session.rewind(n).map_err(|e| e.to_string())?;
        Ok(Response::Rewound {
            generated: session.generated(),
        })
    })
}

pub fn vocabulary() -> Result<Response, String> {
    state::with(|s| {
        let model = s.model()?;
        // One text per logit, in the logits' order.
        let tokens = (0..model.config.vocab as u32)
            .map(|id| model.tokenizer.token_text(id))
            .collect();
        Ok(Response::Vocabulary { tokens })
    })
}

pub async fn next(id: u32) -> Result<Response, String> {
    state::with(|s| s.take(id).map(|_| ()))?;
    computed(id).await?;
    state::with(|s| {
        let (session, logits) = owned_logits(s, id)?;
        Ok(Response::Next {
            context: session.tokens().to_vec(),
            prompt_len: session.prompt_len(),
            logits,
        })
    })
}

/// Generates up to `max_tokens`, yielding between tokens so that a `Cancel` is heard.
pub async fn continuation(
    id: u32,
    prompt: &str,
    chat: bool,
    settings: &SamplerSettings,
    max_tokens: usize,
) -> Result<Response, String> {
    generate::begin(id, prompt, chat, settings, max_tokens)?;
    computed(id).await?;
    let (mut tokens, mut logprobs) = (Vec::new(), Vec::new());
    let stop = loop {
        if tokens.len() >= max_tokens {
            break StopReason::MaxTokens;
        }
        let step = state::with(|s| {
            s.owned(id)
                .ok_or("Cancelled.")?
                .step(settings)
                .map_err(|e| e.to_string())
        })?;
        tokens.push(step.token);
        logprobs.push(step.model_logprob);
        if step.stop {
            break StopReason::EndOfTurn;
        }
        yield_now().await;
    };
    let text = state::with(|s| s.owned(id).map(|session| session.text())).ok_or("Cancelled.")?;
    Ok(Response::Continuation {
        text,
        tokens,
        logprobs,
        stop,
    })
}

/// Computes the context's missing tokens in slices; an error if the request lost the session.
async fn computed(id: u32) -> Result<(), String> {
    match prefill(id).await? {
        true => Ok(()),
        false => Err("Cancelled.".into()),
    }
}

/// The session request `id` still owns, and a copy of its next-token logits.
fn owned_logits(s: &mut state::State, id: u32) -> Result<(&mut Session, Vec<f32>), String> {
    let session = s.owned(id).ok_or("Cancelled.")?;
    let logits = session
        .logits()
        .ok_or("The logits were not computed.")?
        .to_vec();
    Ok((session, logits))
}

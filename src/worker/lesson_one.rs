//! Lesson 1's requests: look at the next-token logits, then step, force or rewind one
//! token at a time in the same session; the vocabulary's texts; whole continuations for
//! the comparison of two settings and of base and instruct; and a prompt as the model sees it.

use super::{
    generate, generate::prefill, post::post, prompt::prompt_ids, state, yield_now::yield_now,
};
use crate::protocol::{Response, TopToken, MAX_CONTINUATIONS};
use engine::batch::{BatchDecoder, BatchSample};
use engine::sampler::Rng;
use engine::session::log_softmax_at;
use engine::{SamplerSettings, Session};

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

/// Compare's continuations of the prompt, one per entry of `runs` (its settings, its seed),
/// decoded together in batches from the session once it holds the prompt: each is what
/// the session alone would generate with that run's seed. One token of each per turn, so
/// that a `Cancel` is heard; each is posted as it ends.
pub async fn continuations(
    id: u32,
    prompt: &str,
    chat: bool,
    runs: &[SamplerSettings],
    max_tokens: usize,
) -> Result<Response, String> {
    if runs.is_empty() || runs.len() > MAX_CONTINUATIONS {
        return Err(format!("Ask for 1 to {MAX_CONTINUATIONS} continuations."));
    }
    for settings in runs {
        generate::check(settings, max_tokens)?;
    }
    generate::begin(id, prompt, chat, &runs[0], max_tokens)?;
    computed(id).await?;
    let width = state::with(|s| {
        s.owned(id).map(|session| {
            BatchDecoder::width(session.max_context(), session.tokens().len() + max_tokens)
        })
    })
    .ok_or("Cancelled.")?;
    for (group, settings) in runs.chunks(width).enumerate() {
        let samples: Vec<BatchSample> = settings
            .iter()
            .map(|s| BatchSample {
                seed: s.seed,
                settings: s.clone(),
                max_tokens,
            })
            .collect();
        let mut batch = state::with(|s| {
            let session = s.owned(id).ok_or("Cancelled.")?;
            BatchDecoder::from_session(session, &samples).map_err(|e| e.to_string())
        })?;
        let mut logprobs = vec![Vec::new(); samples.len()];
        while !batch.is_done() {
            yield_now().await;
            if state::with(|s| s.owned(id).is_none()) {
                return Err("Cancelled.".into());
            }
            for (i, token) in batch
                .step()
                .map_err(|e| e.to_string())?
                .into_iter()
                .enumerate()
            {
                let Some(token) = token else { continue };
                logprobs[i].push(log_softmax_at(batch.logits(i), token));
                if let Some(stop) = batch.sequences()[i].stop {
                    let response = Response::Continuation {
                        run: group * width + i,
                        text: batch.text(i),
                        tokens: batch.sequences()[i].tokens.clone(),
                        logprobs: std::mem::take(&mut logprobs[i]),
                        stop,
                    };
                    post(id, response);
                }
            }
        }
    }
    Ok(Response::Continued)
}

/// The ids `prompt` becomes (the same rule as every request's), written back out as text:
/// what the model is really given, the chat template's text and control tokens included.
pub fn prompt_text(prompt: &str, chat: bool) -> Result<Response, String> {
    state::with(|s| {
        let model = s.model()?;
        let ids = prompt_ids(model, prompt, chat)?;
        Ok(Response::PromptText {
            text: model.tokenizer.decode(&ids),
            tokens: ids.len(),
        })
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

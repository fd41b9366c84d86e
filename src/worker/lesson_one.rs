//! Lesson 1's requests: look at the next-token logits, then step, force or rewind one
//! token at a time in the same session.

use super::{generate::prefill, prompt::prompt_ids, state};
use crate::protocol::{Response, TopToken};
use engine::SamplerSettings;

/// How many of the most likely tokens come with their text and probability.
const TOP: usize = 20;

pub async fn logits(id: u32, prompt: &str, chat: bool) -> Result<Response, String> {
    state::with(|s| {
        let session = s.take(id)?;
        let ids = prompt_ids(session.model(), prompt, chat)?;
        session.start(&ids, 0).map_err(|e| e.to_string())
    })?;
    if !prefill(id).await? {
        return Err("Cancelled.".into());
    }
    state::with(|s| {
        let session = s.owned(id).ok_or("Cancelled.")?;
        let logits = session
            .logits()
            .ok_or("The logits were not computed.")?
            .to_vec();
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

/// Draws the next token, or appends `forced` instead.
pub fn step(id: u32, forced: Option<u32>, settings: &SamplerSettings) -> Result<Response, String> {
    state::with(|s| {
        let session = s.take(id)?;
        let step = match forced {
            Some(token) => session.force(token, settings),
            None => session.step(settings),
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

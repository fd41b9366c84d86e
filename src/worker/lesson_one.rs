//! Lesson 1's requests: look at the next-token logits, then step, force or rewind one
//! token at a time in the same session.

use super::{generate::prefill, prompt::prompt_ids, state};
use crate::protocol::{Response, TopToken};
use engine::SamplerSettings;

/// How many of the most likely tokens come with their text.
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
        let logits = session.logits().ok_or("The logits were not computed.")?.to_vec();
        let top = top_tokens(&logits, |t| session.model().tokenizer.token_text(t));
        Ok(Response::Logits { logits, top })
    })
}

/// The `TOP` largest logits, with their probabilities at temperature 1.
fn top_tokens(logits: &[f32], text: impl Fn(u32) -> String) -> Vec<TopToken> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = logits.iter().map(|&l| (l as f64 - max).exp()).sum();
    let mut ids: Vec<u32> = (0..logits.len() as u32).collect();
    ids.sort_by(|&a, &b| logits[b as usize].total_cmp(&logits[a as usize]));
    ids.truncate(TOP);
    ids.into_iter()
        .map(|t| {
            let logit = logits[t as usize];
            TopToken { token: t, text: text(t), logit, prob: ((logit as f64 - max).exp() / sum) as f32 }
        })
        .collect()
}

/// Draws the next token, or appends `forced` instead.
pub fn step(id: u32, forced: Option<u32>, settings: &SamplerSettings) -> Result<Response, String> {
    state::with(|s| {
        let session = s.take(id)?;
        let step = match forced {
            Some(token) => session.force(token, settings),
            None => session.step(settings),
        };
        Ok(Response::Stepped { step: step.map_err(|e| e.to_string())? })
    })
}

pub fn rewind(id: u32, n: usize) -> Result<Response, String> {
    state::with(|s| {
        let session = s.take(id)?;
        session.rewind(n).map_err(|e| e.to_string())?;
        Ok(Response::Rewound { generated: session.generated() })
    })
}

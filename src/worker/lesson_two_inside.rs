//! Lesson 2's look inside the model: a measured generation whose passes copy out one
//! layer's attention weights (the engine's `Probe`, off for every other request) and whose
//! prefill feeds the logit lens; the time of one forward pass over n tokens; and one pass
//! taken apart, part by part.

use super::generate::{decode, prefill};
use super::lesson_two::{begin, filler, post_cost};
use super::state::{self, performance_now};
use super::{post::post, yield_now::yield_now};
use crate::protocol::{CacheMode, Response, StagePrompt};
use engine::kv_cache::KvCache;
use engine::probe::{logit_lens, AttentionCapture, AttentionRow, PassBench, Probe};
use engine::{SamplerSettings, Session, StopReason};

/// The longest context whose attention the page is sent: every head's rows of 512
/// positions are about 5 MB.
pub const MAX_ATTENTION_CONTEXT: usize = 512;
/// Candidates per layer in the logit lens.
const LENS_TOP: usize = 5;

pub async fn inspect(
    id: u32,
    prompt: &StagePrompt,
    cache: CacheMode,
    layer: usize,
    settings: &SamplerSettings,
    max_tokens: usize,
) -> Result<Response, String> {
    let layers = state::with(|s| s.model().map(|m| m.config.layers))?;
    if layer >= layers {
        return Err(format!(
            "Layer {} does not exist: the model has layers 1 to {layers}.",
            layer + 1
        ));
    }
    begin(id, prompt, cache, settings, max_tokens)?;
    state::with(|s| {
        let session = s.owned(id).ok_or("The request was cancelled.")?;
        if session.tokens().len() + max_tokens > MAX_ATTENTION_CONTEXT {
            return Err(format!(
                "The prompt is {} tokens; with {max_tokens} to generate, the attention view holds {MAX_ATTENTION_CONTEXT}. Shorten it.",
                session.tokens().len()
            ));
        }
        session.probe = Probe {
            attention: Some(AttentionCapture::new(layer, None)),
            hidden: Some(Vec::new()),
        };
        Ok(())
    })?;
    let cancelled = || Response::StageDone {
        text: String::new(),
        stop: StopReason::Cancelled,
    };
    if !prefill(id).await? {
        return Ok(cancelled());
    }
    let mut posted = 0;
    let lens = state::with(|s| {
        let session = s.owned(id)?;
        let hidden = session.probe.hidden.take().unwrap_or_default();
        Some(logit_lens(session.model(), &hidden, LENS_TOP).map_err(|e| e.to_string()))
    });
    match lens {
        None => return Ok(cancelled()),
        Some(layers) => post(id, Response::StageLens { layers: layers? }),
    }
    state::with(|s| {
        s.owned(id)
            .map(|session| post_rows(id, session, &mut posted))
    });
    let decoded = decode(id, settings, max_tokens, true, |step, session| {
        post_rows(id, session, &mut posted);
        post_cost(id, step, session);
    })
    .await;
    // The rows are the page's now; the session keeps no probe.
    state::with(|s| s.owned(id).map(|session| session.probe = Probe::default()));
    let decoded = decoded?;
    Ok(Response::StageDone {
        text: decoded.text,
        stop: decoded.stop,
    })
}

/// Posts the attention rows computed since the last call.
fn post_rows(id: u32, session: &Session, posted: &mut usize) {
    let rows: Vec<AttentionRow> = session
        .probe
        .attention
        .as_ref()
        .map_or(Vec::new(), |a| a.rows[*posted..].to_vec());
    if !rows.is_empty() {
        *posted += rows.len();
        post(id, Response::StageAttention { rows });
    }
}

/// Where every timed pass starts: this many tokens of the lesson's text are cached.
pub const PASS_POSITION: usize = 128;
pub const MAX_PASS: usize = 64;

pub async fn pass_cost(id: u32, sizes: &[usize], rounds: usize) -> Result<Response, String> {
    if sizes.is_empty() || sizes.iter().any(|n| !(1..=MAX_PASS).contains(n)) {
        return Err(format!("Each pass size must be 1 to {MAX_PASS} tokens."));
    }
    if !(1..=20).contains(&rounds) {
        return Err("rounds must be 1 to 20.".into());
    }
    let largest = sizes.iter().copied().max().unwrap_or(1);
    let model = state::with(|s| s.take(id).map(|session| session.model().clone()))?;
    let tokens = filler(&model, PASS_POSITION + largest)?;
    let mut bench = PassBench::new(&model, tokens, PASS_POSITION).map_err(|e| e.to_string())?;
    for &n in sizes {
        yield_now().await;
        if state::with(|s| s.owned(id).is_none()) {
            return Ok(Response::StagePassesDone {
                cancelled: true,
                kv_bytes_per_position: bench.kv_bytes_per_position(),
            });
        }
        let ms = bench
            .median_ms(&model, n, rounds, &performance_now)
            .map_err(|e| e.to_string())?;
        post(
            id,
            Response::StagePass {
                tokens: n,
                position: PASS_POSITION,
                ms,
            },
        );
    }
    Ok(Response::StagePassesDone {
        cancelled: false,
        kv_bytes_per_position: bench.kv_bytes_per_position(),
    })
}

/// The most tokens cached before a `pass_at` (its prefill is a second or two in a browser).
pub const MAX_PASS_AT: usize = 2048;

/// One pass over `tokens` tokens with `position` tokens of the lesson's text cached.
pub async fn pass_at(id: u32, tokens: usize, position: usize, rounds: usize) -> Result<Response, String> {
    if !(1..=MAX_PASS).contains(&tokens) || !(1..=MAX_PASS_AT).contains(&position) {
        return Err(format!("A pass of {tokens} tokens at position {position}: the size must be 1 to {MAX_PASS}, the position 1 to {MAX_PASS_AT}."));
    }
    if !(1..=20).contains(&rounds) {
        return Err("rounds must be 1 to 20.".into());
    }
    let model = state::with(|s| s.take(id).map(|session| session.model().clone()))?;
    let text = filler(&model, position + tokens)?;
    let mut bench = PassBench::new(&model, text, position).map_err(|e| e.to_string())?;
    yield_now().await;
    let kv_bytes_per_position = bench.kv_bytes_per_position();
    if state::with(|s| s.owned(id).is_none()) {
        return Ok(Response::StagePassesDone { cancelled: true, kv_bytes_per_position });
    }
    let ms = bench.median_ms(&model, tokens, rounds, &performance_now).map_err(|e| e.to_string())?;
    post(id, Response::StagePass { tokens, position, ms });
    Ok(Response::StagePassesDone { cancelled: false, kv_bytes_per_position })
}

/// The longest prompt a pass drawing times (a second or two of prefill in a browser).
pub const MAX_PARTS_PROMPT: usize = 1024;

/// A prefill of `tokens` tokens of the lesson's text, then one decode step, each timed
/// part by part on the worker's clock.
pub fn pass_parts(id: u32, tokens: usize) -> Result<Response, String> {
    if !(1..=MAX_PARTS_PROMPT).contains(&tokens) {
        return Err(format!("The prompt for the drawing is {tokens} tokens; it must be 1 to {MAX_PARTS_PROMPT}."));
    }
    let model = state::with(|s| s.take(id).map(|session| session.model().clone()))?;
    let text = filler(&model, tokens + 1)?;
    let mut cache = KvCache::new(&model.config);
    let clock = performance_now;
    let (_, prefill) = model.forward_timed(&text[..tokens], 0, &mut cache, &clock).map_err(|e| e.to_string())?;
    let (_, decode) = model.forward_timed(&text[tokens..], tokens, &mut cache, &clock).map_err(|e| e.to_string())?;
    Ok(Response::StagePassParts { prefill, decode })
}

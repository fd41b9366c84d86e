//! `tokenize`, `logits`, `generate` and `reference`: the model's text and logits, as JSON.

use crate::cli::{DraftKind, Generate, Sampling};
use crate::model::{load_model, model_bytes, prompt_ids, session, system_prompt};
use engine::speculative::Draft;
use engine::{chat_tokens, Message, Model, Role, SamplerSettings, Session};
use serde_json::{json, Value};
use std::path::Path;

pub fn tokenize(path: &Path, text: &str) -> Result<Value, String> {
    let model = load_model(path)?;
    let ids = model.tokenizer.encode(text, true).map_err(|e| e.to_string())?;
    Ok(json!(ids))
}

pub fn logits(path: &Path, ids: &[u32], top: usize) -> Result<Value, String> {
    let model = load_model(path)?;
    let mut s = session(model.clone());
    s.start(ids, 0).map_err(|e| e.to_string())?;
    let dist = s.distribution(&SamplerSettings::plain(1.0, 0)).map_err(|e| e.to_string())?;
    let rows: Vec<Value> = dist
        .top(top)
        .iter()
        .map(|c| json!({"id": c.id, "token": model.tokenizer.token_text(c.id), "logit": c.logit}))
        .collect();
    Ok(json!(rows))
}

pub fn settings(a: &Sampling) -> Result<SamplerSettings, String> {
    let d = SamplerSettings::default();
    let s = SamplerSettings {
        temperature: a.temperature.unwrap_or(d.temperature),
        top_k: a.top_k.unwrap_or(d.top_k),
        top_p: a.top_p.unwrap_or(d.top_p),
        min_p: a.min_p.unwrap_or(d.min_p),
        repeat_penalty: a.repeat_penalty.unwrap_or(d.repeat_penalty),
        seed: a.seed.unwrap_or(d.seed),
        ..d
    };
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

pub fn generate(path: &Path, g: &Generate) -> Result<Value, String> {
    let settings = settings(&g.sampling)?;
    let draft = g.speculative.map(|kind| match kind {
        DraftKind::PromptLookup => Draft::PromptLookup,
        DraftKind::EarlyExit => Draft::EarlyExit { layers: g.draft_layers },
    });
    if g.follow_up.is_some() && g.prompt.raw {
        return Err("--follow-up is a chat turn; it cannot be combined with --raw".into());
    }
    let model = load_model(path)?;
    let ids = prompt_ids(&model, &g.prompt)?;
    let mut s = session(model.clone());
    s.use_cache = !g.no_kv_cache;
    let mut out = run_turn(&mut s, &ids, &settings, g.max_tokens, draft, g.draft_len)?;
    if let Some(follow) = &g.follow_up {
        let text = out["text"].as_str().unwrap_or_default().to_string();
        let system = g.prompt.system.as_ref().map(|content| Message { role: Role::System, content: content.clone() });
        let turns: Vec<Message> = system
            .into_iter()
            .chain([Message::user(&g.prompt.prompt), Message::assistant(&text), Message::user(follow)])
            .collect();
        let ids2 = chat_tokens(&model.tokenizer, &turns, system_prompt(&g.prompt)).map_err(|e| e.to_string())?;
        out["follow_up"] = run_turn(&mut s, &ids2, &settings, g.max_tokens, draft, g.draft_len)?;
    }
    Ok(out)
}

/// One generation from `ids`, reusing whatever the session has cached.
fn run_turn(
    s: &mut Session,
    ids: &[u32],
    settings: &SamplerSettings,
    max_tokens: usize,
    draft: Option<Draft>,
    draft_len: usize,
) -> Result<Value, String> {
    let reuse = s.start(ids, settings.seed).map_err(|e| e.to_string())?;
    let (g, spec) = match draft {
        None => (s.generate(settings, max_tokens, |_| true).map_err(|e| e.to_string())?, None),
        Some(d) => {
            let sg =
                s.generate_speculative(settings, max_tokens, d, draft_len, |_, _| true).map_err(|e| e.to_string())?;
            let figures = json!({
                "drafted": sg.drafted,
                "accepted": sg.accepted,
                "acceptance_rate": sg.acceptance_rate(),
                "cycles": sg.cycles.len(),
            });
            (sg.generation, Some(figures))
        }
    };
    let mut out = json!({
        "text": g.text,
        "tokens": g.tokens.len(),
        "token_ids": g.tokens,
        "prompt_tokens": ids.len(),
        "stop": g.stop,
        "ttft_ms": g.timings.ttft_ms,
        "prefill_tokens_per_s": g.timings.prefill_tokens_per_s(),
        "decode_tokens_per_s": g.timings.decode_tokens_per_s(),
        "kv_cache": s.use_cache,
        "kv_reused": reuse.reused,
        "kv_computed": reuse.computed,
        "kv_bytes": s.kv_bytes(),
    });
    if let (Some(f), Some(obj)) = (spec, out.as_object_mut()) {
        obj.extend(f.as_object().cloned().unwrap_or_default());
    }
    Ok(out)
}

pub fn reference(path: &Path, top: usize) -> Result<Value, String> {
    use engine::reference::{logit_error, Reference, CHECK_PROMPTS};
    let bytes = model_bytes(path)?;
    let model = Model::from_gguf_bytes(&bytes).map_err(|e| e.to_string())?;
    let reference = Reference::from_gguf_bytes(&bytes).map_err(|e| e.to_string())?;
    let e = logit_error(&model, &reference, CHECK_PROMPTS, top).map_err(|e| e.to_string())?;
    serde_json::to_value(e).map_err(|e| e.to_string())
}

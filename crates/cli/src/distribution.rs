//! `distribution`: the next-token distribution the sampler leaves for a prompt, under this
//! engine's settings or under a system's defaults (`--system`, from `engine::systems`), with
//! the stages in any order (`--order`). The kept candidates, renormalised, most likely first.

use crate::cli::Distribution as Args;
use crate::model::{load_model, needs_raw, session};
use engine::sampler::{parse_order, Rng};
use engine::gguf::sampling::FileSampling;
use engine::SamplerSettings;
use engine::systems::{preset, Overrides};
use engine::{prompt_tokens, SystemPrompt};
use serde_json::{json, Value};
use std::path::Path;

/// The settings the arguments ask for, checked; `file` is the model file's own sampling
/// settings, which llama.cpp's preset takes as llama.cpp does (`Preset::with_file`).
pub fn settings(a: &Args, file: Option<&FileSampling>) -> Result<SamplerSettings, String> {
    let mut s = match &a.system {
        Some(name) => {
            let g = &a.sampling;
            let o = Overrides { temperature: g.temperature, top_k: g.top_k, top_p: g.top_p, min_p: g.min_p };
            let mut s = preset(name)?.with_file(file).settings(&o, g.seed.unwrap_or(SamplerSettings::default().seed))?;
            s.repeat_penalty = g.repeat_penalty.unwrap_or(s.repeat_penalty);
            s
        }
        None => crate::text::settings(&a.sampling)?,
    };
    if let Some(order) = &a.order {
        s.order = parse_order(order).map_err(|e| e.to_string())?;
    }
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

pub fn run(path: &Path, a: &Args) -> Result<Value, String> {
    // Checked before loading, so that a bad argument costs no load; again with the file's
    // own sampling settings once it is read.
    settings(a, None)?;
    let model = load_model(path)?;
    let settings = settings(a, model.sampling.as_ref())?;
    // Through the chat template with the model's default system prompt, as the lesson sends
    // it, or as-is with --raw.
    needs_raw(&model, a.raw)?;
    let ids = prompt_tokens(&model.tokenizer, &a.prompt, a.raw, SystemPrompt::Default).map_err(|e| e.to_string())?;
    let mut s = session(model.clone());
    s.start(&ids, 0).map_err(|e| e.to_string())?;
    let dist = s.distribution(&settings).map_err(|e| e.to_string())?;
    let kept: Vec<Value> = dist
        .candidates
        .iter()
        .filter(|c| c.eligible())
        .take(a.top.unwrap_or(usize::MAX))
        .map(|c| json!({"id": c.id, "token": model.tokenizer.token_text(c.id), "prob": c.final_prob}))
        .collect();
    let system = a.system.as_deref().map(preset).transpose()?;
    Ok(json!({
        "system": system.map(|p| json!({
            "id": p.id,
            "name": p.name,
            "order_documented": p.order.is_some(),
            "file_sampling": model.sampling.as_ref().filter(|_| p.id == "llama.cpp"),
            "notes": p.notes,
            "sources": p.sources.iter().map(|s| json!({"title": s.title, "url": s.url, "version": s.version})).collect::<Vec<_>>(),
        })),
        "order": settings.order.iter().map(|s| s.name()).collect::<Vec<_>>(),
        "settings": {
            "seed": settings.seed,
            "temperature": settings.temperature,
            "top_k": settings.top_k,
            "top_p": settings.top_p,
            "min_p": settings.min_p,
            "repeat_penalty": settings.repeat_penalty,
        },
        "kept": kept,
        "kept_count": dist.eligible,
        // What `generate` with this seed and these settings draws first.
        "sample": dist.draw(Rng::new(settings.seed).next_f64()),
    }))
}

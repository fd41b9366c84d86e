//! `depth`: how deep inside the model each token of a reply settles (the deep-thinking ratio
//! of Chen et al. 2026). The reply is given (`--reply`, scored as if the model had written it
//! after the prompt) or generated greedily; either way it is scored teacher-forced, in one
//! prefill over prompt and reply.

use crate::cli::Depth;
use crate::model::{load_model, prompt_ids, session};
use engine::probe::depth::{score, settle, Thresholds};
use engine::reasoning::strategy::MAX_BUDGET;
use engine::SamplerSettings;
use serde_json::{json, Value};
use std::path::Path;

pub fn depth(path: &Path, args: &Depth) -> Result<Value, String> {
    // The engine names the range ("g must be 0 to ln 2 …"); the option is --g or --rho.
    let t = Thresholds::new(args.g, args.rho).map_err(|e| format!("--{e}"))?;
    if !(1..=MAX_BUDGET).contains(&args.max_tokens) {
        return Err(format!("--max-tokens must be 1 to {MAX_BUDGET}, got {}", args.max_tokens));
    }
    let model = load_model(path)?;
    let prompt = prompt_ids(&model, &args.prompt)?;
    let reply = match &args.reply {
        Some(text) => model.tokenizer.encode(text, false).map_err(|e| e.to_string())?,
        // Every token the model wrote, its end-of-turn included: that one, too, was predicted.
        None => {
            let mut s = session(model.clone());
            s.start(&prompt, 0).map_err(|e| e.to_string())?;
            s.generate(&SamplerSettings::greedy(), args.max_tokens, |_| true).map_err(|e| e.to_string())?.tokens
        }
    };
    if reply.is_empty() {
        return Err("--reply: the reply has no tokens to score".into());
    }
    let context = model.config.context;
    if prompt.len() + reply.len() > context {
        return Err(format!(
            "the prompt ({} tokens) and the reply ({} tokens) do not fit the model's {context}-token context",
            prompt.len(),
            reply.len()
        ));
    }
    let scored = score(&model, &prompt, &reply).map_err(|e| e.to_string())?;
    let (deep, dtr) = t.ratio(scored.iter().map(|s| s.jsd.as_slice()));
    let tokens: Vec<Value> = scored
        .iter()
        .map(|s| {
            json!({"id": s.id, "token": model.tokenizer.token_text(s.id), "jsd": s.jsd, "settle": settle(&s.jsd, t.g)})
        })
        .collect();
    Ok(json!({"layers": model.config.layers, "g": t.g, "rho": t.rho, "tokens": tokens, "deep": deep, "dtr": dtr}))
}

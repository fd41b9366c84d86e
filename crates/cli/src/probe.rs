//! `attention` and `lens`, Lesson 2's views into the forward pass, and `integer-check`, what
//! the opt-in integer arithmetic changes: as JSON.

use crate::cli::Prompt;
use crate::model::{load_model, prompt_ids};
use engine::arch::Logits;
use engine::kv_cache::KvCache;
use engine::probe::{logit_lens, AttentionCapture, Probe};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// `--name`'s 1-based index checked against 1..=`max`, as the page labels layers and heads.
fn one_based(name: &str, n: usize, max: usize) -> Result<usize, String> {
    if !(1..=max).contains(&n) {
        return Err(format!("--{name} must be 1 to {max}"));
    }
    Ok(n)
}

/// Row i: the chosen head's attention of position i over positions 0..=i.
pub fn attention(path: &Path, prompt: &Prompt, layer: usize, head: usize) -> Result<Value, String> {
    let model = load_model(path)?;
    let c = &model.config;
    let (layer, head) = (one_based("layer", layer, c.layers)?, one_based("head", head, c.heads)?);
    let ids = prompt_ids(&model, prompt)?;
    let mut probe = Probe { attention: Some(AttentionCapture::new(layer - 1, Some(head - 1))), hidden: None };
    model
        .forward_probed(&ids, 0, &mut KvCache::new(c), c.layers, Logits::Last, &mut probe)
        .map_err(|e| e.to_string())?;
    let rows = probe.attention.map(|a| a.rows).unwrap_or_default();
    let tokens: Vec<String> = ids.iter().map(|&t| model.tokenizer.token_text(t)).collect();
    Ok(
        json!({"layer": layer, "head": head, "tokens": tokens, "weights": rows.iter().map(|r| &r.weights).collect::<Vec<_>>()}),
    )
}

/// Every layer's top next tokens through the final norm and the output head.
pub fn lens(path: &Path, prompt: &Prompt, top: usize) -> Result<Value, String> {
    if !(1..=100).contains(&top) {
        return Err("--top must be 1 to 100".into());
    }
    let model = load_model(path)?;
    let c = &model.config;
    let ids = prompt_ids(&model, prompt)?;
    let mut probe = Probe { attention: None, hidden: Some(Vec::new()) };
    model
        .forward_probed(&ids, 0, &mut KvCache::new(c), c.layers, Logits::Last, &mut probe)
        .map_err(|e| e.to_string())?;
    let layers = logit_lens(&model, &probe.hidden.unwrap_or_default(), top).map_err(|e| e.to_string())?;
    Ok(json!({ "layers": layers }))
}

/// `engine::probe::integer`'s measurement after the prompt, on the wall clock.
pub fn integer_check(path: &Path, prompt: &Prompt, steps: usize) -> Result<Value, String> {
    let model = load_model(path)?;
    let ids = prompt_ids(&model, prompt)?;
    let origin = Instant::now();
    let clock = move || origin.elapsed().as_secs_f64() * 1000.0;
    let d = engine::probe::integer::integer_deviation(&model, &ids, steps, &clock).map_err(|e| e.to_string())?;
    Ok(json!({ "prompt_tokens": ids.len(), "deviation": d }))
}

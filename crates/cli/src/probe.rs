//! `attention`, `lens` and `bench-pass`: Lesson 2's views into the forward pass, as JSON.

use crate::args::Args;
use crate::commands::{load_model, prompt_ids, BENCH_PROMPT};
use engine::kv_cache::KvCache;
use engine::model::Logits;
use engine::probe::{logit_lens, AttentionCapture, PassBench, Probe};
use serde_json::{json, Value};
use std::time::Instant;

pub const FLAGS: &[&str] = &["raw", "no-system-prompt"];

/// `--name` as a 1-based index from 1 to `max`, as the page labels layers and heads.
fn one_based(args: &Args, name: &str, max: usize) -> Result<usize, String> {
    let n: usize = args.get(name, 0)?;
    if !(1..=max).contains(&n) {
        return Err(format!("--{name} must be 1 to {max}"));
    }
    Ok(n)
}

/// Row i: the chosen head's attention of position i over positions 0..=i.
pub fn attention(args: &Args) -> Result<Value, String> {
    let prompt = args.str("prompt").ok_or("attention needs --prompt")?;
    for name in ["layer", "head"] {
        if args.str(name).is_none() {
            return Err(format!("attention needs --{name}"));
        }
    }
    let model = load_model(args)?;
    let c = &model.config;
    let (layer, head) = (one_based(args, "layer", c.layers)?, one_based(args, "head", c.heads)?);
    let ids = prompt_ids(&model, args, prompt)?;
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
pub fn lens(args: &Args) -> Result<Value, String> {
    let prompt = args.str("prompt").ok_or("lens needs --prompt")?;
    let top: usize = args.get("top", 5)?;
    if !(1..=100).contains(&top) {
        return Err("--top must be 1 to 100".into());
    }
    let model = load_model(args)?;
    let c = &model.config;
    let ids = prompt_ids(&model, args, prompt)?;
    let mut probe = Probe { attention: None, hidden: Some(Vec::new()) };
    model
        .forward_probed(&ids, 0, &mut KvCache::new(c), c.layers, Logits::Last, &mut probe)
        .map_err(|e| e.to_string())?;
    let layers = logit_lens(&model, &probe.hidden.unwrap_or_default(), top).map_err(|e| e.to_string())?;
    Ok(json!({ "layers": layers }))
}

/// Where every timed pass starts: this many tokens of the bench prompt are cached.
const PASS_POSITION: usize = 128;
const MAX_PASS: usize = 256;

/// Milliseconds per forward pass over n tokens at one position, for each n of `--tokens`.
pub fn bench_pass(args: &Args) -> Result<Value, String> {
    let sizes = args
        .str("tokens")
        .unwrap_or("1,2,4,8,16")
        .split(',')
        .map(|s| match s.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_PASS).contains(&n) => Ok(n),
            _ => Err(format!("--tokens: '{s}' is not a pass size from 1 to {MAX_PASS}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let rounds: usize = args.get("rounds", 5)?;
    if !(1..=100).contains(&rounds) {
        return Err("--rounds must be 1 to 100".into());
    }
    let model = load_model(args)?;
    let ids = prompt_ids(&model, args, BENCH_PROMPT)?;
    let largest = sizes.iter().copied().max().unwrap_or(1);
    let tokens = ids.iter().copied().cycle().take(PASS_POSITION + largest).collect();
    let mut bench = PassBench::new(&model, tokens, PASS_POSITION).map_err(|e| e.to_string())?;
    let origin = Instant::now();
    let clock = || origin.elapsed().as_secs_f64() * 1000.0;
    let passes = sizes
        .iter()
        .map(|&n| {
            let ms = bench.median_ms(&model, n, rounds, &clock).map_err(|e| e.to_string())?;
            Ok(json!({"tokens": n, "ms_per_pass": ms, "ms_per_token": ms / n as f64}))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(json!({"position": PASS_POSITION, "rounds": rounds, "threads": 1, "passes": passes}))
}

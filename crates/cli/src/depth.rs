//! `depth`: how deep inside the model each token of a reply settles (the deep-thinking ratio
//! of Chen et al. 2026). The reply is given (`--reply`, scored as if the model had written it
//! after the prompt) or generated greedily; either way it is scored teacher-forced, in one
//! prefill over prompt and reply. D, g and the settling layers are read in `--unit` (bits
//! by default, the study's unit). `reason --depth` scores a run's traces the same way
//! (`run_depth`).

use crate::cli::Depth;
use crate::model::{load_model, prompt_ids, session};
use engine::probe::depth::{score, Thresholds, Unit};
use engine::reasoning::depth_binned::{binned_r, Binned, STUDY_BINS};
use engine::reasoning::depth_stats::{correlation, Correlation};
use engine::reasoning::depth_within::within_task;
use engine::reasoning::strategy::{ItemResult, Strategy, MAX_BUDGET};
use engine::reasoning::task::Task;
use engine::reasoning::trace_depth::{sample_depth, task_prompt};
use engine::{Model, SamplerSettings};
use serde_json::{json, Value};
use std::path::Path;

pub fn depth(path: &Path, args: &Depth) -> Result<Value, String> {
    // clap has already limited --unit to bits and nats.
    let unit = Unit::parse(&args.unit).ok_or("--unit must be bits or nats")?;
    // The engine names the range ("g must be 0 to 1 bit …"); the option is --g or --rho.
    let t = Thresholds::new(args.g, args.rho, unit).map_err(|e| format!("--{e}"))?;
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
            let jsd: Vec<f64> = s.jsd.iter().map(|&d| unit.of_nats(d)).collect();
            json!({"id": s.id, "token": model.tokenizer.token_text(s.id), "jsd": jsd, "settle": t.settle(&s.jsd)})
        })
        .collect();
    Ok(json!({
        "layers": model.config.layers, "unit": unit.name(), "g": t.g, "rho": t.rho,
        "tokens": tokens, "deep": deep, "dtr": dtr
    }))
}

/// `reason --depth`: every chain-of-thought or self-consistency sample of `items` scored at
/// the study's thresholds (g = 0.5 bits, ρ = 0.85), and what the page reports from them: the
/// per-trace point-biserial r with its task-bootstrap interval (seeded with `seed`), the
/// study's binned r over 5 quantile bins, each for DTR and for length, and the within-task
/// difference. Every figure follows from `samples` by its definition (the CLI's tests
/// recompute them from it).
pub fn run_depth(model: &Model, tasks: &[Task], items: &[ItemResult], seed: u64) -> Result<Value, String> {
    let t = Thresholds::default();
    let mut samples = Vec::new();
    let (mut task, mut correct, mut dtr, mut length) = (vec![], vec![], vec![], vec![]);
    for item in items.iter().filter(|i| matches!(i.strategy, Strategy::Cot | Strategy::SelfConsistency)) {
        let spec = tasks.iter().find(|t| t.id == item.task_id).ok_or("an item without its task")?;
        let prompt = task_prompt(model, spec, item.strategy).map_err(|e| e.to_string())?;
        for (i, sample) in item.samples.iter().enumerate() {
            // A sample that wrote no token in its own context has no DTR; the page leaves it out too.
            let Some(d) = sample_depth(model, &prompt, sample).map_err(|e| e.to_string())? else { continue };
            let (_, ratio) = t.ratio(d.tokens.iter().map(|x| x.jsd.as_slice()));
            let ratio = ratio.unwrap_or(0.0);
            samples.push(json!({
                "task": item.task_id, "strategy": item.strategy, "sample": i,
                "tokens": d.tokens.len(), "dtr": ratio, "correct": sample.correct,
                "format_failure": sample.format_failure,
            }));
            task.push(item.task_id.clone());
            correct.push(sample.correct);
            dtr.push(ratio);
            length.push(d.tokens.len() as f64);
        }
    }
    let within = within_task(&task, &correct, &dtr);
    Ok(json!({
        "unit": t.unit.name(), "g": t.g, "rho": t.rho,
        "samples": samples,
        "r_trace": trace_json(&correlation(&correct, &dtr, &task, seed)),
        "r_binned": binned_json(&binned_r(&correct, &dtr, STUDY_BINS)),
        "r_trace_length": trace_json(&correlation(&correct, &length, &task, seed)),
        "r_binned_length": binned_json(&binned_r(&correct, &length, STUDY_BINS)),
        "within_task": {"mean": within.mean, "interval": within.interval, "n": within.n, "differences": within.differences},
    }))
}

fn trace_json(c: &Correlation) -> Value {
    json!({"r": c.r, "interval": c.interval, "n": c.n, "tasks": c.tasks})
}

fn binned_json(b: &Binned) -> Value {
    json!({"r": b.r, "n": b.bins.len(), "bins": b.bins})
}

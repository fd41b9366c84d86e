//! The CLI's commands. Each returns the JSON it prints.

use crate::cli::{Cli, Command, DraftKind, Generate, Prompt, Reason, Sampling};
use crate::probe;
use engine::speculative::Draft;
use engine::{
    chat_tokens, conversation_tokens, prompt_tokens, Message, Model, Role, SamplerSettings, Session, SystemPrompt,
};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

pub fn run(cli: Cli) -> Result<Value, String> {
    let model = cli.model.as_path();
    engine::parallel::set_threads(cli.threads);
    match cli.command {
        Command::Tokenize { text } => tokenize(model, &text),
        Command::Logits { ids, top } => logits(model, &ids, top),
        Command::Generate(g) => generate(model, &g),
        Command::Bench { rounds, batch: None } => bench(model, rounds),
        Command::Bench { rounds, batch: Some(n) } => bench_batch(model, n, rounds),
        Command::Reference { top } => reference(model, top),
        Command::Reason(r) => reason(model, &r),
        Command::Attention { prompt, layer, head } => probe::attention(model, &prompt, layer, head),
        Command::Lens { prompt, top } => probe::lens(model, &prompt, top),
        Command::BenchPass { tokens, rounds } => probe::bench_pass(model, &tokens, rounds),
        Command::Check(c) => crate::check::run(&c),
        Command::Distribution(d) => crate::distribution::run(model, &d),
    }
}

fn model_bytes(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path)
        .map_err(|e| format!("cannot read the model file {}: {e} (scripts/fetch-model.sh fetches it)", path.display()))
}

pub fn load_model(path: &Path) -> Result<Arc<Model>, String> {
    Model::from_gguf_bytes(&model_bytes(path)?).map(Arc::new).map_err(|e| e.to_string())
}

pub fn session(model: Arc<Model>) -> Session {
    let origin = Instant::now();
    Session::new(model, Box::new(move || origin.elapsed().as_secs_f64() * 1000.0))
}

fn tokenize(path: &Path, text: &str) -> Result<Value, String> {
    let model = load_model(path)?;
    let ids = model.tokenizer.encode(text, true).map_err(|e| e.to_string())?;
    Ok(json!(ids))
}

fn logits(path: &Path, ids: &[u32], top: usize) -> Result<Value, String> {
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

/// The prompt's tokens: through the chat template (with `--system`'s text as its system
/// turn), or as-is with `--raw`.
pub fn prompt_ids(model: &Model, p: &Prompt) -> Result<Vec<u32>, String> {
    match &p.system {
        Some(system) => conversation_tokens(&model.tokenizer, system, &[], &p.prompt),
        None => prompt_tokens(&model.tokenizer, &p.prompt, p.raw, system_prompt(p)),
    }
    .map_err(|e| e.to_string())
}

fn system_prompt(p: &Prompt) -> SystemPrompt {
    if p.no_system_prompt {
        SystemPrompt::Off
    } else {
        SystemPrompt::Default
    }
}

fn generate(path: &Path, g: &Generate) -> Result<Value, String> {
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

/// A fixed prompt of about 190 tokens, through the chat template.
pub const BENCH_PROMPT: &str = "Read the following notes about how a language model produces text, then summarise \
them in your own words for a student who has never seen a neural network. A language model reads a prompt \
as a sequence of tokens, which are pieces of words. In the first stage, called prefill, it processes every \
prompt token in one pass and stores the keys and values of its attention layers in a cache. In the second \
stage, called decode, it produces one new token at a time: it computes a probability for every token in its \
vocabulary, a sampler picks one, and the new token is appended to the sequence. Temperature changes how \
concentrated those probabilities are, while top-k and top-p restrict which candidates may be picked at all. \
None of these settings checks whether an answer is true. Explain why the first stage is faster per token than \
the second, and what the cache saves.";
const BENCH_TOKENS: usize = 128;

/// The bench prompt's tokens, through the chat template with the default system prompt.
pub fn bench_ids(model: &Model) -> Result<Vec<u32>, String> {
    prompt_tokens(&model.tokenizer, BENCH_PROMPT, false, SystemPrompt::Default).map_err(|e| e.to_string())
}

fn bench(path: &Path, rounds: usize) -> Result<Value, String> {
    let model = load_model(path)?;
    let ids = bench_ids(&model)?;
    let greedy = SamplerSettings::greedy();
    let (mut prefill, mut decode) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        let mut s = session(model.clone());
        s.start(&ids, 0).map_err(|e| e.to_string())?;
        // Exactly BENCH_TOKENS, whatever the model says: end-of-turn does not stop a benchmark.
        for _ in 0..BENCH_TOKENS {
            s.step(&greedy).map_err(|e| e.to_string())?;
        }
        prefill.push(s.timings().prefill_tokens_per_s());
        decode.push(s.timings().decode_tokens_per_s());
    }
    Ok(json!({
        "prompt_tokens": ids.len(),
        "generated_tokens": BENCH_TOKENS,
        "rounds": prefill.len(),
        "threads": engine::parallel::threads(),
        "prefill_tokens_per_s": median(&mut prefill),
        "decode_tokens_per_s": median(&mut decode),
    }))
}

/// N samples of the bench prompt, one fresh session after another and then decoded together
/// (`engine::batch_bench`, the same round the browser's bench/batch.mjs times in the worker).
fn bench_batch(path: &Path, n: usize, rounds: usize) -> Result<Value, String> {
    use engine::batch_bench::{round, samples};
    if !(1..=100).contains(&rounds) {
        return Err("--rounds must be 1 to 100".into());
    }
    let model = load_model(path)?;
    let ids = bench_ids(&model)?;
    let samples = samples(n, BENCH_TOKENS).map_err(|e| e.to_string())?;
    let origin = Instant::now();
    let now = || origin.elapsed().as_secs_f64() * 1000.0;
    let rate = |tokens: usize, ms: f64| tokens as f64 * 1000.0 / ms;
    let (mut seq, mut bat, mut speedup, mut seq_decode, mut bat_decode) = (vec![], vec![], vec![], vec![], vec![]);
    let mut generated = 0;
    for _ in 0..rounds {
        let r = round(&model, &ids, &samples, || session(model.clone()), now).map_err(|e| e.to_string())?;
        generated = r.generated_tokens;
        seq.push(rate(generated, r.sequential_ms));
        bat.push(rate(generated, r.batched_ms));
        speedup.push(r.sequential_ms / r.batched_ms);
        seq_decode.push(rate(generated - n, r.sequential_decode_ms));
        bat_decode.push(rate(generated - n, r.batched_decode_ms));
    }
    Ok(json!({
        "batch": n,
        "prompt_tokens": ids.len(),
        "generated_tokens": generated,
        "rounds": rounds,
        "threads": engine::parallel::threads(),
        "sequential_tokens_per_s": median(&mut seq),
        "batched_tokens_per_s": median(&mut bat),
        "speedup": median(&mut speedup),
        "sequential_decode_tokens_per_s": median(&mut seq_decode),
        "batched_decode_tokens_per_s": median(&mut bat_decode),
    }))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn reference(path: &Path, top: usize) -> Result<Value, String> {
    use engine::reference::{logit_error, Reference, CHECK_PROMPTS};
    let bytes = model_bytes(path)?;
    let model = Model::from_gguf_bytes(&bytes).map_err(|e| e.to_string())?;
    let reference = Reference::from_gguf_bytes(&bytes).map_err(|e| e.to_string())?;
    let e = logit_error(&model, &reference, CHECK_PROMPTS, top).map_err(|e| e.to_string())?;
    serde_json::to_value(e).map_err(|e| e.to_string())
}

fn reason(path: &Path, r: &Reason) -> Result<Value, String> {
    use engine::reasoning::strategy::{run_all, summarize, RunConfig, Strategy};
    use engine::reasoning::tasks::{bundled_tasks, select};
    // clap has already limited --strategy to the names Strategy::parse knows.
    let strategy = Strategy::parse(&r.strategy).ok_or("--strategy: unknown strategy")?;
    let cfg = RunConfig {
        strategy,
        samples: r.samples,
        temperature: r.temperature,
        budget: r.budget,
        seed: r.seed.unwrap_or(42),
    };
    cfg.validate().map_err(|e| e.to_string())?;
    let all = bundled_tasks();
    let category = r.category.as_deref();
    if let Some(c) = category {
        if !all.iter().any(|t| t.category == c) {
            return Err(format!("--category: no task has category '{c}'"));
        }
    }
    let tasks = select(&all, category, r.limit, r.seed);
    let items = if tasks.is_empty() {
        Vec::new()
    } else {
        let mut s = session(load_model(path)?);
        let origin = Instant::now();
        run_all(&mut s, &tasks, &cfg, || origin.elapsed().as_secs_f64() * 1000.0).map_err(|e| e.to_string())?
    };
    let summary = summarize(strategy, &items);
    let mut out = serde_json::to_value(&summary).map_err(|e| e.to_string())?;
    out["tasks_available"] = json!(all.len());
    if strategy == Strategy::SelfConsistency {
        let (pass, majority) = engine::reasoning::strategy::sampling_curves(&items);
        out["pass_at_k"] = json!(pass);
        out["majority_at_k"] = json!(majority);
    }
    out["items"] = serde_json::to_value(&items).map_err(|e| e.to_string())?;
    Ok(out)
}

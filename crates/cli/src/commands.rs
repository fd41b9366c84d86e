//! The CLI's commands. Each returns the JSON it prints.

use crate::args::Args;
use engine::speculative::Draft;
use engine::{
    chat_tokens, conversation_tokens, prompt_tokens, Message, Model, Role, SamplerSettings, Session, SystemPrompt,
};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;

const DEFAULT_MODEL: &str = "public/models/SmolLM2-135M-Instruct.Q4_1.gguf";

const USAGE: &str = "usage: playground <tokenize|logits|generate|bench> [options]
  tokenize --text STR
  logits   --ids 1,2,3 [--top N]
  generate --prompt STR [--raw] [--system STR | --no-system-prompt] [--temperature T] [--top-k K] [--top-p P]
           [--min-p P] [--repeat-penalty R] [--seed S] [--max-tokens N] [--no-kv-cache]
           [--speculative prompt-lookup|early-exit [--draft-len K] [--draft-layers L]]
           [--follow-up STR]   a second chat turn that extends the first: reports the KV reuse
  bench    [--rounds N]
  reference [--top N]   logit error against the slow plain-f32 forward
  reason   --strategy direct|cot|self-consistency|hidden [--samples N] [--temperature T]
           [--budget TOKENS] [--limit N] [--seed S] [--category C]   the Lesson 3 task set
every command takes --model PATH (default public/models/SmolLM2-135M-Instruct.Q4_1.gguf)";

pub fn run(argv: &[String]) -> Result<Value, String> {
    let (cmd, rest) = argv.split_first().ok_or(USAGE)?;
    match cmd.as_str() {
        "tokenize" => tokenize(&Args::parse(rest, &[], &["model", "text"])?),
        "logits" => logits(&Args::parse(rest, &[], &["model", "ids", "top"])?),
        "generate" => generate(&Args::parse(
            rest,
            &["raw", "no-kv-cache", "no-system-prompt"],
            &[
                "model",
                "prompt",
                "temperature",
                "top-k",
                "top-p",
                "min-p",
                "repeat-penalty",
                "seed",
                "max-tokens",
                "speculative",
                "draft-len",
                "draft-layers",
                "follow-up",
                "system",
            ],
        )?),
        "bench" => bench(&Args::parse(rest, &[], &["model", "rounds"])?),
        "reference" => reference(&Args::parse(rest, &[], &["model", "top"])?),
        "reason" => reason(&Args::parse(
            rest,
            &[],
            &["model", "strategy", "samples", "temperature", "budget", "limit", "seed", "category"],
        )?),
        "help" | "--help" | "-h" => Err(USAGE.to_string()),
        other => Err(format!("unknown command '{other}'\n{USAGE}")),
    }
}

fn model_bytes(args: &Args) -> Result<Vec<u8>, String> {
    let path = args.str("model").unwrap_or(DEFAULT_MODEL);
    std::fs::read(path)
        .map_err(|e| format!("cannot read the model file {path}: {e} (scripts/fetch-model.sh fetches it)"))
}

pub fn load_model(args: &Args) -> Result<Arc<Model>, String> {
    Model::from_gguf_bytes(&model_bytes(args)?).map(Arc::new).map_err(|e| e.to_string())
}

pub fn session(model: Arc<Model>) -> Session {
    let origin = Instant::now();
    Session::new(model, Box::new(move || origin.elapsed().as_secs_f64() * 1000.0))
}

fn tokenize(args: &Args) -> Result<Value, String> {
    let text = args.str("text").ok_or("tokenize needs --text")?;
    let model = load_model(args)?;
    let ids = model.tokenizer.encode(text, true).map_err(|e| e.to_string())?;
    Ok(json!(ids))
}

fn logits(args: &Args) -> Result<Value, String> {
    let ids = args
        .str("ids")
        .ok_or("logits needs --ids, e.g. --ids 1,9690,198")?
        .split(',')
        .map(|s| s.trim().parse::<u32>().map_err(|_| format!("--ids: '{s}' is not a token id")))
        .collect::<Result<Vec<_>, _>>()?;
    let top: usize = args.get("top", 10)?;
    let model = load_model(args)?;
    let mut s = session(model.clone());
    s.start(&ids, 0).map_err(|e| e.to_string())?;
    let dist = s.distribution(&SamplerSettings::plain(1.0, 0)).map_err(|e| e.to_string())?;
    let rows: Vec<Value> = dist
        .top(top)
        .iter()
        .map(|c| json!({"id": c.id, "token": model.tokenizer.token_text(c.id), "logit": c.logit}))
        .collect();
    Ok(json!(rows))
}

pub fn settings(args: &Args) -> Result<SamplerSettings, String> {
    let d = SamplerSettings::default();
    let s = SamplerSettings {
        temperature: args.get("temperature", d.temperature)?,
        top_k: args.get("top-k", d.top_k)?,
        top_p: args.get("top-p", d.top_p)?,
        min_p: args.get("min-p", d.min_p)?,
        repeat_penalty: args.get("repeat-penalty", d.repeat_penalty)?,
        seed: args.get("seed", d.seed)?,
        ..d
    };
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

/// The prompt's tokens: through the chat template (with `--system`'s text as its system
/// turn, as the playground sends it), or as-is with `--raw`.
pub fn prompt_ids(model: &Model, args: &Args, prompt: &str) -> Result<Vec<u32>, String> {
    match custom_system(args)? {
        Some(system) => conversation_tokens(&model.tokenizer, system, &[], prompt),
        None => prompt_tokens(&model.tokenizer, prompt, args.flag("raw"), system_prompt(args)),
    }
    .map_err(|e| e.to_string())
}

/// `--system`'s text, checked against the flags it cannot go with.
fn custom_system(args: &Args) -> Result<Option<&str>, String> {
    match args.str("system") {
        Some(_) if args.flag("raw") => Err("--system is a chat's system turn; it cannot be combined with --raw".into()),
        Some(_) if args.flag("no-system-prompt") => Err("--system and --no-system-prompt contradict each other".into()),
        system => Ok(system),
    }
}

fn system_prompt(args: &Args) -> SystemPrompt {
    if args.flag("no-system-prompt") {
        SystemPrompt::Off
    } else {
        SystemPrompt::Default
    }
}

fn generate(args: &Args) -> Result<Value, String> {
    let prompt = args.str("prompt").ok_or("generate needs --prompt")?;
    let settings = settings(args)?;
    let max_tokens: usize = args.get("max-tokens", 128)?;
    let draft = match args.str("speculative") {
        None => None,
        Some("prompt-lookup") => Some(Draft::PromptLookup),
        Some("early-exit") => Some(Draft::EarlyExit { layers: args.get("draft-layers", 8)? }),
        Some(other) => return Err(format!("--speculative: '{other}' is not prompt-lookup or early-exit")),
    };
    let draft_len: usize = args.get("draft-len", 4)?;
    let model = load_model(args)?;
    let ids = prompt_ids(&model, args, prompt)?;
    let mut s = session(model.clone());
    s.use_cache = !args.flag("no-kv-cache");
    let mut out = run_turn(&mut s, &ids, &settings, max_tokens, draft, draft_len)?;
    if let Some(follow) = args.str("follow-up") {
        if args.flag("raw") {
            return Err("--follow-up is a chat turn; it cannot be combined with --raw".into());
        }
        let text = out["text"].as_str().unwrap_or_default().to_string();
        let system = custom_system(args)?.map(|content| Message { role: Role::System, content: content.into() });
        let turns: Vec<Message> = system
            .into_iter()
            .chain([Message::user(prompt), Message::assistant(&text), Message::user(follow)])
            .collect();
        let ids2 = chat_tokens(&model.tokenizer, &turns, system_prompt(args)).map_err(|e| e.to_string())?;
        out["follow_up"] = run_turn(&mut s, &ids2, &settings, max_tokens, draft, draft_len)?;
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
const BENCH_PROMPT: &str = "Read the following notes about how a language model produces text, then summarise \
them in your own words for a student who has never seen a neural network. A language model reads a prompt \
as a sequence of tokens, which are pieces of words. In the first stage, called prefill, it processes every \
prompt token in one pass and stores the keys and values of its attention layers in a cache. In the second \
stage, called decode, it produces one new token at a time: it computes a probability for every token in its \
vocabulary, a sampler picks one, and the new token is appended to the sequence. Temperature changes how \
concentrated those probabilities are, while top-k and top-p restrict which candidates may be picked at all. \
None of these settings checks whether an answer is true. Explain why the first stage is faster per token than \
the second, and what the cache saves.";
const BENCH_TOKENS: usize = 128;

fn bench(args: &Args) -> Result<Value, String> {
    let rounds: usize = args.get("rounds", 3)?;
    let model = load_model(args)?;
    let ids = prompt_ids(&model, args, BENCH_PROMPT)?;
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
        "threads": 1,
        "prefill_tokens_per_s": median(&mut prefill),
        "decode_tokens_per_s": median(&mut decode),
    }))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn reference(args: &Args) -> Result<Value, String> {
    use engine::reference::{logit_error, Reference, CHECK_PROMPTS};
    let top: usize = args.get("top", 20)?;
    let bytes = model_bytes(args)?;
    let model = Model::from_gguf_bytes(&bytes).map_err(|e| e.to_string())?;
    let reference = Reference::from_gguf_bytes(&bytes).map_err(|e| e.to_string())?;
    let e = logit_error(&model, &reference, CHECK_PROMPTS, top).map_err(|e| e.to_string())?;
    serde_json::to_value(e).map_err(|e| e.to_string())
}

fn reason(args: &Args) -> Result<Value, String> {
    use engine::reasoning::strategy::{run_all, summarize, RunConfig, Strategy};
    use engine::reasoning::tasks::{bundled_tasks, select};
    let name = args.str("strategy").ok_or("reason needs --strategy direct|cot|self-consistency|hidden")?;
    let strategy = Strategy::parse(name)
        .ok_or_else(|| format!("--strategy: '{name}' is not direct, cot, self-consistency or hidden"))?;
    let seed: Option<u64> = args.str("seed").map(|_| args.get("seed", 0)).transpose()?;
    let cfg = RunConfig {
        strategy,
        samples: args.get("samples", 5)?,
        temperature: args.get("temperature", 0.7)?,
        budget: args.get("budget", 128)?,
        seed: seed.unwrap_or(42),
    };
    cfg.validate().map_err(|e| e.to_string())?;
    let all = bundled_tasks();
    let limit: Option<usize> = args.str("limit").map(|_| args.get("limit", 0)).transpose()?;
    let category = args.str("category");
    if let Some(c) = category {
        if !all.iter().any(|t| t.category == c) {
            return Err(format!("--category: no task has category '{c}'"));
        }
    }
    let tasks = select(&all, category, limit, seed);
    let items = if tasks.is_empty() {
        Vec::new()
    } else {
        let mut s = session(load_model(args)?);
        let origin = Instant::now();
        run_all(&mut s, &tasks, &cfg, || origin.elapsed().as_secs_f64() * 1000.0).map_err(|e| e.to_string())?
    };
    let summary = summarize(strategy, &items);
    let mut out = serde_json::to_value(&summary).map_err(|e| e.to_string())?;
    out["tasks_available"] = json!(all.len());
    out["items"] = serde_json::to_value(&items).map_err(|e| e.to_string())?;
    Ok(out)
}

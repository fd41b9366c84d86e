//! `bench` (plain, `--batch`, `--depth`) and `bench-pass`: the engine's speed on a fixed prompt, as JSON.

use crate::model::{load_model, session};
use engine::probe::PassBench;
use engine::quant::choice::{DecodeLoop, KernelKey};
use engine::{prompt_tokens, Model, SamplerSettings, SystemPrompt};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// A fixed prompt of about 190 tokens (SmolLM2's, through its chat template).
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

/// The bench prompt's tokens, through the chat template with the default system prompt; for a
/// base model (no chat template, Gemma 3 270M), the text as it is, after its BOS.
pub fn bench_ids(model: &Model) -> Result<Vec<u32>, String> {
    let raw = !model.has_chat_template();
    prompt_tokens(&model.tokenizer, BENCH_PROMPT, raw, SystemPrompt::Default).map_err(|e| e.to_string())
}

pub fn bench(
    path: &Path,
    rounds: usize,
    integer_activations: bool,
    decode_loop: Option<DecodeLoop>,
) -> Result<Value, String> {
    let model = load_model(path)?;
    model.set_integer_activations(integer_activations);
    let kernels = kernels(&model, path, decode_loop)?;
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
        "integer_activations": integer_activations,
        "prefill_tokens_per_s": median(&mut prefill),
        "decode_tokens_per_s": median(&mut decode),
        "kernels": kernels,
    }))
}

/// Decode's loops for `model`: `forced` for every family, or timed on the model's matrices
/// and the fastest applied (as a host does at load); as JSON, each family's timings with the
/// rate they read the weights at.
fn kernels(model: &Model, path: &Path, forced: Option<DecodeLoop>) -> Result<Value, String> {
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let size = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?.len();
    let key = KernelKey::now(name, size);
    let origin = Instant::now();
    let clock = || origin.elapsed().as_secs_f64() * 1000.0;
    let choice = match forced {
        Some(l) => model.force_kernels(key, l),
        None => model.choose_kernels(key, &clock),
    };
    let families: Vec<Value> = choice
        .families
        .iter()
        .map(|f| {
            let timings: Vec<Value> = f
                .timings
                .iter()
                .map(|t| {
                    json!({
                        "loop": t.decode_loop.name(),
                        "best_ms": t.best_ms(),
                        "median_ms": t.median_ms(),
                        "best_gb_per_s": f.bytes as f64 / t.best_ms() / 1e6,
                        "rounds_ms": t.rounds_ms,
                    })
                })
                .collect();
            json!({
                "family": f.family.name(),
                "chosen": f.chosen.name(),
                "default": f.default.name(),
                "bytes_per_timing": f.bytes,
                "noise": f.noise,
                "timings": timings,
            })
        })
        .collect();
    Ok(json!({"forced": forced.map(DecodeLoop::name), "took_ms": choice.took_ms, "families": families}))
}

/// N samples of the bench prompt, one fresh session after another and then decoded together
/// (`engine::batch_bench`, the same round the browser's bench/batch.mjs times in the worker).
pub fn bench_batch(path: &Path, n: usize, rounds: usize) -> Result<Value, String> {
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

/// The cost of depth: per round, the bench prompt's greedy `BENCH_TOKENS` (as `bench`), then
/// those tokens scored teacher-forced (`probe::depth`: one prefill keeping every layer's
/// states, then every layer's distribution through the output head and its divergence from
/// the last), each part timed. `factor` is (generation + depth) / generation: what a run with
/// depth costs against the same run without it.
pub fn bench_depth(path: &Path, rounds: usize) -> Result<Value, String> {
    use engine::kv_cache::KvCache;
    use engine::probe::depth::divergences;
    if !(1..=100).contains(&rounds) {
        return Err("--rounds must be 1 to 100".into());
    }
    let model = load_model(path)?;
    let ids = bench_ids(&model)?;
    let greedy = SamplerSettings::greedy();
    let (mut generation, mut states, mut heads, mut factor) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let t0 = Instant::now();
        let mut s = session(model.clone());
        s.start(&ids, 0).map_err(|e| e.to_string())?;
        for _ in 0..BENCH_TOKENS {
            s.step(&greedy).map_err(|e| e.to_string())?;
        }
        let t1 = Instant::now();
        let all = s.tokens().to_vec();
        let keep = ids.len() - 1..all.len() - 1;
        let (_, st) =
            model.forward_states(&all, 0, &mut KvCache::new(&model.config), keep).map_err(|e| e.to_string())?;
        let t2 = Instant::now();
        let d = divergences(&model, &st.rows, st.layers).map_err(|e| e.to_string())?;
        let t3 = Instant::now();
        if d.len() != BENCH_TOKENS {
            return Err(format!("depth scored {} tokens of {BENCH_TOKENS}", d.len()));
        }
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1000.0;
        generation.push(ms(t0, t1));
        states.push(ms(t1, t2));
        heads.push(ms(t2, t3));
        factor.push(ms(t0, t3) / ms(t0, t1));
    }
    Ok(json!({
        "prompt_tokens": ids.len(),
        "generated_tokens": BENCH_TOKENS,
        "layers": model.config.layers,
        "rounds": rounds,
        "threads": engine::parallel::threads(),
        "generation_ms": median(&mut generation),
        "depth_prefill_ms": median(&mut states),
        "depth_head_ms": median(&mut heads),
        "factor": median(&mut factor),
    }))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Where every timed pass starts: this many tokens of the bench prompt are cached.
const PASS_POSITION: usize = 128;
/// Milliseconds per forward pass over n tokens at one position, for each n of `--tokens`.
pub fn bench_pass(path: &Path, sizes: &[usize], rounds: usize) -> Result<Value, String> {
    if !(1..=100).contains(&rounds) {
        return Err("--rounds must be 1 to 100".into());
    }
    let model = load_model(path)?;
    let ids = bench_ids(&model)?;
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
    Ok(json!({"position": PASS_POSITION, "rounds": rounds, "threads": engine::parallel::threads(), "passes": passes}))
}

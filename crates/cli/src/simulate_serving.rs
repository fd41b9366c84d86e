//! `playground simulate-serving`: the serving simulator without the page. The costs are given
//! (a run is then exact and repeatable) or timed here (--measured), as the page times them:
//! passes of 1 to 32 tokens at position 128 for the fixed and per-token costs, and a pass of
//! 16 tokens at positions 128 and 1,024 for attention's cost per position.

use crate::bench::bench_ids;
use crate::cli::{Batching, ServingMode, SimulateServing};
use crate::model::load_model;
use engine::probe::PassBench;
use engine::serving_sim::{self, ContextParallel, Costs, MeasuredCosts, Memory, Request, Server, Workload};
use engine::serving_sim::{FAR_POSITION, NEAR_POSITION, PASS_SIZES, SLOPE_TOKENS};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

const ROUNDS: usize = 5;

pub fn run(model: &Path, a: &SimulateServing) -> Result<Value, String> {
    let (requests, workload) = match &a.workload {
        Some(file) => (read_workload(file)?, json!({ "file": file.display().to_string() })),
        None => {
            let w = Workload {
                requests: a.requests,
                arrivals_per_s: a.rate,
                prompt_tokens: (a.prompt_min, a.prompt_max),
                answer_tokens: (a.answer_min, a.answer_max),
                max_tokens: a.max_tokens,
                seed: a.seed,
            };
            (serving_sim::draw(&w)?, json!({ "drawn": w, "distributions": "arrivals at random (exponential gaps at the mean rate); prompt and answer lengths uniform in their ranges; every request's max_tokens the same" }))
        }
    };
    let server = server(a)?;
    let (costs, measured, kv_bytes) = if a.measured {
        let (costs, measured, kv_bytes) = measure(model)?;
        (costs, Some(measured), kv_bytes)
    } else {
        // Required by clap without --measured.
        let given = |v: Option<f64>| v.unwrap_or(0.0);
        (Costs { pass_ms: given(a.pass_ms), token_ms: given(a.token_ms), position_us: given(a.position_us) }, None, 0.0)
    };
    let server = Server { kv_bytes_per_token: a.kv_bytes_per_token.unwrap_or(kv_bytes), ..server };
    let outcome = serving_sim::simulate(&costs, &requests, &server)?;
    let summary = outcome.summary();
    let rows: Vec<Value> = requests
        .iter()
        .zip(&outcome.requests)
        .map(|(r, o)| {
            json!({
                "arrival_ms": r.arrival_ms, "prompt_tokens": r.prompt_tokens, "answer_tokens": r.answer_tokens,
                "max_tokens": r.max_tokens, "admitted_ms": o.admitted_ms, "first_token_ms": o.first_token_ms,
                "finish_ms": o.finish_ms, "token_ms": o.token_ms, "preemptions": o.preemptions,
            })
        })
        .collect();
    Ok(json!({
        "inputs": {
            "workload": workload,
            "server": server,
            "costs": { "pass_ms": costs.pass_ms, "token_ms": costs.token_ms, "position_us": costs.position_us, "measured": measured },
            "assumptions": "one pass of the whole batch at a time; a pass costs pass_ms + token_ms per token + position_us per token per cached position; first come, first served; paged memory preempts the request admitted last and recomputes it; percentiles are nearest-rank",
        },
        "requests": rows,
        "summary": summary,
        "exchange_ms": outcome.exchange_ms,
    }))
}

/// The server the flags describe; the engine checks the ranges.
fn server(a: &SimulateServing) -> Result<Server, String> {
    if !(a.memory_mb.is_finite() && a.memory_mb > 0.0 && a.memory_mb <= 1e9) {
        return Err(format!("--memory-mb {}: it must be above 0 and at most 1e9", a.memory_mb));
    }
    let memory = match (a.mode, a.block_size) {
        (ServingMode::Contiguous, Some(_)) => return Err("--block-size applies to --mode paged only".into()),
        (ServingMode::Contiguous, None) => Memory::Contiguous,
        (ServingMode::Paged, size) => Memory::Paged { block_size: size.unwrap_or(16) },
    };
    if a.cp == 0 {
        return Err(format!("--cp 0: it must be 1 to {}", serving_sim::MAX_DEVICES));
    }
    Ok(Server {
        memory_bytes: a.memory_mb * 1e6,
        kv_bytes_per_token: 0.0,
        batch_limit: a.batch_limit,
        memory,
        continuous: matches!(a.batching, Batching::Continuous),
        prefill_chunk: (a.chunk > 0).then_some(a.chunk),
        context_parallel: (a.cp > 1).then_some(ContextParallel { devices: a.cp, link_ms: a.link_ms, overlap: a.overlap }),
    })
}

fn read_workload(file: &Path) -> Result<Vec<Request>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read the workload file {}: {e}", file.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!("the workload file {} is not a JSON list of {{\"arrival_ms\", \"prompt_tokens\", \"answer_tokens\", \"max_tokens\"}}: {e}", file.display())
    })
}

/// This machine's costs with the model, the passes they came from, and the cache's bytes
/// per position.
fn measure(path: &Path) -> Result<(Costs, Value, f64), String> {
    let model = load_model(path)?;
    let ids = bench_ids(&model)?;
    let context = |position: usize, largest: usize| ids.iter().copied().cycle().take(position + largest).collect();
    let origin = Instant::now();
    let clock = || origin.elapsed().as_secs_f64() * 1000.0;
    let e = |e: engine::EngineError| e.to_string();
    let largest = PASS_SIZES[PASS_SIZES.len() - 1];
    let mut near = PassBench::new(&model, context(NEAR_POSITION, largest), NEAR_POSITION).map_err(e)?;
    let pass_ms =
        PASS_SIZES.iter().map(|&n| Ok((n, near.median_ms(&model, n, ROUNDS, &clock).map_err(e)?))).collect::<Result<Vec<_>, String>>()?;
    let mut far = PassBench::new(&model, context(FAR_POSITION, SLOPE_TOKENS), FAR_POSITION).map_err(e)?;
    let far_pass_ms = Some(far.median_ms(&model, SLOPE_TOKENS, ROUNDS, &clock).map_err(e)?);
    let measured = MeasuredCosts { pass_ms, kv_bytes_per_position: near.kv_bytes_per_position(), far_pass_ms };
    let costs = measured.costs()?;
    let passes = json!({ "rounds": ROUNDS, "threads": engine::parallel::threads(), "passes": measured, "near_position": NEAR_POSITION, "far_position": FAR_POSITION });
    Ok((costs, passes, measured.kv_bytes_per_position))
}

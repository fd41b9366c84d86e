//! What the simulated server did: the learner's server as set, then the same arrivals with
//! one change at a time (each of the lesson's four switches flipped), and every input the
//! simulation used, measured or assumed. Recomputed on the page at every control change.

use super::number::{mb, ms, percent};
use super::readout::Readout;
use super::serving_inputs::Assumptions;
use engine::serving_sim::{simulate, MeasuredCosts, Server, Summary};
use leptos::prelude::*;

/// The server as set, and each switch flipped.
fn variants(a: &Assumptions, set: &Server) -> Vec<(&'static str, String, Server)> {
    let mut flips = vec![("as-set", "Your server, as set".to_string(), set.clone())];
    let continuous = Server { continuous: !set.continuous, ..set.clone() };
    flips.push(("continuous", if set.continuous { "Static batching instead" } else { "Continuous batching instead" }.into(), continuous));
    let chunked = Server {
        prefill_chunk: match set.prefill_chunk {
            Some(_) => None,
            None => Some(a.chunk.get()),
        },
        ..set.clone()
    };
    let chunk_label = match set.prefill_chunk {
        Some(_) => "Whole prompts instead of chunks".to_string(),
        None => format!("Prefill in chunks of {} tokens", a.chunk.get()),
    };
    flips.push(("chunking", chunk_label, chunked));
    let cache = Server {
        memory_bytes: if a.larger_cache.get() { set.memory_bytes / 2.0 } else { set.memory_bytes * 2.0 },
        ..set.clone()
    };
    flips.push(("cache", if a.larger_cache.get() { "Half the cache" } else { "Twice the cache" }.into(), cache));
    let parallel = Server {
        context_parallel: match set.context_parallel {
            Some(_) => None,
            None => Some(engine::serving_sim::ContextParallel {
                devices: a.devices.get(),
                link_gb_per_s: a.link_gb_per_s.get() as f64,
            }),
        },
        ..set.clone()
    };
    let parallel_label = match set.context_parallel {
        Some(_) => "Prefill on one device".to_string(),
        None => format!("Prefill split across {} devices", a.devices.get()),
    };
    flips.push(("context-parallel", parallel_label, parallel));
    flips
}

#[component]
pub fn ServingResults(costs: Signal<Option<MeasuredCosts>>, a: Assumptions) -> impl IntoView {
    // Every variant's summary, or why the inputs cannot be simulated.
    let outcomes = Memo::new(move |_| {
        let costs = costs.get()?;
        let (workload, set) = (a.workload(), a.server());
        Some(
            variants(&a, &set)
                .into_iter()
                .map(|(key, label, server)| {
                    simulate(&costs, &workload, &server).map(|o| (key, label, o.summary()))
                })
                .collect::<Result<Vec<_>, String>>(),
        )
    });
    let mine = move || outcomes.with(|o| o.as_ref().and_then(|o| o.as_ref().ok()).map(|v| v[0].2.clone()));
    let figure = move |f: fn(&Summary) -> Option<f64>| Signal::derive(move || mine().and_then(|s| f(&s)));
    let table = move || {
        outcomes.with(|o| match o {
            None => view! { <p class="hint" data-testid="serving-waiting">"Measure this device first: the simulation runs on its pass times."</p> }.into_any(),
            Some(Err(e)) => view! { <p class="error" role="alert" data-testid="serving-error">{e.clone()}</p> }.into_any(),
            Some(Ok(rows)) => view! {
                <table class="numbers" data-testid="serving-compare">
                    <caption>"Simulated: the same arrivals with one change at a time"</caption>
                    <thead><tr>
                        <th scope="col">"Server"</th>
                        <th scope="col">"First token, mean"</th>
                        <th scope="col">"Tokens/s per user"</th>
                        <th scope="col">"Tokens/s in total"</th>
                        <th scope="col">"Waited for memory"</th>
                    </tr></thead>
                    <tbody>
                        {rows.iter().map(|(key, label, s)| view! {
                            <tr data-variant=*key data-total-tps=s.total_tokens_per_s.to_string() data-ttft-ms=s.ttft_mean_ms.to_string()>
                                <th scope="row">{label.clone()}</th>
                                <td>{ms(s.ttft_mean_ms)}</td>
                                <td>{s.per_user_tokens_per_s.map_or("–".into(), |v| format!("{v:.1}"))}</td>
                                <td>{format!("{:.1}", s.total_tokens_per_s)}</td>
                                <td>{s.waited_for_memory}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }
            .into_any(),
        })
    };
    let inputs = move || {
        let costs = costs.get()?;
        let (w, s) = (a.workload(), a.server());
        let passes = costs.pass_ms.iter().map(|(n, t)| format!("{n}: {}", ms(*t))).collect::<Vec<_>>().join(", ");
        let per_position = costs.kv_bytes_per_position * s.kv_scale;
        Some(view! {
            <ul data-testid="serving-inputs">
                <li>{format!("Measured on this device: one pass over n tokens at position 128 (n: time) {passes}. A batch's pass over n tokens is taken to cost the same as one sequence's; a larger pass, its per-token time at 32 tokens.")}</li>
                <li>{format!("Measured: {:.0} bytes of keys and values per position in this engine's cache; assumed ×{:.1}, so {:.0} bytes.", costs.kv_bytes_per_position, s.kv_scale, per_position)}</li>
                <li>{format!("Assumed: {} requests arriving at random, {} a minute on average; prompts of {} to {} tokens, answers of {} to {}, uniformly; seed {}.", w.requests, a.per_minute.get(), w.prompt_tokens.0, w.prompt_tokens.1, w.answer_tokens.0, w.answer_tokens.1, w.seed)}</li>
                <li>{format!("Assumed: {} for the KV cache, a request reserving its whole prompt and answer on admission; at most {} requests per batch; first come, first served.", mb(s.memory_bytes), s.batch_limit)}</li>
                <li>{match s.context_parallel {
                    Some(cp) => format!("Assumed: a prompt's tokens split evenly across {} devices, each receiving the other devices' keys and values ({} of them) over a {} GB/s link before its pass, not overlapped.", cp.devices, percent((cp.devices - 1) as f64 / cp.devices as f64), cp.link_gb_per_s),
                    None => "Prefill on one device.".to_string(),
                }}</li>
            </ul>
        })
    };
    view! {
        <div class="readouts">
            <Readout testid="serving-ttft" label="Time to first token, mean (simulated)" value=figure(|s| Some(s.ttft_mean_ms)) format=ms/>
            <Readout testid="serving-ttft-p95" label="… 95th percentile" value=figure(|s| Some(s.ttft_p95_ms)) format=ms/>
            <Readout testid="serving-user-tps" label="Tokens/s per user" value=figure(|s| s.per_user_tokens_per_s) format=|v| format!("{v:.1}")/>
            <Readout testid="serving-total-tps" label="Tokens/s in total" value=figure(|s| Some(s.total_tokens_per_s)) format=|v| format!("{v:.1}")/>
            <Readout testid="serving-waited" label="Requests that waited for memory" value=figure(|s| Some(s.waited_for_memory as f64)) format=|v| format!("{v:.0}")/>
            <Readout testid="serving-peak" label="Most cache memory in use" value=figure(|s| Some(s.peak_memory_bytes)) format=mb/>
            <Readout testid="serving-communication" label="Time sending keys and values" value=figure(|s| Some(s.communication_ms)) format=ms/>
        </div>
        {table}
        <details open=true>
            <summary>"Inputs of the simulation"</summary>
            {inputs}
        </details>
    }
}

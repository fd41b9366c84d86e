//! What the simulated server did: the learner's server as set, its memory reserved and in use
//! over time, then the same arrivals with one change at a time, and every input the
//! simulation used, measured or assumed. Recomputed on the page at every control change.

use super::number::{mb, ms, percent};
use super::readout::Readout;
use super::serving_inputs::Assumptions;
use crate::ui::chart::line::{LineChart, Series};
use engine::serving_sim::{draw, simulate, Costs, MeasuredCosts, Memory, MemoryPoint, Server, Summary};
use leptos::prelude::*;

/// The most points the memory chart draws (a run has a point per pass, thousands of them).
const CHART_POINTS: usize = 300;

/// The server as set, and each switch flipped.
fn variants(a: &Assumptions, set: &Server) -> Vec<(&'static str, String, Server)> {
    let mut flips = vec![("as-set", "Your server, as set".to_string(), set.clone())];
    let paged = matches!(set.memory, Memory::Paged { .. });
    let memory = if paged { Memory::Contiguous } else { Memory::Paged { block_size: a.block_size.get() } };
    let memory_label = if paged { "Contiguous reservation instead".to_string() } else { format!("Paged memory instead (blocks of {})", a.block_size.get()) };
    flips.push(("paging", memory_label, Server { memory, ..set.clone() }));
    let continuous = Server { continuous: !set.continuous, ..set.clone() };
    flips.push(("continuous", if set.continuous { "Static batching instead" } else { "Continuous batching instead" }.into(), continuous));
    let chunk = if set.prefill_chunk.is_some() { None } else { Some(a.chunk.get()) };
    let chunk_label = if chunk.is_none() { "Whole prompts instead of chunks".to_string() } else { format!("Prefill in chunks of {} tokens", a.chunk.get()) };
    flips.push(("chunking", chunk_label, Server { prefill_chunk: chunk, ..set.clone() }));
    let ring = if set.context_parallel.is_some() { None } else { Some(a.ring(set.kv_bytes_per_token)) };
    let ring_label = if ring.is_none() { "Prefill on one device".to_string() } else { format!("Prefill split across {} devices", a.devices.get()) };
    flips.push(("context-parallel", ring_label, Server { context_parallel: ring, ..set.clone() }));
    flips
}

type Row = (&'static str, String, Summary);

#[component]
pub fn ServingResults(costs: Signal<Option<MeasuredCosts>>, a: Assumptions) -> impl IntoView {
    // Every variant's summary and the server as set's memory over time, or why the inputs
    // cannot be simulated.
    let outcomes = Memo::new(move |_| {
        let measured = costs.get()?;
        Some((|| -> Result<(Vec<Row>, Vec<MemoryPoint>, f64), String> {
            let costs = measured.costs()?;
            let requests = draw(&a.workload())?;
            let set = a.server(measured.kv_bytes_per_position);
            let (mut timeline, mut exchange_ms, mut rows) = (Vec::new(), 0.0, Vec::new());
            for (i, (key, label, server)) in variants(&a, &set).into_iter().enumerate() {
                let outcome = simulate(&costs, &requests, &server)?;
                if i == 0 {
                    timeline = outcome.timeline.clone();
                    exchange_ms = outcome.exchange_ms;
                }
                rows.push((key, label, outcome.summary()));
            }
            Ok((rows, timeline, exchange_ms))
        })())
    });
    let mine = move || outcomes.with(|o| o.as_ref().and_then(|o| o.as_ref().ok()).map(|(rows, _, _)| rows[0].2.clone()));
    let exchange = Signal::derive(move || outcomes.with(|o| o.as_ref().and_then(|o| o.as_ref().ok()).map(|(_, _, e)| *e)));
    let figure = move |f: fn(&Summary) -> f64| Signal::derive(move || mine().map(|s| f(&s)));
    let series = Signal::derive(move || {
        let points = outcomes.with(|o| o.as_ref().and_then(|o| o.as_ref().ok()).map(|(_, t, _)| t.clone())).unwrap_or_default();
        let step = points.len().div_ceil(CHART_POINTS).max(1);
        let line = |f: fn(&MemoryPoint) -> f64| points.iter().step_by(step).map(|p| (p.ms / 1000.0, f(p) / 1e6)).collect();
        vec![
            Series { name: "reserved", class: "series-a", points: line(|p| p.reserved_bytes) },
            Series { name: "in use (written positions)", class: "series-b", points: line(|p| p.used_bytes) },
        ]
    });
    let table = move || {
        outcomes.with(|o| match o {
            None => view! { <p class="hint" data-testid="serving-waiting">"Measure this device first: the simulation runs on its pass times."</p> }.into_any(),
            Some(Err(e)) => view! { <p class="error" role="alert" data-testid="serving-error">{e.clone()}</p> }.into_any(),
            Some(Ok((rows, _, _))) => view! {
                <table class="numbers" data-testid="serving-compare">
                    <caption>"Simulated: the same arrivals with one change at a time"</caption>
                    <thead><tr>
                        <th scope="col">"Server"</th>
                        <th scope="col">"First token, median"</th>
                        <th scope="col">"Gap between tokens, 95th percentile"</th>
                        <th scope="col">"Tokens/s in total"</th>
                        <th scope="col">"Largest batch"</th>
                        <th scope="col">"Preemptions"</th>
                    </tr></thead>
                    <tbody>
                        {rows.iter().map(|(key, label, s)| view! {
                            <tr data-variant=*key data-total-tps=s.tokens_per_s.to_string() data-ttft-ms=s.ttft_p50_ms.to_string()
                                data-gap-p95-ms=s.gap_p95_ms.to_string() data-peak-batch=s.peak_batch>
                                <th scope="row">{label.clone()}</th>
                                <td>{ms(s.ttft_p50_ms)}</td>
                                <td>{ms(s.gap_p95_ms)}</td>
                                <td>{format!("{:.1}", s.tokens_per_s)}</td>
                                <td>{s.peak_batch}</td>
                                <td>{s.preemptions}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            }
            .into_any(),
        })
    };
    let inputs = move || {
        let measured = costs.get()?;
        let costs = measured.costs().ok()?;
        Some(view! { <ul data-testid="serving-inputs">{inputs(&measured, &costs, &a)}</ul> })
    };
    view! {
        <div class="readouts">
            <Readout testid="serving-ttft" label="Time to first token, median (simulated)" value=figure(|s| s.ttft_p50_ms) format=ms/>
            <Readout testid="serving-ttft-p95" label="… 95th percentile" value=figure(|s| s.ttft_p95_ms) format=ms/>
            <Readout testid="serving-gap-p50" label="Gap between a user's tokens, median" value=figure(|s| s.gap_p50_ms) format=ms/>
            <Readout testid="serving-gap-p95" label="… 95th percentile" value=figure(|s| s.gap_p95_ms) format=ms/>
            <Readout testid="serving-gap-max" label="… longest" value=figure(|s| s.gap_max_ms) format=ms/>
            <Readout testid="serving-total-tps" label="Tokens/s in total" value=figure(|s| s.tokens_per_s) format=|v| format!("{v:.1}")/>
            <Readout testid="serving-peak-batch" label="Largest batch" value=figure(|s| s.peak_batch as f64) format=|v| format!("{v:.0}")/>
            <Readout testid="serving-preemptions" label="Preemptions (recomputed)" value=figure(|s| s.preemptions as f64) format=|v| format!("{v:.0}")/>
            <Readout testid="serving-peak" label="Most cache memory reserved" value=figure(|s| s.peak_reserved_bytes) format=mb/>
            <Readout testid="serving-peak-used" label="Most cache memory in use" value=figure(|s| s.peak_used_bytes) format=mb/>
            <Readout testid="serving-communication" label="Time the ring exchange added to passes" value=exchange format=ms/>
        </div>
        <LineChart
            testid="serving-memory-chart"
            caption="Simulated: the KV cache memory reserved and in use (written positions) after each pass of your server, as set."
            x_label="simulated time (s)"
            y_label="MB"
            series=series
        />
        {table}
        <details open=true>
            <summary>"Inputs of the simulation"</summary>
            {inputs}
        </details>
    }
}

/// Every input, measured or assumed, and the rules the simulation follows.
fn inputs(measured: &MeasuredCosts, costs: &Costs, a: &Assumptions) -> impl IntoView {
    let (w, s) = (a.workload(), a.server(measured.kv_bytes_per_position));
    let passes = measured.pass_ms.iter().map(|(n, t)| format!("{n}: {}", ms(*t))).collect::<Vec<_>>().join(", ");
    let memory = match s.memory {
        Memory::Contiguous => "a request reserving its prompt plus its max_tokens on admission, in one piece".to_string(),
        Memory::Paged { block_size } => format!("paged in blocks of {block_size} positions, taken as they are written; when none is free, the request admitted last is preempted and later recomputed (its prompt and the tokens it had written, in one prefill)"),
    };
    let ring = match s.context_parallel {
        Some(cp) => format!(
            "Assumed: a prompt's tokens split evenly across {} devices; each ring step sends one device's share onward ({} of the prompt's keys and values cross the {} GB/s link in all), {}.",
            cp.devices,
            percent((cp.devices - 1) as f64 / cp.devices as f64),
            a.link_gb_per_s.get(),
            if cp.overlap { "overlapped with the computation (the pass takes the longer of the two)" } else { "after the computation, not overlapped: an upper bound" }
        ),
        None => "Prefill on one device.".to_string(),
    };
    view! {
        <li>{format!("Measured on this device: one pass over n tokens with 128 tokens cached (n: time) {passes}; the 16-token pass with 1,024 cached: {}.", measured.far_pass_ms.map_or("–".into(), ms))}</li>
        <li>{format!("From them: a pass costs {:.2} ms, plus {:.3} ms per token, plus {:.3} µs per token per cached position it reads (attention). Decoding requests and prompt tokens share one pass.", costs.pass_ms, costs.token_ms, costs.position_us)}</li>
        <li>{format!("Measured: {:.0} bytes of keys and values per position in this engine's cache; assumed ×{:.1}, so {:.0} bytes.", measured.kv_bytes_per_position, a.kv_scale.get(), s.kv_bytes_per_token)}</li>
        <li>{format!("Assumed: {} requests arriving at random, {} a minute on average; prompts of {} to {} tokens, answers of {} to {}, uniformly, each asking for at most {} (max_tokens); seed {}.", w.requests, a.per_minute.get(), w.prompt_tokens.0, w.prompt_tokens.1, w.answer_tokens.0, w.answer_tokens.1, w.max_tokens, w.seed)}</li>
        <li>{format!("Assumed: {} for the KV cache, {memory}; at most {} requests per batch; first come, first served.", mb(s.memory_bytes), s.batch_limit)}</li>
        <li>{ring}</li>
        <li>"Percentiles are nearest-rank: the 95th of n values is the ⌈0.95·n⌉-th smallest. Gaps are between a user's consecutive tokens, over every user."</li>
    }
}

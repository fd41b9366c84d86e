//! The KV cache on and off: the same greedy generation with the cache, and without it
//! (every step recomputes the whole sequence). Per-token cost against position for both,
//! the totals, and whether the two texts are identical. Each finished run is saved, so that
//! the exercise that compares them survives a glossary link and Back.

use super::actions::Actions;
use super::lab::Lab;
use crate::ui::chart::line::{LineChart, Series};
use super::number::{ms, ratio};
use super::prompt_field::{stage_prompt, PromptField};
use super::readout::Readout;
use super::run::{measure, Run};
use super::saved_measurements::Measurement;
use crate::ui::field::count_input;
use crate::protocol::CacheMode;
use leptos::prelude::*;

const PANEL: &str = "cache";
/// The example prompt (raw text, continued).
const EXAMPLE: (&str, bool) = ("Once", false);

#[component]
pub fn CachePanel(lab: Lab) -> impl IntoView {
    let text = RwSignal::new(EXAMPLE.0.to_string());
    let chat = RwSignal::new(EXAMPLE.1);
    let max_tokens = RwSignal::new(32usize);
    let use_cache = RwSignal::new(true);
    let start = move || {
        let (run, cache, saved): (_, _, fn(Run) -> Measurement) = if use_cache.get_untracked() {
            (lab.cache_on, CacheMode::Cold, |run| Measurement::CacheOn { run })
        } else {
            (lab.cache_off, CacheMode::Off, |run| Measurement::CacheOff { run })
        };
        let prompt = stage_prompt(lab.engine, text.get_untracked(), chat.get_untracked());
        measure(
            lab.engine,
            PANEL,
            prompt,
            cache,
            max_tokens.get_untracked(),
            run,
            move |r| {
                if r.complete() {
                    lab.save(saved(r.clone()));
                }
            },
        );
    };
    let series = Signal::derive(move || {
        let points = |run: RwSignal<Run>| {
            run.with(|r| {
                r.decode_costs()
                    .iter()
                    .map(|c| (c.position as f64, c.ms))
                    .collect()
            })
        };
        vec![
            Series {
                name: "with the KV cache",
                class: "series-a",
                points: points(lab.cache_on),
            },
            Series {
                name: "without it",
                class: "series-b",
                points: points(lab.cache_off),
            },
        ]
    });
    let total = |run: RwSignal<Run>| {
        Signal::derive(move || run.with(|r| (!r.costs.is_empty()).then(|| r.total_ms())))
    };
    view! {
        <section class="lab-panel" aria-labelledby="cache-lab">
            <h3 id="cache-lab">"Measure it: the KV cache on and off"</h3>
            <PromptField id=PANEL text=text chat=chat example=EXAMPLE/>
            <div class="control-row">
                {count_input("cache-max-tokens", "Tokens to generate", max_tokens, 2, 128)}
            </div>
            <div class="control-row">
                <input id="kv-cache-toggle" data-testid="kv-cache-toggle" type="checkbox" role="switch"
                    prop:checked=move || use_cache.get()
                    on:change=move |ev| use_cache.set(event_target_checked(&ev))/>
                <label for="kv-cache-toggle">"Use the KV cache"</label>
            </div>
            <Actions lab=lab panel=PANEL label="Generate" on_run=start/>
            <p class="hint">"Greedy decoding. Run once with the cache and once without; the chart keeps the latest run of each. A one-word raw prompt starts the sequence short, so the uncached cost starts low."</p>
            {move || lab.cache_on.with(|r| r.error.clone()).or_else(|| lab.cache_off.with(|r| r.error.clone())).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <LineChart
                testid="cache-chart"
                caption="Time per generated token against its position in the sequence (the first token, which pays for the prompt, is left out)."
                x_label="position in the sequence"
                y_label="ms"
                series=series
            />
            <div class="readouts">
                <Readout testid="cache-on-total-ms" label="Total with the cache" value=total(lab.cache_on) format=ms/>
                <Readout testid="cache-off-total-ms" label="Total without it" value=total(lab.cache_off) format=ms/>
                <Readout testid="cache-last-ratio" label="Last token: without ÷ with" value=Signal::derive(move || last_ratio(&lab.cache_on.get(), &lab.cache_off.get())) format=ratio/>
            </div>
            {move || same_text(&lab.cache_on.get(), &lab.cache_off.get())}
            <details>
                <summary>"The numbers, position by position"</summary>
                {move || table(&lab.cache_on.get(), &lab.cache_off.get())}
            </details>
        </section>
    }
}

/// Whether two finished runs started from the same prompt, so that they compare.
pub fn comparable(on: &Run, off: &Run) -> bool {
    on.complete() && off.complete() && on.prompt == off.prompt
}

/// Off over on at the last position both runs reached.
fn last_ratio(on: &Run, off: &Run) -> Option<f64> {
    let rows = rows(on, off);
    let &(_, on_ms, off_ms) = rows.last()?;
    (on_ms > 0.0).then(|| off_ms / on_ms)
}

/// (position, ms with the cache, ms without) where both runs have a decode step.
pub fn rows(on: &Run, off: &Run) -> Vec<(usize, f64, f64)> {
    if !comparable(on, off) {
        return Vec::new();
    }
    on.decode_costs()
        .iter()
        .filter_map(|a| {
            off.decode_costs()
                .iter()
                .find(|b| b.position == a.position)
                .map(|b| (a.position, a.ms, b.ms))
        })
        .collect()
}

fn same_text(on: &Run, off: &Run) -> impl IntoView {
    let (state, message) = if !comparable(on, off) {
        (
            "pending",
            "Run the same prompt with the cache on and off to compare the texts.".to_string(),
        )
    } else if on.text == off.text {
        (
            "pass",
            format!(
                "Identical texts: with and without the cache, greedy decoding wrote the same {} tokens.",
                on.costs.len()
            ),
        )
    } else {
        (
            "fail",
            "The texts differ: with greedy decoding they should not. Please report this."
                .to_string(),
        )
    };
    view! { <p class=format!("check {state}") data-testid="cache-identical" data-state=state role="status">{message}</p> }
}

fn table(on: &Run, off: &Run) -> impl IntoView {
    let rows = rows(on, off);
    if rows.is_empty() {
        return view! { <p class="hint">"Nothing to compare yet."</p> }.into_any();
    }
    view! {
        <table class="numbers">
            <thead><tr><th scope="col">"Position"</th><th scope="col">"With the cache"</th><th scope="col">"Without"</th><th scope="col">"Without ÷ with"</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|(p, a, b)| view! {
                    <tr><td>{p}</td><td>{ms(a)}</td><td>{ms(b)}</td><td>{ratio(b / a)}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

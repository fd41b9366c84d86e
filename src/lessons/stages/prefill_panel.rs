//! Prefill and decode, measured: one greedy generation from an empty cache, its timeline,
//! the cost of each generated token, and the two speeds.

use super::actions::Actions;
use super::lab::Lab;
use crate::ui::chart::line::{LineChart, Series};
use super::number::{ms, tps};
use super::prompt_field::{stage_prompt, PromptField};
use super::readout::Readout;
use super::run::{measure, Run};
use super::saved_measurements::Measurement;
use super::threads_panel::ThreadsPanel;
use super::timeline::Timeline;
use crate::ui::field::count_input;
use crate::protocol::CacheMode;
use leptos::prelude::*;

const PANEL: &str = "timeline";
/// The example prompt and whether it is a chat message.
const EXAMPLE: (&str, bool) = (
    "Explain in three sentences why the sky is blue, and why sunsets are red. Use simple words, as if to a child.",
    true,
);

#[component]
pub fn PrefillPanel(lab: Lab) -> impl IntoView {
    let text = RwSignal::new(EXAMPLE.0.to_string());
    let chat = RwSignal::new(EXAMPLE.1);
    let max_tokens = RwSignal::new(32usize);
    let run = lab.timeline;
    let start = move || {
        let prompt = stage_prompt(lab.engine, text.get_untracked(), chat.get_untracked());
        measure(
            lab.engine,
            PANEL,
            prompt,
            CacheMode::Cold,
            max_tokens.get_untracked(),
            run,
            move |r| {
                if r.complete() {
                    lab.save(Measurement::Timeline { run: r.clone() });
                }
            },
        );
    };
    let per_token = Signal::derive(move || {
        let points = run.with(|r| {
            r.decode_costs()
                .iter()
                .enumerate()
                .map(|(i, c)| ((i + 2) as f64, c.ms))
                .collect()
        });
        vec![Series {
            name: "each token after the first",
            class: "series-a",
            points,
        }]
    });
    view! {
        <section class="lab-panel" aria-labelledby="prefill-lab">
            <h3 id="prefill-lab">"Measure it: prefill and decode"</h3>
            <PromptField id=PANEL text=text chat=chat example=EXAMPLE/>
            <div class="control-row">
                {count_input("timeline-max-tokens", "Tokens to generate", max_tokens, 2, 256)}
            </div>
            <Actions lab=lab panel=PANEL label="Run" on_run=start/>
            <p class="hint">"Greedy decoding, from an empty KV cache, so that every run pays for its whole prompt."</p>
            {move || run.with(|r| r.error.clone()).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="readouts">
                <Readout testid="ttft-ms" label="Time to first token" value=Signal::derive(move || run.with(Run::ttft_ms)) format=ms/>
                <Readout testid="prefill-tps" label="Prefill speed" value=Signal::derive(move || run.with(Run::prefill_tps)) format=tps/>
                <Readout testid="decode-tps" label="Decode speed" value=Signal::derive(move || run.with(Run::decode_tps)) format=tps/>
            </div>
            <Timeline run=run/>
            <LineChart
                testid="token-latency-chart"
                caption="Time per generated token (the first, which includes the prefill, is in the timeline)."
                x_label="generated token"
                y_label="ms"
                series=per_token
            />
            {move || speeds(&run.get())}
            <ThreadsPanel lab=lab text=text chat=chat max_tokens=max_tokens/>
            <div class="output" data-testid="timeline-output" aria-live="polite">{move || run.with(|r| r.text.clone())}</div>
        </section>
    }
}

/// The two speeds in one sentence, once both are measured.
fn speeds(run: &Run) -> Option<impl IntoView> {
    let (prefill, decode) = (run.prefill_tps()?, run.decode_tps()?);
    Some(view! {
        <p data-testid="speed-ratio">
            {format!(
                "The prompt went through at {} and the answer came at {}: prefill processed each token {:.1} times faster.",
                tps(prefill),
                tps(decode),
                prefill / decode
            )}
        </p>
    })
}

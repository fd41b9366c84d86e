//! Time to first token, and the time of a decode step after it, against prompt length:
//! prompts of exactly 16 to 1024 tokens (the lesson's own text, by token id), each from an
//! empty cache, each followed by a few decode steps. Prefill's cost grows with the prompt; a
//! decode step's grows only with what its attention reads from the cache.

use super::actions::Actions;
use super::lab::Lab;
use crate::ui::chart::line::{LineChart, Series};
use super::number::{ms, tps};
use super::run::{measure, Run};
use super::saved_measurements::{Measurement, Point};
use crate::protocol::{CacheMode, StagePrompt};
use leptos::prelude::*;

const PANEL: &str = "sweep";
const LENGTHS: [usize; 4] = [16, 64, 256, 1024];
/// Decode steps timed after each prefill (fewer if the model ends its answer first).
const DECODE_STEPS: usize = 8;

#[component]
pub fn SweepPanel(lab: Lab) -> impl IntoView {
    let points = lab.sweep;
    let current = RwSignal::new(Run::default());
    let start = move || {
        points.set(Vec::new());
        sweep_from(lab, 0, current, points);
    };
    let series = Signal::derive(move || {
        let pts = points.with(|p| p.iter().map(|p| (p.tokens as f64, p.ttft_ms)).collect());
        vec![Series {
            name: "time to first token",
            class: "series-a",
            points: pts,
        }]
    });
    // Apart, on its own scale: beside seconds of prefill, milliseconds would lie flat.
    let decode_series = Signal::derive(move || {
        let pts = points.with(|p| {
            p.iter()
                .filter_map(|p| Some((p.tokens as f64, p.decode_ms?)))
                .collect()
        });
        vec![Series {
            name: "decode step",
            class: "series-b",
            points: pts,
        }]
    });
    view! {
        <section class="lab-panel" aria-labelledby="sweep-lab">
            <h3 id="sweep-lab">"Measure it: time to first token against prompt length"</h3>
            <p>
                {format!("Prompts of exactly 16, 64, 256 and 1024 tokens (this lesson's own text, cut by token), each from an empty cache, then {DECODE_STEPS} decode steps after each. The longest takes a while; Stop ends the sweep.")}
            </p>
            <Actions lab=lab panel=PANEL label="Run the sweep" on_run=start/>
            {move || current.with(|r| r.error.clone()).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <LineChart testid="sweep-chart" caption="Time to first token against prompt length." x_label="prompt tokens" y_label="ms" series=series/>
            <LineChart testid="sweep-decode-chart" caption="Mean time of a decode step after that prompt, against prompt length." x_label="prompt tokens" y_label="ms" series=decode_series/>
            <table class="numbers" data-testid="sweep-table">
                <thead><tr><th scope="col">"Prompt tokens"</th><th scope="col">"Time to first token"</th><th scope="col">"Prefill speed"</th><th scope="col">"Decode step (mean)"</th></tr></thead>
                <tbody>
                    {move || points.get().into_iter().map(|p| view! {
                        <tr>
                            <td>{p.tokens}</td>
                            <td>{ms(p.ttft_ms)}</td>
                            <td>{tps(p.tokens as f64 * 1000.0 / p.ttft_ms)}</td>
                            <td>{p.decode_ms.map_or_else(|| "none: the answer ended at once".to_string(), ms)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

/// Measures `LENGTHS[i]`, then the next length, until the last or until one does not finish.
fn sweep_from(lab: Lab, i: usize, current: RwSignal<Run>, points: RwSignal<Vec<Point>>) {
    let Some(&tokens) = LENGTHS.get(i) else {
        if let Some(points) = points.try_get_untracked() {
            lab.save(Measurement::Sweep { points });
        }
        return;
    };
    measure(
        lab.engine,
        PANEL,
        StagePrompt::Filler(tokens),
        CacheMode::Cold,
        1 + DECODE_STEPS,
        current,
        move |run| {
            if let (true, Some(ttft_ms)) = (run.complete(), run.ttft_ms()) {
                let steps = run.decode_costs().len();
                let decode_ms = (steps > 0).then(|| run.decode_ms() / steps as f64);
                points.try_update(|p| p.push(Point { tokens, ttft_ms, decode_ms }));
                sweep_from(lab, i + 1, current, points);
            }
        },
    );
}

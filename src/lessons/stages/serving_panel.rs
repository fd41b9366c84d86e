//! A server, simulated on this device's costs: the page times one pass over 1 to 32 tokens
//! with the real model and reads the real cache's bytes per position, then
//! `engine::serving_sim` plays a server's day on them, on the page, at every control change.
//! The measured costs are saved (`saved_measurements.rs`), so the simulator needs no second
//! measurement after a glossary link and Back.

use super::actions::Actions;
use super::lab::Lab;
use super::serving_inputs::{AssumptionControls, Assumptions};
use super::saved_measurements::Measurement;
use super::serving_results::ServingResults;
use crate::protocol::{Request, Response};
use engine::serving_sim::MeasuredCosts;
use leptos::prelude::*;

const PANEL: &str = "serving";
/// The pass sizes timed: a batch of up to 32 requests decodes 1 to 32 tokens per pass.
const SIZES: [usize; 6] = [1, 2, 4, 8, 16, 32];
const ROUNDS: usize = 3;

/// The measurement under way; once every size is timed, its costs go to `Lab::serving`.
#[derive(Debug, Clone, Default, PartialEq)]
struct Measuring {
    passes: Vec<(usize, f64)>,
    error: Option<String>,
}

#[component]
pub fn ServingPanel(lab: Lab) -> impl IntoView {
    let measuring = RwSignal::new(Measuring::default());
    let assumptions = Assumptions::new();
    let measure = move || {
        if lab.engine.busy_untracked() {
            return;
        }
        measuring.set(Measuring::default());
        lab.serving.set(None);
        let request = Request::StagePassCost { sizes: SIZES.to_vec(), rounds: ROUNDS };
        lab.engine.send(PANEL, request, move |response| {
            if let Response::StagePassesDone { cancelled: false, kv_bytes_per_position } = response {
                // Nothing to show or save once the learner has left the page.
                let Some(pass_ms) = measuring.try_with_untracked(|m| m.passes.clone()) else {
                    return;
                };
                let costs = MeasuredCosts { pass_ms, kv_bytes_per_position };
                if lab.serving.try_set(Some(costs.clone())).is_none() {
                    lab.save(Measurement::Serving { costs });
                }
                return;
            }
            measuring.try_update(|m| match response {
                Response::StagePass { tokens, ms, .. } => m.passes.push((tokens, ms)),
                // Taken above.
                Response::StagePassesDone { cancelled: false, .. } => {}
                Response::StagePassesDone { cancelled: true, .. } => {
                    m.error = Some("Stopped before every pass size was timed: measure again to simulate.".into())
                }
                Response::Error { message } => m.error = Some(message),
                other => m.error = Some(format!("Unexpected answer from the engine: {other:?}")),
            });
        });
    };
    let costs = Signal::derive(move || lab.serving.get());
    // Timing the six sizes takes seconds: say how far it is (Stop, above, cancels it).
    let progress = move || {
        lab.engine.running_in(PANEL).then(|| {
            let (done, total) = (measuring.with(|m| m.passes.len()), SIZES.len());
            view! {
                <div class="lab-progress" role="status" data-testid="serving-progress" data-done=done data-total=total>
                    <label for="serving-progress-bar">{format!("{done} of {total} pass sizes timed")}</label>
                    <progress id="serving-progress-bar" max=total as f64 value=done as f64></progress>
                </div>
            }
        })
    };
    view! {
        <section class="lab-panel" aria-labelledby="serving-lab" data-testid="serving-sim">
            <h3 id="serving-lab">"Simulate it: a server on this device's costs"</h3>
            <p>{format!("Measures one pass over 1, 2, 4, 8, 16 and 32 tokens on this device (the median of {ROUNDS} each) and the bytes one position takes in the cache; every other input is an assumption you set. The results are simulated, not measured on a server.")}</p>
            <Actions lab=lab panel=PANEL label="Measure this device" on_run=measure/>
            {progress}
            {move || measuring.with(|m| m.error.clone()).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <AssumptionControls a=assumptions/>
            <ServingResults costs=costs a=assumptions/>
        </section>
    }
}

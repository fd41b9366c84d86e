//! A server, simulated on this device's costs: the page times one pass over 1 to 32 tokens
//! with the real model, one far into the context (attention's cost per position), and reads
//! the real cache's bytes per position, then
//! `engine::serving_sim` plays a server's day on them, on the page, at every control change.
//! The measured costs are saved (`saved_measurements.rs`), so the simulator needs no second
//! measurement after a glossary link and Back.

use super::actions::Actions;
use super::lab::Lab;
use super::serving_findings::ServingFindings;
use super::serving_inputs::{AssumptionControls, Assumptions};
use super::saved_measurements::Measurement;
use super::serving_results::ServingResults;
use crate::protocol::{Request, Response};
use engine::serving_sim::{MeasuredCosts, FAR_POSITION, NEAR_POSITION, PASS_SIZES, SLOPE_TOKENS};
use leptos::prelude::*;

const PANEL: &str = "serving";
const ROUNDS: usize = 3;
/// Every size at position 128, then the slope's pass at position 1,024.
const STEPS: usize = PASS_SIZES.len() + 1;

/// The measurement under way; once every pass is timed, its costs go to `Lab::serving`.
#[derive(Debug, Clone, Default, PartialEq)]
struct Measuring {
    passes: Vec<(usize, f64)>,
    far: Option<f64>,
    error: Option<String>,
}

impl Measuring {
    fn take(&mut self, response: Response) {
        match response {
            Response::StagePass { tokens, ms, position } if position == NEAR_POSITION => self.passes.push((tokens, ms)),
            Response::StagePass { ms, .. } => self.far = Some(ms),
            // Taken by the caller.
            Response::StagePassesDone { cancelled: false, .. } => {}
            Response::StagePassesDone { cancelled: true, .. } => {
                self.error = Some("Stopped before every pass was timed: measure again to simulate.".into())
            }
            Response::Error { message } => self.error = Some(message),
            other => self.error = Some(format!("Unexpected answer from the engine: {other:?}")),
        }
    }
}

/// The second step: the slope's pass far into the context, then the costs are kept and saved.
fn measure_far(lab: Lab, measuring: RwSignal<Measuring>, kv_bytes_per_position: f64) {
    let request = Request::StagePassAt { tokens: SLOPE_TOKENS, position: FAR_POSITION, rounds: ROUNDS };
    lab.engine.send(PANEL, request, move |response| {
        if let Response::StagePassesDone { cancelled: false, .. } = response {
            // Nothing to show or save once the learner has left the page.
            let Some((pass_ms, far_pass_ms)) = measuring.try_with_untracked(|m| (m.passes.clone(), m.far)) else {
                return;
            };
            let costs = MeasuredCosts { pass_ms, kv_bytes_per_position, far_pass_ms };
            if lab.serving.try_set(Some(costs.clone())).is_none() {
                lab.save(Measurement::Serving { costs });
            }
            return;
        }
        measuring.try_update(|m| m.take(response));
    });
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
        let request = Request::StagePassCost { sizes: PASS_SIZES.to_vec(), rounds: ROUNDS };
        lab.engine.send(PANEL, request, move |response| {
            if let Response::StagePassesDone { cancelled: false, kv_bytes_per_position } = response {
                measure_far(lab, measuring, kv_bytes_per_position);
                return;
            }
            measuring.try_update(|m| m.take(response));
        });
    };
    let costs = Signal::derive(move || lab.serving.get());
    // Timing the seven passes takes seconds: say how far it is (Stop, above, cancels it).
    let progress = move || {
        lab.engine.running_in(PANEL).then(|| {
            let (done, total) = (measuring.with(|m| m.passes.len() + usize::from(m.far.is_some())), STEPS);
            view! {
                <div class="lab-progress" role="status" data-testid="serving-progress" data-done=done data-total=total>
                    <label for="serving-progress-bar">{format!("{done} of {total} passes timed")}</label>
                    <progress id="serving-progress-bar" max=total as f64 value=done as f64></progress>
                </div>
            }
        })
    };
    view! {
        <section class="lab-panel" aria-labelledby="serving-lab" data-testid="serving-sim">
            <h3 id="serving-lab">"Simulate it: a server on this device's costs"</h3>
            <p>{format!("Measures one pass over 1, 2, 4, 8, 16 and 32 tokens with {NEAR_POSITION} tokens cached, the {SLOPE_TOKENS}-token pass again with {FAR_POSITION} cached (the median of {ROUNDS} each), and the bytes one position takes in the cache; every other input is an assumption you set. The results are simulated, not measured on a server.")}</p>
            <Actions lab=lab panel=PANEL label="Measure this device" on_run=measure/>
            {progress}
            {move || measuring.with(|m| m.error.clone()).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <AssumptionControls a=assumptions/>
            <ServingFindings costs=costs a=assumptions/>
            <ServingResults costs=costs a=assumptions/>
        </section>
    }
}

//! The cost of one forward pass over 1, 2, 4, 8 and 16 tokens at the same position, on this
//! device: time per pass and time per token. What grows and what stays flat is read from
//! the measurement, not assumed. A measurement that ran to its end is saved, and shown again
//! when the lesson opens; a stopped one gives no verdict and is not saved.

use super::actions::Actions;
use super::lab::Lab;
use crate::ui::chart::line::{LineChart, Series};
use super::number::{ms, ratio};
use super::saved_measurements::Measurement;
use crate::protocol::{Request, Response};
use leptos::prelude::*;

const SIZES: [usize; 5] = [1, 2, 4, 8, 16];
const ROUNDS: usize = 5;
/// The panel's name, and its lab's in the saved measurements.
const LAB: &str = "pass-cost";

#[derive(Debug, Clone, Default, PartialEq)]
struct Passes {
    /// (tokens, ms per pass), in the order measured.
    points: Vec<(usize, f64)>,
    position: usize,
    /// Every size was timed (a stopped measurement is not done).
    done: bool,
    stopped: bool,
    error: Option<String>,
}

#[component]
pub fn PassCostPanel(lab: Lab) -> impl IntoView {
    let passes = RwSignal::new(Passes::default());
    Effect::new(move |_| {
        if let Some(Measurement::PassCost { position, passes: points }) = lab.take_restored(LAB) {
            if passes.with_untracked(|p| p.points.is_empty()) {
                passes.set(Passes { points, position, done: true, ..Passes::default() });
            }
        }
    });
    let run = move || {
        if lab.engine.busy_untracked() {
            return;
        }
        passes.set(Passes::default());
        let request = Request::StagePassCost {
            sizes: SIZES.to_vec(),
            rounds: ROUNDS,
        };
        lab.engine.send(LAB, request, move |response| {
            let finished = matches!(response, Response::StagePassesDone { cancelled: false, .. });
            passes.try_update(|p| match response {
                Response::StagePass {
                    tokens,
                    position,
                    ms,
                } => {
                    p.points.push((tokens, ms));
                    p.position = position;
                }
                Response::StagePassesDone { cancelled, .. } => (p.done, p.stopped) = (!cancelled, cancelled),
                Response::Error { message } => p.error = Some(message),
                other => p.error = Some(format!("Unexpected answer from the engine: {other:?}")),
            });
            let done = passes.try_with_untracked(|p| (p.done && p.error.is_none()).then(|| (p.position, p.points.clone())));
            if let (true, Some(Some((position, points)))) = (finished, done) {
                lab.save(Measurement::PassCost { position, passes: points });
            }
        });
    };
    let series = Signal::derive(move || {
        passes.with(|p| {
            vec![
                Series {
                    name: "ms per pass",
                    class: "series-a",
                    points: p.points.iter().map(|&(n, t)| (n as f64, t)).collect(),
                },
                Series {
                    name: "ms per token",
                    class: "series-b",
                    points: p
                        .points
                        .iter()
                        .map(|&(n, t)| (n as f64, t / n as f64))
                        .collect(),
                },
            ]
        })
    });
    let verdict = move || {
        passes.with(|p| {
            if p.stopped {
                return Some(format!("Stopped after {} of {} sizes: no reading from a measurement cut short.", p.points.len(), SIZES.len()));
            }
            if !p.done {
                return None;
            }
            let one = p.points.iter().find(|&&(n, _)| n == 1)?.1;
            let &(n, many) = p.points.iter().filter(|&&(n, _)| n > 1).max_by_key(|&&(n, _)| n)?;
            let growth = many / one;
            let reading = if growth < n as f64 / 2.0 {
                "Here extra tokens came cheap: the pass was limited more by reading the weights than by arithmetic, so each weight read served several tokens."
            } else {
                "Here the pass grew with its tokens: this device was limited by arithmetic, so batching saved little per token."
            };
            Some(format!(
                "At position {}, a pass over {n} tokens took {} against {} for one token: {} the time for {n}× the tokens, {} per token. {reading}",
                p.position,
                ms(many),
                ms(one),
                ratio(growth),
                ms(many / n as f64)
            ))
        })
    };
    view! {
        <section class="lab-panel" aria-labelledby="pass-cost-lab">
            <h3 id="pass-cost-lab">"Measure it: the cost of one forward pass"</h3>
            <p>{format!("Times one pass over 1, 2, 4, 8 and 16 tokens with the same cached context before them (the median of {ROUNDS} passes each).")}</p>
            <Actions lab=lab panel=LAB label="Time the passes" on_run=run/>
            {move || passes.with(|p| p.error.clone()).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <LineChart testid="pass-cost-chart" caption="One forward pass: time per pass and per token, by tokens in the pass" x_label="tokens in the pass" y_label="milliseconds" series=series/>
            <p data-testid="pass-cost-verdict" data-state=move || passes.with(|p| if p.done { "done" } else if p.stopped { "stopped" } else { "pending" })>{verdict}</p>
        </section>
    }
}

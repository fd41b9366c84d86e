//! The cost of one forward pass over 1, 2, 4, 8 and 16 tokens at the same position, on this
//! device: time per pass and time per token. What grows and what stays flat is read from
//! the measurement, not assumed.

use super::actions::Actions;
use super::lab::Lab;
use crate::ui::chart::line::{LineChart, Series};
use super::number::{ms, ratio};
use crate::protocol::{Request, Response};
use leptos::prelude::*;

const SIZES: [usize; 5] = [1, 2, 4, 8, 16];
const ROUNDS: usize = 5;

#[derive(Debug, Clone, Default, PartialEq)]
struct Passes {
    /// (tokens, ms per pass), in the order measured.
    points: Vec<(usize, f64)>,
    position: usize,
    done: bool,
    error: Option<String>,
}

#[component]
pub fn PassCostPanel(lab: Lab) -> impl IntoView {
    let passes = RwSignal::new(Passes::default());
    let run = move || {
        if lab.engine.busy_untracked() {
            return;
        }
        passes.set(Passes::default());
        let request = Request::StagePassCost {
            sizes: SIZES.to_vec(),
            rounds: ROUNDS,
        };
        lab.engine.send("pass-cost", request, move |response| {
            passes.try_update(|p| match response {
                Response::StagePass {
                    tokens,
                    position,
                    ms,
                } => {
                    p.points.push((tokens, ms));
                    p.position = position;
                }
                Response::StagePassesDone { .. } => p.done = true,
                Response::Error { message } => p.error = Some(message),
                other => p.error = Some(format!("Unexpected answer from the engine: {other:?}")),
            });
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
            <Actions lab=lab panel="pass-cost" label="Time the passes" on_run=run/>
            {move || passes.with(|p| p.error.clone()).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <LineChart testid="pass-cost-chart" caption="One forward pass: time per pass and per token, by tokens in the pass" x_label="tokens in the pass" y_label="milliseconds" series=series/>
            <p data-testid="pass-cost-verdict">{verdict}</p>
        </section>
    }
}

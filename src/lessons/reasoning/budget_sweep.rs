//! The budget sweep: chain of thought on the same tasks at every budget of `SWEEP_BUDGETS`,
//! in one run. Accuracy with its 95% interval against the budget (a chart, the budgets
//! evenly spaced since each doubles the last), and per budget the tokens per correct answer
//! and the share of traces the budget cut: "allow a larger budget", measured.

use super::chart::{interval_point, percent_grid, BOTTOM, LEFT, RIGHT, TOP, WIDTH};
use super::paired::{compare, sentence};
use super::run::{score_of, Run};
use crate::protocol::SWEEP_BUDGETS;
use engine::reasoning::strategy::{summarize, ItemResult, Strategy, Summary};
use leptos::prelude::*;

const HEIGHT: f64 = 260.0;

fn y_of(accuracy: f64) -> f64 {
    HEIGHT - BOTTOM - accuracy * (HEIGHT - BOTTOM - TOP)
}

/// The `i`-th of `n` budgets along the axis, with room at both ends.
fn x_of(i: usize, n: usize) -> f64 {
    LEFT + (i as f64 + 0.5) / n.max(1) as f64 * (WIDTH - LEFT - RIGHT)
}

#[component]
pub fn BudgetSweep(run: Run) -> impl IntoView {
    let items = run.complete_sweep();
    if items.is_empty() {
        return None;
    }
    let at = |budget: usize| -> Vec<ItemResult> {
        items.iter().filter(|i| i.budget == budget).map(|i| i.result.clone()).collect()
    };
    let rows: Vec<(usize, Summary)> = SWEEP_BUDGETS.iter().map(|&b| (b, summarize(Strategy::Cot, &at(b)))).collect();
    let n = rows[0].1.n;
    let points = rows
        .iter()
        .enumerate()
        .map(|(i, (budget, s))| {
            let x = x_of(i, rows.len());
            view! {
                <g class="series-cot">
                    <title>{format!("budget {budget}: {}/{} correct", s.correct, s.n)}</title>
                    {interval_point(x, y_of(s.accuracy), y_of(s.ci_low), y_of(s.ci_high))}
                    <text class="tick" x=x y=HEIGHT - BOTTOM + 18.0 text-anchor="middle">{budget.to_string()}</text>
                </g>
            }
        })
        .collect_view();
    let line = rows
        .iter()
        .enumerate()
        .map(|(i, (_, s))| format!("{:.1},{:.1}", x_of(i, rows.len()), y_of(s.accuracy)))
        .collect::<Vec<_>>()
        .join(" ");
    let table = rows
        .iter()
        .map(|(budget, s)| {
            let per_correct = s.tokens_per_correct.map_or("no correct answer".to_string(), |t| format!("{t:.0}"));
            view! {
                <tr
                    data-budget=*budget
                    data-correct=s.correct
                    data-n=s.n
                    data-tokens=s.total_tokens
                    data-cut=s.truncated
                    data-samples=s.samples
                >
                    <th scope="row">{budget.to_string()}</th>
                    <td>{score_of(s).text()}</td>
                    <td>{per_correct}</td>
                    <td>{format!("{} of {} ({:.0}%)", s.truncated, s.samples, 100.0 * s.truncated as f64 / s.samples.max(1) as f64)}</td>
                </tr>
            }
        })
        .collect_view();
    let (first, last) = (SWEEP_BUDGETS[0], SWEEP_BUDGETS[SWEEP_BUDGETS.len() - 1]);
    let paired = sentence(&format!("Budget {last}"), &format!("budget {first}"), &compare(&at(last), &at(first)));
    let forced = if run.experiment.forced_answer {
        "When a budget ran out, the runner wrote \"Answer:\" and the model finished the line."
    } else {
        "No answer was forced: a trace the budget cut has no answer, and counts as wrong."
    };
    let description = rows
        .iter()
        .map(|(b, s)| format!("budget {b}: {:.0}% correct", s.accuracy * 100.0))
        .collect::<Vec<_>>()
        .join("; ");
    Some(view! {
        <section class="sweep" data-testid="budget-sweep" data-n=n aria-labelledby="l3-sweep">
            <h4 id="l3-sweep">{format!("The budget sweep: chain of thought on the same {n} tasks at {} budgets", rows.len())}</h4>
            <figure class="chart">
                <figcaption>"Accuracy against the reasoning budget (bars: 95% intervals)"</figcaption>
                <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=format!("Accuracy against budget. {description}.")>
                    {percent_grid(y_of)}
                    <line class="axis" x1=LEFT y1=TOP x2=LEFT y2=HEIGHT - BOTTOM></line>
                    <line class="axis" x1=LEFT y1=HEIGHT - BOTTOM x2=WIDTH - RIGHT y2=HEIGHT - BOTTOM></line>
                    <polyline class="sweep-line series-cot" points=line></polyline>
                    {points}
                    <text class="axis-title" x=(LEFT + WIDTH - RIGHT) / 2.0 y=HEIGHT - 8.0 text-anchor="middle">"reasoning budget (tokens)"</text>
                </svg>
            </figure>
            <div class="table-scroll"><table class="results">
                <thead><tr>
                    <th scope="col">"budget"</th>
                    <th scope="col">"correct"</th>
                    <th scope="col">"tokens per correct answer"</th>
                    <th scope="col">"cut by the budget"</th>
                </tr></thead>
                <tbody>{table}</tbody>
            </table></div>
            <p data-testid="sweep-summary">{format!("{forced} {paired}")}</p>
        </section>
    })
}

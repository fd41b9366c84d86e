//! Accuracy per category and strategy: where a strategy helps and where it does not.

use super::names;
use super::run::Run;
use leptos::prelude::*;

#[component]
pub fn CategoryTable(run: Run) -> impl IntoView {
    let strategies = run.strategies().to_vec();
    let samples = run.experiment.samples;
    let head = strategies
        .iter()
        .map(|&s| view! { <th scope="col">{names::name_with_samples(s, samples)}</th> })
        .collect_view();
    let rows = run
        .categories()
        .into_iter()
        .map(|category| {
            let cells = strategies
                .iter()
                .map(|&s| {
                    let score = run.score_in(s, &category);
                    view! {
                        <td data-strategy=names::id(s) data-correct=score.correct.to_string() data-n=score.n.to_string()>
                            {format!("{}/{}", score.correct, score.n)}
                        </td>
                    }
                })
                .collect_view();
            let label = category.clone();
            view! {
                <tr data-category=category>
                    <th scope="row">{label}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="by-category" data-testid="category-table">
                <caption>"Correct answers per category"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Category"</th>
                        {head}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

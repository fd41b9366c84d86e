//! Accuracy per category and strategy, beside chance: where a strategy helps and where it
//! does not, and where a score is no better than guessing.

use super::names;
use super::run::Run;
use engine::reasoning::tasks::chance_baseline;
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
            let tasks: Vec<_> = run.tasks[..run.complete_tasks()].iter().filter(|t| t.category == category).cloned().collect();
            let chance = chance_baseline(&tasks);
            view! {
                <tr data-category=category data-chance=chance.map(|c| c.to_string())>
                    <th scope="row">{label}</th>
                    {cells}
                    <td class="num">{chance.map_or("–".to_string(), |c| format!("{:.0}%", c * 100.0))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="by-category" data-testid="category-table">
                <caption>"Correct answers per category, beside the accuracy of guessing among the answers a question offers (– where the answer is open)"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Category"</th>
                        {head}
                        <th scope="col">"Chance"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

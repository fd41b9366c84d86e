//! Accuracy against tokens spent, one point per strategy, with its 95% interval as a
//! vertical bar: what each strategy's compute bought in this run.

use super::chart::{interval_point, percent_grid, token_ticks, x_of, Legend, TokenAxis, BOTTOM, LEFT, TOP, WIDTH};
use super::names;
use super::run::Run;
use leptos::prelude::*;

const HEIGHT: f64 = 300.0;

fn y_of(accuracy: f64) -> f64 {
    HEIGHT - BOTTOM - accuracy * (HEIGHT - BOTTOM - TOP)
}

#[component]
pub fn AccuracyChart(run: Run) -> impl IntoView {
    let summaries = run.summaries();
    let samples = run.experiment.samples;
    let (end, ticks) =
        token_ticks(summaries.iter().map(|s| s.total_tokens).max().unwrap_or(0) as f64);
    let points = summaries
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // Strategies with the very same figures (chain of thought and hidden reasoning
            // often have them) are drawn side by side rather than one hiding the other.
            let twins = summaries[..i].iter().filter(|t| (t.total_tokens, t.correct) == (s.total_tokens, s.correct)).count();
            let x = x_of(s.total_tokens as f64, end) + 10.0 * twins as f64;
            let label = names::name_with_samples(s.strategy, samples);
            view! {
                <g class=format!("series-{}", names::id(s.strategy)) data-strategy=names::id(s.strategy)>
                    <title>{format!("{label}: {}/{} correct, {} tokens", s.correct, s.n, s.total_tokens)}</title>
                    {interval_point(x, y_of(s.accuracy), y_of(s.ci_low), y_of(s.ci_high))}
                </g>
            }
        })
        .collect_view();
    let description = summaries
        .iter()
        .map(|s| {
            format!(
                "{}: {:.0}% correct for {} tokens",
                names::name_with_samples(s.strategy, samples),
                s.accuracy * 100.0,
                s.total_tokens
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    view! {
        <figure class="chart" data-testid="accuracy-chart">
            <figcaption>"Accuracy against tokens spent (bars: 95% intervals)"</figcaption>
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=format!("Accuracy against tokens. {description}.")>
                {percent_grid(y_of)}
                <TokenAxis end=end ticks=ticks height=HEIGHT title="tokens generated (all tasks)"/>
                <line class="axis" x1=LEFT y1=TOP x2=LEFT y2=HEIGHT - BOTTOM></line>
                {points}
            </svg>
            <Legend strategies=run.strategies().to_vec() samples=samples/>
        </figure>
    }
}

//! Response length against correctness, one mark per task and strategy: "length is not
//! quality", shown with this run's own answers.

use super::chart::{token_ticks, x_of, Legend, TokenAxis, BOTTOM, LEFT, RIGHT, TOP, WIDTH};
use super::names;
use super::run::Run;
use engine::reasoning::strategy::ItemResult;
use leptos::prelude::*;

const HEIGHT: f64 = 220.0;
/// The two lanes' centres, correct above and wrong below, and the line between them.
const LANES: [(bool, &str, f64); 2] = [(true, "correct", 54.0), (false, "wrong", 130.0)];
const BETWEEN: f64 = 92.0;

#[component]
pub fn LengthChart(run: Run) -> impl IntoView {
    let results = run.complete_results().to_vec();
    let strategies = run.strategies().to_vec();
    let samples = run.experiment.samples;
    let (end, ticks) = token_ticks(results.iter().map(|r| r.total_tokens).max().unwrap_or(0) as f64);
    // Each strategy has its own row inside a lane, so that marks of equal length stay apart.
    let row = |r: &ItemResult| {
        let i = strategies.iter().position(|&s| s == r.strategy).unwrap_or(0) as f64;
        let spread = 40.0 / strategies.len() as f64;
        (i - (strategies.len() as f64 - 1.0) / 2.0) * spread
    };
    let lanes = LANES
        .map(|(_, name, y)| view! { <text class="tick" x=LEFT - 8.0 y=y + 4.0 text-anchor="end">{name}</text> })
        .collect_view();
    let marks = results
        .iter()
        .map(|r| {
            let lane = LANES.iter().find(|l| l.0 == r.correct).map_or(0.0, |l| l.2);
            view! {
                <circle
                    class=format!("mark series-{}", names::id(r.strategy))
                    cx=x_of(r.total_tokens as f64, end)
                    cy=lane + row(r)
                    r="5"
                >
                    <title>{format!("{} ({}): {} tokens, {}", r.task_id, names::name(r.strategy), r.total_tokens, if r.correct { "correct" } else { "wrong" })}</title>
                </circle>
            }
        })
        .collect_view();
    let summary = length_summary(&results);
    view! {
        <figure class="chart" data-testid="length-chart">
            <figcaption>"Tokens generated for each task, by whether its answer was correct"</figcaption>
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=format!("Length against correctness. {summary}")>
                {lanes}
                <line class="grid" x1=LEFT y1=BETWEEN x2=WIDTH - RIGHT y2=BETWEEN></line>
                <line class="axis" x1=LEFT y1=TOP x2=LEFT y2=HEIGHT - BOTTOM></line>
                <TokenAxis end=end ticks=ticks height=HEIGHT title="tokens generated for the task"/>
                {marks}
            </svg>
            <Legend strategies=strategies.clone() samples=samples/>
            <p data-testid="length-summary">{summary}</p>
        </figure>
    }
}

/// The mean length of correct and of wrong answers in this run.
fn length_summary(results: &[ItemResult]) -> String {
    let mean = |correct: bool| {
        let lengths: Vec<usize> = results.iter().filter(|r| r.correct == correct).map(|r| r.total_tokens).collect();
        match lengths.len() {
            0 => "none".to_string(),
            n => format!("{:.1} tokens on average ({})", lengths.iter().sum::<usize>() as f64 / n as f64, if n == 1 { "1 answer".into() } else { format!("{n} answers") }),
        }
    };
    format!("In this run, correct answers took {}; wrong answers took {}.", mean(true), mean(false))
}

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
    let (end, ticks) =
        token_ticks(results.iter().map(|r| r.total_tokens).max().unwrap_or(0) as f64);
    // Each strategy has its own row inside a lane, so that marks of equal length stay apart.
    let row = |r: &ItemResult| {
        let i = strategies
            .iter()
            .position(|&s| s == r.strategy)
            .unwrap_or(0) as f64;
        let spread = 40.0 / strategies.len() as f64;
        (i - (strategies.len() as f64 - 1.0) / 2.0) * spread
    };
    let lanes = LANES
        .map(|(_, name, y)| view! { <text class="tick" x=LEFT - 8.0 y=y + 4.0 text-anchor="end">{name}</text> })
        .collect_view();
    // Tasks with the same strategy, length and verdict share one mark, its area growing
    // with their number, so that none hides behind another.
    let mut groups: Vec<Vec<&ItemResult>> = Vec::new();
    for r in &results {
        let same = |g: &&mut Vec<&ItemResult>| {
            (g[0].strategy, g[0].total_tokens, g[0].correct)
                == (r.strategy, r.total_tokens, r.correct)
        };
        match groups.iter_mut().find(same) {
            Some(group) => group.push(r),
            None => groups.push(vec![r]),
        }
    }
    let marks = groups
        .iter()
        .map(|group| {
            let r = group[0];
            let lane = LANES.iter().find(|l| l.0 == r.correct).map_or(0.0, |l| l.2);
            let tasks = group.iter().map(|g| g.task_id.as_str()).collect::<Vec<_>>().join(", ");
            let verdict = if r.correct { "correct" } else { "wrong" };
            view! {
                <circle
                    class=format!("mark series-{}", names::id(r.strategy))
                    data-count=group.len()
                    cx=x_of(r.total_tokens as f64, end)
                    cy=lane + row(r)
                    r=5.0 * (group.len() as f64).sqrt()
                >
                    <title>{format!("{} ({tasks}): {} tokens, {verdict}", names::name(r.strategy), r.total_tokens)}</title>
                </circle>
            }
        })
        .collect_view();
    let summary = length_summary(&results);
    view! {
        <figure class="chart" data-testid="length-chart">
            <figcaption>"Tokens generated for each task, by whether its answer was correct (a larger mark: several tasks)"</figcaption>
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
        let verdict = if correct { "correct" } else { "wrong" };
        let lengths: Vec<usize> = results
            .iter()
            .filter(|r| r.correct == correct)
            .map(|r| r.total_tokens)
            .collect();
        match lengths.len() {
            0 => format!("there were no {verdict} answers"),
            n => format!(
                "{verdict} answers took {:.1} tokens on average ({})",
                lengths.iter().sum::<usize>() as f64 / n as f64,
                names::count(n, "answer", "answers")
            ),
        }
    };
    format!("In this run, {}; {}.", mean(true), mean(false))
}

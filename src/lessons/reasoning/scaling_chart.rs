//! The sampling curves of a self-consistency run: pass@k (at least one of k samples right,
//! the unbiased estimator) and majority@k (the vote over k samples right) for k = 1..N on a
//! log-scale k axis, with the greedy strategies of the same run as reference lines. All from
//! the run's own samples.

use super::chart::{BOTTOM, LEFT, RIGHT, TOP, WIDTH};
use super::names;
use super::run::Run;
use engine::reasoning::strategy::{sampling_curves, Strategy};
use leptos::prelude::*;

const HEIGHT: f64 = 300.0;

fn y_of(accuracy: f64) -> f64 {
    HEIGHT - BOTTOM - accuracy * (HEIGHT - BOTTOM - TOP)
}

/// Where k goes on a log axis from 1 to n.
fn x_of(k: usize, n: usize) -> f64 {
    let span = (n.max(2) as f64).ln();
    LEFT + (k as f64).ln() / span * (WIDTH - LEFT - RIGHT)
}

/// The smallest k whose pass@k is above `greedy`, if any.
pub fn first_k_above(pass: &[f64], greedy: f64) -> Option<usize> {
    pass.iter().position(|&p| p > greedy + 1e-12).map(|i| i + 1)
}

/// The curves of `run`'s self-consistency results, if it has at least two samples per task.
pub fn curves(run: &Run) -> Option<(Vec<f64>, Vec<f64>)> {
    let results = run.results_of(Strategy::SelfConsistency);
    (run.experiment.samples >= 2 && !results.is_empty()).then(|| sampling_curves(&results))
}

#[component]
pub fn ScalingChart(run: Run) -> impl IntoView {
    let (pass, majority) = curves(&run)?;
    let n = pass.len();
    let percent = |a: f64| format!("{:.0}%", a * 100.0);
    let grid = [0.0, 0.25, 0.5, 0.75, 1.0]
        .map(|a| {
            let y = y_of(a);
            view! {
                <line class="grid" x1=LEFT y1=y x2=WIDTH - RIGHT y2=y></line>
                <text class="tick" x=LEFT - 8.0 y=y + 4.0 text-anchor="end">{percent(a)}</text>
            }
        })
        .collect_view();
    let base = HEIGHT - BOTTOM;
    let ticks = (0..6)
        .map(|e| 1usize << e)
        .filter(|&k| k < n)
        .chain(std::iter::once(n))
        .map(|k| {
            let x = x_of(k, n);
            view! {
                <line class="grid" x1=x y1=TOP x2=x y2=base></line>
                <text class="tick" x=x y=base + 18.0 text-anchor="middle">{k}</text>
            }
        })
        .collect_view();
    let series = |values: &[f64], class: &'static str, label: &'static str| {
        let points = values
            .iter()
            .enumerate()
            .map(|(i, &v)| format!("{:.1},{:.1}", x_of(i + 1, n), y_of(v)))
            .collect::<Vec<_>>()
            .join(" ");
        let dots = values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                view! {
                    <circle class="point" cx=x_of(i + 1, n) cy=y_of(v) r="4">
                        <title>{format!("{label}@{}: {}", i + 1, percent(v))}</title>
                    </circle>
                }
            })
            .collect_view();
        view! {
            <g class=format!("curve {class}")>
                <polyline points=points></polyline>
                {dots}
            </g>
        }
    };
    // The same run's greedy strategies, on the same tasks.
    let references: Vec<(Strategy, f64)> = [Strategy::Direct, Strategy::Cot]
        .into_iter()
        .filter(|s| run.strategies().contains(s))
        .map(|s| (s, run.summary(s).accuracy))
        .collect();
    let reference_lines = references
        .iter()
        .map(|&(s, a)| {
            view! {
                <g class=format!("reference series-{}", names::id(s)) data-strategy=names::id(s) data-accuracy=a.to_string()>
                    <line x1=LEFT y1=y_of(a) x2=WIDTH - RIGHT y2=y_of(a)></line>
                    <text class="tick" x=WIDTH - RIGHT y=y_of(a) - 6.0 text-anchor="end">{format!("{} {}", names::name(s), percent(a))}</text>
                </g>
            }
        })
        .collect_view();
    let join = |v: &[f64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let summary = format!(
        "With one sample, {} of tasks are right on average. Among {n} samples, at least one is right for {} of tasks (pass@{n}), but a majority vote over all {n} picks the right answer for only {} (majority@{n}).",
        percent(pass[0]),
        percent(pass[n - 1]),
        percent(majority[n - 1]),
    );
    let description = format!(
        "pass@k from {} to {}, majority@k from {} to {}, k from 1 to {n}",
        percent(pass[0]),
        percent(pass[n - 1]),
        percent(majority[0]),
        percent(majority[n - 1])
    );
    Some(view! {
        <figure class="chart" data-testid="scaling-chart" data-n=n data-pass-at-k=join(&pass) data-majority-at-k=join(&majority)>
            <figcaption>"More samples: pass@k and majority@k against k (log scale)"</figcaption>
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=format!("Sampling curves: {description}.")>
                {grid}
                {ticks}
                <line class="axis" x1=LEFT y1=base x2=WIDTH - RIGHT y2=base></line>
                <line class="axis" x1=LEFT y1=TOP x2=LEFT y2=base></line>
                <text class="axis-title" x=(LEFT + WIDTH - RIGHT) / 2.0 y=HEIGHT - 8.0 text-anchor="middle">"samples per task, k"</text>
                {reference_lines}
                {series(&pass, "series-pass", "pass")}
                {series(&majority, "series-majority", "majority")}
            </svg>
            <ul class="legend">
                <li><span class="swatch series-pass" aria-hidden="true"></span>"pass@k: at least one of k samples right"</li>
                <li><span class="swatch series-majority" aria-hidden="true"></span>"majority@k: the vote over k samples right"</li>
                {references.iter().map(|&(s, _)| view! {
                    <li><span class=format!("swatch series-{}", names::id(s)) aria-hidden="true"></span>{format!("{} (greedy, same tasks)", names::name(s))}</li>
                }).collect_view()}
            </ul>
            <p data-testid="scaling-summary">{summary}</p>
        </figure>
    })
}

//! Every scored trace of the run as a point, its length (x) against its deep-thinking ratio
//! (y), marked correct or wrong; and the correlation of correctness with each, two ways: per
//! trace (point-biserial, with its task-bootstrap interval) and as the study computes it
//! (Pearson over 5 quantile bins), which is the one its reported figures compare with.

use super::chart::{token_ticks, x_of, TokenAxis, BOTTOM, LEFT, RIGHT, TOP, WIDTH};
use super::depth_record::Point;
use super::names;
use engine::reasoning::depth_binned::{binned_r, Binned, STUDY_BINS};
use engine::reasoning::depth_stats::{correlation, Correlation};
use leptos::prelude::*;

const HEIGHT: f64 = 240.0;

/// Chen et al. 2026, "Think Deep, Not Just Long": the mean correlations of accuracy with
/// DTR and with length they report, on large reasoning models and competition benchmarks,
/// each Pearson's r over 5 quantile bins of the measure, per model and benchmark.
const STUDY_DTR_R: f64 = 0.683;
const STUDY_LENGTH_R: f64 = -0.594;

fn y_of(dtr: f64) -> f64 {
    HEIGHT - BOTTOM - dtr * (HEIGHT - BOTTOM - TOP)
}

#[component]
pub fn DepthScatter(points: Memo<Vec<Point>>, seed: u64) -> impl IntoView {
    move || points.with(|points| scatter(points, seed))
}

fn scatter(points: &[Point], seed: u64) -> impl IntoView {
    let (end, ticks) = token_ticks(points.iter().map(Point::tokens).max().unwrap_or(0) as f64);
    let marks = points
        .iter()
        .map(|p| {
            let (x, y) = (x_of(p.tokens() as f64, end), y_of(p.dtr()));
            let verdict = if p.correct { "correct" } else { "wrong" };
            let title = format!(
                "{} {}, sample {}: {} tokens, DTR {:.2}, {verdict}",
                p.task_id,
                names::name(p.strategy),
                p.sample + 1,
                p.tokens(),
                p.dtr()
            );
            // Shape as well as colour: a circle is correct, a square wrong.
            let mark = if p.correct {
                view! { <circle class="mark depth-correct" cx=x cy=y r=5.0><title>{title}</title></circle> }.into_any()
            } else {
                view! { <rect class="mark depth-wrong" x=x - 4.5 y=y - 4.5 width=9.0 height=9.0><title>{title}</title></rect> }
                    .into_any()
            };
            view! {
                <g data-testid="depth-point" data-task=p.task_id.clone() data-tokens=p.tokens() data-dtr=format!("{:.4}", p.dtr()) data-correct=p.correct.to_string()>
                    {mark}
                </g>
            }
        })
        .collect_view();
    let y_ticks = [0.0, 0.25, 0.5, 0.75, 1.0]
        .map(|v| {
            view! {
                <line class="grid" x1=LEFT y1=y_of(v) x2=WIDTH - RIGHT y2=y_of(v)></line>
                <text class="tick" x=LEFT - 8.0 y=y_of(v) + 4.0 text-anchor="end">{format!("{v:.2}")}</text>
            }
        })
        .collect_view();
    let correct: Vec<bool> = points.iter().map(|p| p.correct).collect();
    let task: Vec<&str> = points.iter().map(|p| p.task_id.as_str()).collect();
    let length = correlation(&correct, &points.iter().map(|p| p.tokens() as f64).collect::<Vec<_>>(), &task, seed);
    let depth = correlation(&correct, &points.iter().map(Point::dtr).collect::<Vec<_>>(), &task, seed);
    let binned_length = binned_r(&correct, &points.iter().map(|p| p.tokens() as f64).collect::<Vec<_>>(), STUDY_BINS);
    let binned_depth = binned_r(&correct, &points.iter().map(Point::dtr).collect::<Vec<_>>(), STUDY_BINS);
    let r_attr = |r: Option<f64>| r.map_or(String::new(), |r| format!("{r:.3}"));
    let right = correct.iter().filter(|&&c| c).count();
    let summary = format!(
        "{} traces, {right} correct; correlation of correctness with length {}, with DTR {}.",
        points.len(),
        r_text(&length),
        r_text(&depth)
    );
    view! {
        <figure class="chart" data-testid="depth-scatter">
            <figcaption>"Each trace: its length against its deep-thinking ratio (circle: correct, square: wrong)"</figcaption>
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=format!("Length against DTR. {summary}")>
                {y_ticks}
                <text class="axis-title" x=16.0 y=(TOP + HEIGHT - BOTTOM) / 2.0 text-anchor="middle" transform=format!("rotate(-90 16 {})", (TOP + HEIGHT - BOTTOM) / 2.0)>"DTR"</text>
                <line class="axis" x1=LEFT y1=TOP x2=LEFT y2=HEIGHT - BOTTOM></line>
                <TokenAxis end=end ticks=ticks height=HEIGHT title="tokens of the trace"/>
                {marks}
            </svg>
        </figure>
        <div
            data-testid="depth-correlation" data-n=points.len() data-tasks=length.tasks
            data-r-length=r_attr(length.r) data-r-dtr=r_attr(depth.r)
            data-r-binned-length=r_attr(binned_length.r) data-r-binned-dtr=r_attr(binned_depth.r)
            data-bins-length=binned_length.bins.len() data-bins-dtr=binned_depth.bins.len()
        >
            // A phone scrolls the four columns sideways rather than widening the page.
            <div class="table-scroll"><table class="results-table">
                <caption>{format!(
                    "Correlation of correctness with length and with DTR, over {} from {}, two ways. Per trace: the point-biserial r over every trace (95% bootstrap interval, 2000 resamples of the tasks: a task's traces share its difficulty, so they count together). Binned, as the study computes it: the traces split into {STUDY_BINS} quantile bins of the measure (equal values share a bin), then Pearson's r over the bins' mean accuracy against their mean measure, n = the bins that hold traces. Averaging within bins removes most of the trace-to-trace noise, so a binned r is far larger in size than a per-trace r of the same data: the study's figures compare with the binned column only.",
                    names::count(points.len(), "trace", "traces"),
                    names::count(length.tasks, "task", "tasks")
                )}</caption>
                <thead><tr>
                    <th scope="col">"of correctness with"</th>
                    <th scope="col">"per trace, this run"</th>
                    <th scope="col">"binned, this run"</th>
                    <th scope="col">"binned, the study reports"</th>
                </tr></thead>
                <tbody>
                    <tr><th scope="row">"length (tokens)"</th><td>{r_text(&length)}</td><td>{binned_text(&binned_length)}</td><td>{format!("{STUDY_LENGTH_R:+.3} (a mean of r's, each n = 5)")}</td></tr>
                    <tr><th scope="row">"DTR"</th><td>{r_text(&depth)}</td><td>{binned_text(&binned_depth)}</td><td>{format!("{STUDY_DTR_R:+.3} (a mean of r's, each n = 5)")}</td></tr>
                </tbody>
            </table></div>
            <p class="hint">"The study's figures are reported, not measured here: averages over large reasoning models on competition benchmarks (Chen et al. 2026), many samples per question, far from a small model on short tasks. Five bins give no useful interval; the sign of the per-trace r, with its interval, is what this run can settle."</p>
            <p data-testid="depth-verdict">{format!("Length: {} DTR: {}", verdict(&length, STUDY_LENGTH_R), verdict(&depth, STUDY_DTR_R))}</p>
        </div>
    }
}

/// "r = +0.21 (−0.10 to +0.48)", or why there is none.
fn r_text(c: &Correlation) -> String {
    match (c.r, c.interval) {
        (None, _) => "undefined".into(),
        (Some(r), Some((lo, hi))) => format!("r = {r:+.2} ({lo:+.2} to {hi:+.2})"),
        (Some(r), None) => format!("r = {r:+.2} (no interval)"),
    }
}

/// "r = +0.81 (n = 5 bins)", or why there is none.
fn binned_text(b: &Binned) -> String {
    match b.r {
        Some(r) => format!("r = {r:+.2} (n = {} bins)", b.bins.len()),
        None => format!("undefined ({}: it needs 3 bins whose accuracy varies)", names::count(b.bins.len(), "bin", "bins")),
    }
}

/// Whether this run's per-trace r agrees with the study's sign, from the interval.
fn verdict(c: &Correlation, study: f64) -> String {
    match (c.r, c.interval) {
        (None, _) => format!(
            "this run cannot tell: with {} the correlation is undefined (every trace right, or every trace wrong, or all alike).",
            names::count(c.n, "trace", "traces")
        ),
        (Some(_), None) => "this run cannot tell: too few traces for an interval.".into(),
        (Some(_), Some((lo, hi))) if lo <= 0.0 && hi >= 0.0 => {
            "this run cannot tell: its interval includes 0, so the sign is not settled. More tasks narrow it.".into()
        }
        (Some(r), Some(_)) if (r > 0.0) == (study > 0.0) => {
            format!("this run agrees with the study's sign ({}).", if r > 0.0 { "positive" } else { "negative" })
        }
        (Some(r), Some(_)) => format!(
            "this run disagrees: its correlation is {} where the study's is {}.",
            if r > 0.0 { "positive" } else { "negative" },
            if study > 0.0 { "positive" } else { "negative" }
        ),
    }
}

//! DTR within a task: for each task with both right and wrong traces, the mean DTR of its
//! right traces minus that of its wrong ones (`depth_within`), so that difficulty, shared by
//! a task's traces, drops out. Think@n ranks one task's samples against each other, so
//! this, not the correlation over all traces, is the comparison it relies on.

use super::depth_record::Point;
use super::names;
use engine::reasoning::depth_within::within_task;
use leptos::prelude::*;

#[component]
pub fn DepthWithin(points: Memo<Vec<Point>>) -> impl IntoView {
    move || {
        points.with(|points| {
            let task: Vec<&str> = points.iter().map(|p| p.task_id.as_str()).collect();
            let correct: Vec<bool> = points.iter().map(|p| p.correct).collect();
            let dtr: Vec<f64> = points.iter().map(Point::dtr).collect();
            let w = within_task(&task, &correct, &dtr);
            let attr = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.4}"));
            let text = match (w.mean, w.interval) {
                (None, _) => "No task has both right and wrong traces on this run, so there is no within-task comparison: more samples per task, or more tasks, give some.".to_string(),
                (Some(m), None) => format!(
                    "Within the one task that has both right and wrong traces, the right ones' mean DTR minus the wrong ones' is {m:+.3}: one task gives no interval."
                ),
                (Some(m), Some((lo, hi))) => format!(
                    "Within each of the {} tasks that have both right and wrong traces, the right ones' mean DTR minus the wrong ones': on average {m:+.3} (95% t-interval over the tasks, {lo:+.3} to {hi:+.3}). {}",
                    w.n,
                    if lo > 0.0 {
                        "Right traces think deeper than wrong ones of the same task on this run."
                    } else if hi < 0.0 {
                        "Right traces think less deep than wrong ones of the same task on this run."
                    } else {
                        "The interval includes 0: this run does not show a difference within tasks."
                    }
                ),
            };
            let (lo, hi) = (w.interval.map(|i| i.0), w.interval.map(|i| i.1));
            view! {
                <div data-testid="depth-within" data-n=w.n data-mean=attr(w.mean) data-lo=attr(lo) data-hi=attr(hi)>
                    <h4>"Within a task: right against wrong"</h4>
                    <p>{text}</p>
                    <p class="hint">{format!(
                        "Harder tasks draw both different traces and more errors, so a correlation over all {} mixes difficulty with depth. Comparing traces of the same task removes it; this is also the comparison Think@n relies on, as it ranks one task's samples against each other.",
                        names::count(points.len(), "trace", "traces")
                    )}</p>
                </div>
            }
        })
    }
}

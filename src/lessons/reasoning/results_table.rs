//! The results table: one row per strategy, every figure measured in this run, format
//! failures (the right answer in the trace, not on the answer line) beside accuracy, and a
//! sentence when they, not the reasoning, explain a difference in accuracy.

use super::names;
use super::run::Run;
use engine::reasoning::strategy::{Strategy, Summary};
use leptos::prelude::*;

/// Where a strategy of one sample per task scored below another but would reach it counting
/// its format failures: the gap is the format's, not the reasoning's.
fn format_note(summaries: &[Summary]) -> Option<String> {
    let single = |s: &&Summary| s.samples == s.n && s.n > 0;
    let notes: Vec<String> = summaries
        .iter()
        .filter(single)
        .filter_map(|a| {
            let above = summaries.iter().filter(|b| b.correct > a.correct).max_by_key(|b| b.correct)?;
            (a.format_failures > 0 && a.correct + a.format_failures >= above.correct).then(|| {
                format!(
                    "{} scored {}/{} against {}'s {}/{}, but {} of its wrong replies had the right answer in the trace and not on the answer line: counted, they would give {}/{}. That gap is the format, not the reasoning.",
                    names::name(a.strategy), a.correct, a.n, names::name(above.strategy), above.correct, above.n,
                    a.format_failures, a.correct + a.format_failures, a.n
                )
            })
        })
        .collect();
    (!notes.is_empty()).then(|| notes.join(" "))
}

#[component]
pub fn ResultsTable(run: Run) -> impl IntoView {
    let samples = run.experiment.samples;
    let summaries = run.summaries();
    let note = format_note(&summaries).map(|n| view! { <p data-testid="format-note">{n}</p> });
    let rows = summaries
        .into_iter()
        .map(|s| {
            let per_correct = s.tokens_per_correct.map_or("– (none correct)".to_string(), |t| format!("{t:.0}"));
            // Direct answering has no reasoning for the budget to cut.
            let cut = (s.strategy != Strategy::Direct && s.samples > 0)
                .then(|| format!("{}/{} ({:.0}%)", s.truncated, s.samples, 100.0 * s.truncated as f64 / s.samples as f64));
            view! {
                <tr
                    data-strategy=names::id(s.strategy)
                    data-accuracy=s.accuracy.to_string()
                    data-correct=s.correct.to_string()
                    data-n=s.n.to_string()
                    data-tokens=s.total_tokens.to_string()
                    data-latency-ms=format!("{:.1}", s.mean_latency_ms)
                    data-truncated=s.truncated.to_string()
                    data-samples=s.samples.to_string()
                    data-format-failures=s.format_failures.to_string()
                >
                    <th scope="row">{names::name_with_samples(s.strategy, samples)}</th>
                    <td class="num" data-label="Correct">
                        {format!("{}/{} ({:.0}%)", s.correct, s.n, s.accuracy * 100.0)}
                        <span class="detail">{format!("95% interval {:.0}–{:.0}%", s.ci_low * 100.0, s.ci_high * 100.0)}</span>
                    </td>
                    <td class="num" data-label="Tokens generated">
                        {s.total_tokens}
                        <span class="detail">{format!("{} reasoning + {} answer", s.reasoning_tokens, s.answer_tokens)}</span>
                    </td>
                    <td class="num" data-label="Right answer in the trace, not on the answer line">
                        {format!("{}/{}", s.format_failures, s.samples)}
                    </td>
                    <td class="num" data-label="Mean latency per task">{format!("{:.2} s", s.mean_latency_ms / 1000.0)}</td>
                    <td class="num" data-label="Tokens per correct answer">{per_correct}</td>
                    <td class="num" data-label="Traces cut by the budget">{cut.unwrap_or_else(|| "–".into())}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        // Focusable and named: on a phone the table is wider than the screen, and a region that
        // scrolls must be reachable by keyboard.
        <div class="table-scroll" tabindex="0" role="region" aria-label="Results per strategy">
            <table class="results" data-testid="results-table">
                <caption>{format!("Per strategy, on the same {}", names::count(run.complete_tasks(), "task", "tasks"))}</caption>
                <thead>
                    <tr>
                        <th scope="col">"Strategy"</th>
                        <th scope="col">"Correct"</th>
                        <th scope="col">"Tokens generated"</th>
                        <th scope="col">"Right answer in the trace, not on the answer line"</th>
                        <th scope="col">"Mean latency per task"</th>
                        <th scope="col">"Tokens per correct answer"</th>
                        <th scope="col">"Traces cut by the budget"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {note}
    }
}

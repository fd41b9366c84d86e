//! Early answering (Lanham et al. 2023): each trace cut after 0, 25, 50, 75 and 100% of its
//! tokens, the runner's answer line written, and the model's answer compared with the full
//! trace's, right or wrong. Per fraction and across the traces, as Lanham et al. read it: how
//! often it was the same, with the interval, among the traces where both gave an answer (the
//! others counted apart), beside the chance of matching by guessing; the 100% row is the
//! control. A few traces with their cuts marked and the answer at each.

use super::run::Score;
use engine::reasoning::faithfulness::{Early, Faithfulness, FRACTIONS};
use engine::reasoning::task::Task;
use engine::reasoning::tasks::chance;
use leptos::prelude::*;

/// Examples shown side by side.
const EXAMPLES: usize = 3;

fn percent(fraction: f64) -> String {
    format!("{:.0}%", fraction * 100.0)
}

/// At the `i`-th fraction: traces whose answer was the full trace's, was another, and where
/// one of the two was no answer.
fn counts_at(tests: &[Faithfulness], i: usize) -> (usize, usize, usize) {
    let at = |v: Option<bool>| {
        tests
            .iter()
            .filter(|t| t.early.get(i).is_some_and(|e| e.same == v))
            .count()
    };
    (at(Some(true)), at(Some(false)), at(None))
}

/// "same", "different" or "no answer", and the attribute the tests read.
fn verdict(e: &Early) -> (&'static str, &'static str) {
    match e.same {
        Some(true) => ("same", "true"),
        Some(false) => ("different", "false"),
        None => ("no answer", "none"),
    }
}

/// The chance of giving the full trace's answer by guessing among the task's answers, averaged
/// over the tested tasks that have a fixed set of them; what the sentence says about the rest.
fn chance_line(tests: &[Faithfulness], tasks: &[Task]) -> (Option<f64>, String) {
    let chances: Vec<Option<f64>> = tests
        .iter()
        .map(|t| tasks.iter().find(|task| task.id == t.task).and_then(chance))
        .collect();
    let fixed: Vec<f64> = chances.iter().flatten().copied().collect();
    if fixed.is_empty() {
        return (None, "Chance level: none. These answers are open (numbers or phrases), so a guess has no fixed chance of matching.".into());
    }
    let mean = fixed.iter().sum::<f64>() / fixed.len() as f64;
    let open = chances.len() - fixed.len();
    let rest = if open > 0 {
        format!(" on the {} traces whose answer is one of a fixed set (yes/no: 50%, k choices: 1/k); none on the {open} with open answers", fixed.len())
    } else {
        " (yes/no: 50%, k choices: 1/k)".into()
    };
    (Some(mean), format!("Chance level: {:.0}%{rest}. A share near it at 0% says little: a guess would match as often.", mean * 100.0))
}

#[component]
pub fn FaithfulnessEarly(tests: Vec<Faithfulness>, tasks: Vec<Task>) -> impl IntoView {
    let traces = tests.len();
    let rows = FRACTIONS
        .iter()
        .enumerate()
        .map(|(i, &fraction)| {
            let (same, different, none) = counts_at(&tests, i);
            let n = same + different;
            let score = if n > 0 { Score { correct: same, n, tokens: 0 }.text() } else { "no trace gave an answer to compare".into() };
            let label = if fraction == 1.0 { "100% (control: the whole trace given back)".to_string() } else { percent(fraction) };
            view! {
                <tr data-fraction=fraction.to_string() data-same=same data-different=different data-none=none data-n=n>
                    <th scope="row">{label}</th>
                    <td>{score}</td>
                    <td>{none}</td>
                </tr>
            }
        })
        .collect_view();
    let (chance, chance_text) = chance_line(&tests, &tasks);
    let (at_zero, differ_zero, _) = counts_at(&tests, 0);
    let n_zero = at_zero + differ_zero;
    let reading = if n_zero == 0 {
        "At 0% no trace gave an answer the checker could compare, so this run says nothing yet about whether the traces were needed.".to_string()
    } else {
        format!(
            "Read across the traces, as Lanham et al. do: with no trace at all (0%), {at_zero} of {n_zero} gave the full trace's answer anyway; for those, the trace was not needed for the answer. The other {differ_zero} changed it. The share is an estimate over {n_zero} traces: its interval, not one trace, is the finding."
        )
    };
    let examples = tests.iter().take(EXAMPLES).map(example).collect_view();
    view! {
        <section class="faith-panel" data-testid="faithfulness-early" data-n=traces aria-labelledby="l3-faith-early">
            <h4 id="l3-faith-early">"Early answering: cut the trace, ask for the answer"</h4>
            <p>"Each trace is cut after a share of its tokens; the runner writes its \"Answer:\" line there, and the model answers. Answers are compared as they are, right or wrong. If the answer is already the full trace's at 0%, the trace was not needed for it. (Lanham et al. 2023, \"Measuring Faithfulness in Chain-of-Thought Reasoning\".)"</p>
            <div class="table-scroll"><table class="results">
                <thead><tr>
                    <th scope="col">"trace kept"</th>
                    <th scope="col">"same answer as the full trace, of those with two answers"</th>
                    <th scope="col">"no answer (left out)"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table></div>
            <p data-testid="faithfulness-early-chance" data-chance=chance.map_or(String::new(), |c| format!("{c:.4}"))>{chance_text}</p>
            <p data-testid="faithfulness-early-reading">{reading}</p>
            <details class="faith-examples-box" open=true>
                <summary>{format!("Traces with their cuts marked ({} of {traces})", traces.min(EXAMPLES))}</summary>
                <div class="faith-examples">{examples}</div>
            </details>
        </section>
    }
}

/// One trace with a mark at each cut inside it, and the answer given at every cut.
fn example(t: &Faithfulness) -> impl IntoView {
    let mut pieces = Vec::new();
    let mut at = 0;
    for e in &t.early {
        let cut = e.kept().len().min(t.trace.len());
        if !(0.0 < e.fraction && e.fraction < 1.0) || cut < at || !t.trace.is_char_boundary(cut) {
            continue;
        }
        pieces.push(view! { <span>{t.trace[at..cut].to_string()}</span> }.into_any());
        pieces.push(
            view! { <mark class="cut-mark">{format!("✂{}", percent(e.fraction))}</mark> }
                .into_any(),
        );
        at = cut;
    }
    pieces.push(view! { <span>{t.trace[at..].to_string()}</span> }.into_any());
    let answers = t
        .early
        .iter()
        .map(|e| {
            let answer = e.variant.answer.clone().unwrap_or_else(|| "(none)".into());
            let (text, attr) = verdict(e);
            let class = format!("faith-{}", text.replace(' ', "-"));
            view! {
                <li data-same=attr data-answer=e.variant.answer.clone().unwrap_or_default()>
                    {format!("{}: {answer} ", percent(e.fraction))}
                    <span class=class>{format!("({text})")}</span>
                </li>
            }
        })
        .collect_view();
    let not_needed = t.early.first().is_some_and(|e| e.same == Some(true));
    let note = not_needed.then(|| view! { <p class="faith-note" data-testid="faithfulness-not-needed">"Same answer with no trace: the trace was not needed for it."</p> });
    view! {
        <figure class="faith-example" data-task=t.task.clone()>
            <figcaption>
                {format!("{}: the full trace answered {}", t.task, t.answer.as_deref().unwrap_or("nothing the checker could read"))}
            </figcaption>
            <p class="trace faith-trace">{pieces}</p>
            <ul class="faith-answers">{answers}</ul>
            {note}
        </figure>
    }
}

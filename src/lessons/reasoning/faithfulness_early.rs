//! Early answering (Lanham et al. 2023): each trace cut after 0, 25, 50, 75 and 100% of its
//! tokens, the runner's answer line written, and the model's answer compared with the full
//! trace's. Per fraction, how often it was the same, with the interval; a few traces with
//! their cuts marked and the answer at each.

use super::run::Score;
use engine::reasoning::faithfulness::{Faithfulness, FRACTIONS};
use leptos::prelude::*;

/// Examples shown side by side.
const EXAMPLES: usize = 3;

fn percent(fraction: f64) -> String {
    format!("{:.0}%", fraction * 100.0)
}

/// How many traces gave the full trace's answer when cut at the `i`-th fraction.
fn same_at(tests: &[Faithfulness], i: usize) -> usize {
    tests.iter().filter(|t| t.early.get(i).is_some_and(|e| e.same)).count()
}

#[component]
pub fn FaithfulnessEarly(tests: Vec<Faithfulness>) -> impl IntoView {
    let n = tests.len();
    let rows = FRACTIONS
        .iter()
        .enumerate()
        .map(|(i, &fraction)| {
            let same = same_at(&tests, i);
            let score = Score { correct: same, n, tokens: 0 };
            view! {
                <tr data-fraction=fraction.to_string() data-same=same data-n=n>
                    <th scope="row">{percent(fraction)}</th>
                    <td>{score.text()}</td>
                </tr>
            }
        })
        .collect_view();
    let at_zero = same_at(&tests, 0);
    let reading = if at_zero == 0 {
        format!("With no trace at all (0%), the answer differed from the full trace's on all {n}: on these tasks, writing the trace changed the answer.")
    } else {
        format!(
            "With no trace at all (0%), the model already gave the full trace's answer on {at_zero} of {n}: on those tasks the trace did not produce the answer, which was fixed before it."
        )
    };
    let examples = tests.iter().take(EXAMPLES).map(example).collect_view();
    view! {
        <section class="faith-panel" data-testid="faithfulness-early" data-n=n aria-labelledby="l3-faith-early">
            <h4 id="l3-faith-early">"Early answering: cut the trace, ask for the answer"</h4>
            <p>"Each trace is cut after a share of its tokens; the runner writes its \"Answer:\" line there, and the model answers. If the answer is already the full trace's at 0%, the trace did not produce it. (Lanham et al. 2023, \"Measuring Faithfulness in Chain-of-Thought Reasoning\".)"</p>
            <div class="table-scroll"><table class="results">
                <thead><tr><th scope="col">"trace kept"</th><th scope="col">"same answer as the full trace"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table></div>
            <p data-testid="faithfulness-early-reading">{reading}</p>
            <details class="faith-examples-box" open=true>
                <summary>{format!("Traces with their cuts marked ({} of {n})", n.min(EXAMPLES))}</summary>
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
        pieces.push(view! { <mark class="cut-mark">{format!("✂{}", percent(e.fraction))}</mark> }.into_any());
        at = cut;
    }
    pieces.push(view! { <span>{t.trace[at..].to_string()}</span> }.into_any());
    let answers = t
        .early
        .iter()
        .map(|e| {
            let answer = e.variant.answer.clone().unwrap_or_else(|| "(none)".into());
            let verdict = if e.same { "same" } else { "different" };
            view! {
                <li data-same=e.same.to_string()>
                    {format!("{}: {answer} ", percent(e.fraction))}
                    <span class=format!("faith-{verdict}")>{format!("({verdict})")}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <figure class="faith-example" data-task=t.task.clone()>
            <figcaption>
                {format!("{}: the full trace answered {}", t.task, t.answer.as_deref().unwrap_or("nothing the checker could read"))}
            </figcaption>
            <p class="trace faith-trace">{pieces}</p>
            <ul class="faith-answers">{answers}</ul>
        </figure>
    }
}

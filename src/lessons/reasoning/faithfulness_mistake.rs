//! An added mistake (Lanham et al. 2023): in each trace, the first number the model wrote
//! that is not copied from the question is raised by one, and the model continues from
//! there. How often the final answer changed, with the interval, and a few traces with the
//! change marked and what the model wrote after it.

use super::run::Score;
use engine::reasoning::faithfulness::{Faithfulness, Mistake};
use leptos::prelude::*;

const EXAMPLES: usize = 3;

#[component]
pub fn FaithfulnessMistake(tests: Vec<Faithfulness>) -> impl IntoView {
    let changed: Vec<(&Faithfulness, &Mistake)> = tests.iter().filter_map(|t| t.mistake.as_ref().map(|m| (t, m))).collect();
    let n = changed.len();
    let without = tests.len() - n;
    let k = changed.iter().filter(|(_, m)| m.changed).count();
    let score = Score { correct: k, n, tokens: 0 };
    let reading = if n == 0 {
        "No trace wrote a number of its own (one not copied from the question), so there was nothing to change. Word problems and multi-step arithmetic make the model write intermediate results.".to_string()
    } else {
        format!(
            "The final answer changed on {k} of {n} traces after one of their numbers changed. On the other {}, the answer ignored the corrupted step: it was not computed from that step.",
            n - k
        )
    };
    let examples = changed.iter().take(EXAMPLES).map(|(t, m)| example(t, m)).collect_view();
    view! {
        <section class="faith-panel" data-testid="faithfulness-mistake" data-n=n data-changed=k data-without=without aria-labelledby="l3-faith-mistake">
            <h4 id="l3-faith-mistake">"An added mistake: change one number, let the model go on"</h4>
            <p>"In each trace, the first number the model wrote itself (not copied from the question, not a list marker) is raised by one; the model continues from just after it, within what is left of the budget. An answer that does not move was not computed from the steps. (Lanham et al. 2023.)"</p>
            <p class="faith-figure">
                <strong>"Answer changed: "</strong>
                <span data-testid="faithfulness-mistake-rate">{if n == 0 { "no trace to test".to_string() } else { score.text() }}</span>
                {(without > 0).then(|| format!(" ({without} without a number of their own, not tested.)"))}
            </p>
            <p>{reading}</p>
            {(n > 0).then(|| view! {
                <details class="faith-examples-box" open=true>
                    <summary>{format!("Traces with the change marked ({} of {n})", n.min(EXAMPLES))}</summary>
                    <div class="faith-examples">{examples}</div>
                </details>
            })}
        </section>
    }
}

/// The trace up to the number, the number struck out and its replacement, then everything
/// the model wrote from there (with any answer line the runner wrote).
fn example(t: &Faithfulness, m: &Mistake) -> impl IntoView {
    let before = t.trace.get(..m.offset).unwrap_or_default().to_string();
    let reply = m.variant.reply();
    let after = reply.get(m.offset + m.replacement.len()..).unwrap_or_default().to_string();
    let answer = |a: &Option<String>| a.clone().unwrap_or_else(|| "(none)".into());
    let verdict = if m.changed { "changed" } else { "unchanged" };
    view! {
        <figure class="faith-example" data-task=t.task.clone() data-changed=m.changed.to_string()>
            <figcaption>{format!("{}: {} became {}", t.task, m.original, m.replacement)}</figcaption>
            <p class="trace faith-trace">
                <span>{before}</span>
                <del>{m.original.clone()}</del>
                <ins>{m.replacement.clone()}</ins>
                <span class="faith-continued">{after}</span>
            </p>
            <p class="faith-answers">
                {format!("Answer as written: {}; after the change: {} ", answer(&t.answer), answer(&m.variant.answer))}
                <span class=format!("faith-{verdict}")>{format!("({verdict})")}</span>
            </p>
        </figure>
    }
}

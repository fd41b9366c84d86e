//! Each task of the run: its prompt, and under every strategy what the model wrote, the
//! answer the checker extracted and its verdict, with the vote for self-consistency and
//! only the token counts for hidden reasoning.

use super::names;
use super::run::Run;
use engine::reasoning::strategy::{prompt, ItemResult, Sample, Strategy};
use engine::reasoning::task::Task;
use leptos::prelude::*;

#[component]
pub fn ItemList(run: Run) -> impl IntoView {
    let per_task = run.strategies().len();
    let budget = run.experiment.budget;
    let items = run
        .complete_results()
        .chunks(per_task)
        .zip(&run.tasks)
        .enumerate()
        .map(|(i, (results, task))| {
            let marks = results
                .iter()
                .map(|r| format!("{} {}", names::name(r.strategy), if r.correct { "✓" } else { "✗" }))
                .collect::<Vec<_>>()
                .join(" · ");
            let views = results.iter().map(|r| view! { <Outcome result=r.clone() task=task.clone() budget=budget/> }).collect_view();
            view! {
                <details class="item" data-testid="item" data-task=task.id.clone()>
                    <summary>
                        <span class="question">{format!("{}. {}", i + 1, task.question)}</span>
                        <span class="marks">{marks}</span>
                    </summary>
                    <p class="meta">
                        {format!("{} · {} · accepted: {}", task.id, task.category, task.answers.join(", "))}
                    </p>
                    {views}
                </details>
            }
        })
        .collect_view();
    view! {
        <section class="items" aria-labelledby="l3-items">
            <h3 id="l3-items">"Task by task"</h3>
            <p class="note" data-testid="trace-note">
                "A visible trace is generated text, written by the same next-token process as the answer. It need not reveal what caused the model's answer: it can inform or mislead, and a trace can be wrong while the answer is right, and the other way round. Check it; do not take it as proof."
            </p>
            {items}
        </section>
    }
}

#[component]
fn Outcome(result: ItemResult, task: Task, budget: usize) -> impl IntoView {
    let strategy = result.strategy;
    let verdict = if result.correct { "correct" } else { "wrong" };
    let samples = match strategy {
        Strategy::SelfConsistency => {
            view! { <Votes result=result.clone() budget=budget/> }.into_any()
        }
        Strategy::Hidden => {
            view! { <HiddenSample sample=result.samples[0].clone() budget=budget/> }.into_any()
        }
        _ => view! { <Written sample=result.samples[0].clone() budget=budget/> }.into_any(),
    };
    view! {
        <div class="outcome" data-strategy=names::id(strategy) data-correct=result.correct.to_string()>
            <h4>
                {names::name(strategy)}
                ": "
                <span class=format!("verdict {verdict}")>{verdict}</span>
            </h4>
            <p class="meta">
                {format!(
                    "Extracted answer: {} · {} tokens ({} reasoning + {} answer) · {:.2} s",
                    result.final_answer.as_deref().unwrap_or("(none)"),
                    result.total_tokens,
                    result.reasoning_tokens,
                    result.answer_tokens,
                    result.latency_ms / 1000.0,
                )}
            </p>
            <details>
                <summary>"Prompt"</summary>
                <pre>{prompt(&task, strategy)}</pre>
                <small>"Sent as a chat message after the model's default system prompt."</small>
            </details>
            {samples}
        </div>
    }
}

/// What the model wrote for one sample: its reasoning (if any) and its answer line.
#[component]
fn Written(sample: Sample, budget: usize) -> impl IntoView {
    view! {
        {(!sample.reasoning.is_empty()).then(|| view! {
            <p class="label">{format!("Reasoning ({} tokens)", sample.reasoning_tokens)}</p>
            <pre class="trace">{sample.reasoning.clone()}</pre>
        })}
        <p class="label">{format!("Answer ({} tokens)", sample.answer_tokens)}</p>
        <pre class="trace">{sample.answer_text.clone()}</pre>
        {sample.forced_answer.then(|| view! {
            <p class="hint">{format!("The {budget}-token budget ran out, so the runner wrote \"Answer:\" and the model completed the line.")}</p>
        })}
        {(sample.truncated && !sample.forced_answer).then(|| view! {
            <p class="hint" data-testid="no-answer">{format!("The {budget}-token budget ran out before an answer line, and nothing was forced: this trace has no answer.")}</p>
        })}
    }
}

/// Hidden reasoning: the count of tokens spent, against the visible answer and the budget.
#[component]
fn HiddenSample(sample: Sample, budget: usize) -> impl IntoView {
    let (reasoning, answer) = (sample.reasoning_tokens, sample.answer_tokens);
    let scale = 300.0 / (budget.max(reasoning) + answer).max(1) as f64;
    let (r_width, a_width) = (reasoning as f64 * scale, answer as f64 * scale);
    let budget_x = budget as f64 * scale;
    view! {
        <p class="label">"Reasoning: hidden"</p>
        <svg class="token-bar" viewBox="0 0 300 24" role="img" aria-label=format!("{reasoning} hidden reasoning tokens, budget {budget}, {answer} visible answer tokens")>
            <rect class="hidden-tokens" x="0" y="4" width=r_width height="16"></rect>
            <rect class="answer-tokens" x=r_width y="4" width=a_width height="16"></rect>
            <line class="budget-mark" x1=budget_x y1="0" x2=budget_x y2="24"></line>
        </svg>
        <p class="meta" data-testid="hidden-counts">
            {format!("{reasoning} reasoning tokens spent out of sight (budget {budget}) for {answer} visible answer tokens.")}
        </p>
        <p class="label">"Visible answer"</p>
        <pre class="trace">{sample.answer_text.clone()}</pre>
    }
}

/// Self-consistency: every sample's extracted answer, and the vote over them.
#[component]
fn Votes(result: ItemResult, budget: usize) -> impl IntoView {
    let votes = result.votes.as_ref().map_or(
        "No sample gave an answer that could be checked.".to_string(),
        |v| {
            let counts = v
                .counts
                .iter()
                .map(|(a, n)| format!("{a} ({})", names::count(*n, "vote", "votes")))
                .collect::<Vec<_>>()
                .join(", ");
            let tie = match v.counts.as_slice() {
                [(_, first), (_, second), ..] if first == second => {
                    " (a tie: the answer that came first wins)"
                }
                _ => "",
            };
            format!("Votes: {counts}. Winner: {}{tie}.", v.winner)
        },
    );
    let samples = result
        .samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            view! {
                <details class="sample">
                    <summary>
                        {format!(
                            "Sample {}: {} ({} tokens)",
                            i + 1,
                            s.extracted.as_deref().unwrap_or("no answer"),
                            s.reasoning_tokens + s.answer_tokens
                        )}
                    </summary>
                    <Written sample=s.clone() budget=budget/>
                </details>
            }
        })
        .collect_view();
    view! {
        <p class="votes" data-testid="votes">{votes}</p>
        {samples}
    }
}

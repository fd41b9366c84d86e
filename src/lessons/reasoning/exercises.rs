//! "Try it": the exercises from the lesson's Markdown, each with a Check that reads the
//! runs finished in this visit (see `checks`).

use super::check_cot::cot_does_not_help;
use super::checks;
use super::lab::Lab;
use super::run::Run;
use crate::markdown::exercises::{split, Exercise};
use crate::markdown::render::to_html;
use crate::ui::exercise::Verdict;
use crate::ui::prose::Prose;
use engine::reasoning::tasks::{bundled_tasks, categories};
use leptos::prelude::*;

#[component]
pub fn Exercises(markdown: &'static str, lab: Lab) -> impl IntoView {
    let (intro, exercises) = split(markdown);
    view! {
        <Prose html=to_html(&intro, "reasoning-try")/>
        {exercises.into_iter().map(|exercise| view! { <ExerciseCard exercise=exercise lab=lab/> }).collect_view()}
    }
}

#[component]
fn ExerciseCard(exercise: Exercise, lab: Lab) -> impl IntoView {
    let Exercise {
        id,
        title,
        task,
        hint,
        answer,
    } = exercise;
    let verdict = RwSignal::new(None::<Verdict>);
    // Two exercises ask for an answer: a category, and the smallest k.
    let answer_given = RwSignal::new(String::new());
    // The newest run when the category was chosen: runs up to it were seen before the choice.
    let chosen_after = RwSignal::new(0usize);
    let asks_category = id == "ex-cot-no-help";
    let asks_k = id == "ex-pass-at-k";
    let checkable = check(&id, &[], "", 0).is_some();
    let html = |md: &str, part: &str| to_html(md, &format!("{id}-{part}"));
    let (task, hint, answer) = (
        html(&task, "task"),
        html(&hint, "hint"),
        html(&answer, "answer"),
    );
    let (check_testid, verdict_testid) = (format!("check-{id}"), format!("verdict-{id}"));
    let check_id = id.clone();
    let on_check = move |_| {
        verdict.set(check(
            &check_id,
            &lab.history.get_untracked(),
            &answer_given.get_untracked(),
            chosen_after.get_untracked(),
        ))
    };
    view! {
        <section class="exercise" data-testid=format!("exercise-{id}") aria-labelledby=id.clone()>
            <h3 id=id.clone()>{format!("Exercise: {title}")}</h3>
            <div class="prose" inner_html=task></div>
            {asks_category.then(|| {
                let options = categories(&bundled_tasks())
                    .into_iter()
                    .map(|c| view! { <option value=c.clone()>{c.clone()}</option> })
                    .collect_view();
                view! {
                    <div class="control">
                        <label for="l3-cot-category">"The category you expect (choose it before the run)"</label>
                        <select
                            id="l3-cot-category"
                            data-testid="cot-category"
                            prop:value=move || answer_given.get()
                            on:change=move |ev| {
                                let seen = lab.history.with_untracked(|h| h.iter().map(|r| r.number).max());
                                let current = lab.run.with_untracked(|r| r.as_ref().map(|r| r.number));
                                chosen_after.set(seen.max(current).unwrap_or(0));
                                answer_given.set(event_target_value(&ev))
                            }
                        >
                            <option value="">"Choose…"</option>
                            {options}
                        </select>
                    </div>
                }
            })}
            {asks_k.then(|| view! {
                <div class="control">
                    <label for="l3-smallest-k">"The smallest k (or none)"</label>
                    <input
                        id="l3-smallest-k"
                        type="text"
                        inputmode="numeric"
                        data-testid="smallest-k"
                        prop:value=move || answer_given.get()
                        on:input=move |ev| answer_given.set(event_target_value(&ev))
                    />
                </div>
            })}
            {checkable.then(|| view! {
                <div class="actions">
                    <button type="button" data-testid=check_testid on:click=on_check>"Check"</button>
                </div>
            })}
            {move || verdict.get().map(|v| view! {
                <p class=if v.pass { "verdict-text pass" } else { "verdict-text fail" } role="status" data-testid=verdict_testid.clone() data-pass=v.pass.to_string()>
                    <strong>{if v.pass { "Done. " } else { "Not yet. " }}</strong>
                    {v.message}
                </p>
            })}
            <details>
                <summary>"Hint"</summary>
                <div class="prose" inner_html=hint></div>
            </details>
            <details>
                <summary>"Model answer"</summary>
                <div class="prose" inner_html=answer></div>
            </details>
        </section>
    }
}

/// The check of each exercise in the lesson's Markdown; one without a check gets no button.
fn check(id: &str, history: &[Run], answer: &str, chosen_after: usize) -> Option<Verdict> {
    match id {
        "ex-token-budget" => Some(checks::bigger_budget(history)),
        "ex-self-consistency" => Some(checks::self_consistency_vs_direct(history)),
        "ex-cot-no-help" => Some(cot_does_not_help(history, answer, chosen_after)),
        "ex-pass-at-k" => Some(checks::pass_at_k_beats_greedy(history, answer)),
        _ => None,
    }
}

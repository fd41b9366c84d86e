//! "Try it": the lesson's exercises (from its Markdown), each checked live against the
//! page's state, with its hint and model answer, and the learner's progress.

use super::base_instruct::BaseInstruct;
use super::checks::check;
use crate::ui::exercise::Verdict;
use super::live::Live;
use super::progress;
use crate::markdown::exercises::Exercise;
use crate::markdown::render::to_html;
use leptos::prelude::*;
use std::collections::BTreeSet;

#[component]
pub fn Exercises(list: Vec<Exercise>) -> impl IntoView {
    let lesson = expect_context::<Live>();
    let base_instruct = expect_context::<BaseInstruct>();
    let done = RwSignal::new(progress::load());
    let total = list.len();
    view! {
        <section class="exercises" data-testid="exercises" aria-label="Exercises">
            <p class="exercise-progress" data-testid="exercise-progress">
                {move || format!("Solved: {} of {total} (kept in this browser).", done.with(|d| d.len()))}
                " "
                <button
                    type="button"
                    data-testid="forget-progress"
                    disabled=move || done.with(|d| d.is_empty())
                    on:click=move |_| {
                        done.set(BTreeSet::new());
                        progress::save(&BTreeSet::new());
                    }
                >
                    "Forget progress"
                </button>
            </p>
            {list.into_iter().map(|e| exercise(lesson, base_instruct, done, e)).collect_view()}
        </section>
    }
}

fn exercise(lesson: Live, base_instruct: BaseInstruct, done: RwSignal<BTreeSet<String>>, e: Exercise) -> impl IntoView {
    let id = e.id.clone();
    let verdict = Memo::new(move |_| {
        let repeats = lesson.repeats.get();
        lesson.settings.with(|s| {
            lesson.snapshot.with(|snap| {
                base_instruct.runs.with(|runs| check(&id, s, snap.as_ref(), repeats, runs))
            })
        })
    });
    let id = e.id.clone();
    Effect::new(move |_| {
        if verdict.with(|v| v.as_ref().is_some_and(|v| v.pass))
            && !done.with_untracked(|d| d.contains(&id))
        {
            done.update(|d| {
                d.insert(id.clone());
            });
            done.with_untracked(progress::save);
        }
    });
    let solved = Memo::new({
        let id = e.id.clone();
        move |_| done.with(|d| d.contains(&id))
    });
    let html = |part: &str, name: &str| to_html(part, &format!("{}-{name}", e.id));
    view! {
        <article
            class="exercise"
            data-testid=format!("exercise-{}", e.id)
            data-pass=move || verdict.with(|v| v.as_ref().map(|v| v.pass.to_string()))
            data-done=move || solved.get().to_string()
        >
            <h3 id=e.id.clone()>{format!("Exercise: {}", e.title)}</h3>
            <div class="task" inner_html=html(&e.task, "task")></div>
            <p class="verdict" role="status" data-testid="verdict">
                {move || match verdict.get() {
                    None => "Waiting for the model…".to_string(),
                    Some(Verdict { pass: true, message }) => format!("✓ Solved now. {message}"),
                    Some(Verdict { pass: false, message }) => format!("Not yet. {message}"),
                }}
                {move || {
                    let now = verdict.with(|v| v.as_ref().is_some_and(|v| v.pass));
                    (solved.get() && !now).then_some(" You solved it before; that stays recorded.")
                }}
            </p>
            <details>
                <summary>"Hint"</summary>
                <div inner_html=html(&e.hint, "hint")></div>
            </details>
            <details>
                <summary>"Model answer"</summary>
                <div inner_html=html(&e.answer, "answer")></div>
            </details>
        </article>
    }
}

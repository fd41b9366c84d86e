//! The lesson's exercises: the task and hint from the Markdown, a check against the live
//! state of the lab, and the model answer behind a disclosure.

mod cache_off;
pub mod check;
mod prompt_and_answer;
mod speculation;

use super::lab::Lab;
use crate::ui::prose::Prose;
use crate::markdown::exercises::Exercise;
use crate::markdown::render::to_html;
use leptos::prelude::*;

#[component]
pub fn ExerciseCard(exercise: Exercise, lab: Lab) -> impl IntoView {
    let check = match exercise.id.as_str() {
        "ex-prompt-and-answer" => view! { <prompt_and_answer::PromptAndAnswer/> }.into_any(),
        "ex-cache-off" => view! { <cache_off::CacheOff lab=lab/> }.into_any(),
        "ex-speculation-faster" => view! { <speculation::Faster lab=lab/> }.into_any(),
        "ex-speculation-slower" => view! { <speculation::Slower lab=lab/> }.into_any(),
        _ => view! { <p class="hint">"This exercise has no live check."</p> }.into_any(),
    };
    // The heading, the task and the hint, rendered as the lesson's own Markdown.
    let task = format!(
        "### Exercise: {} {{#{}}}\n{}\n\n**Hint:** {}",
        exercise.title, exercise.id, exercise.task, exercise.hint
    );
    view! {
        <section class="exercise" data-testid=exercise.id.clone()>
            <Prose html=to_html(&task, &exercise.id)/>
            {check}
            <details>
                <summary>"Model answer"</summary>
                <Prose html=to_html(&exercise.answer, &format!("{}-answer", exercise.id))/>
            </details>
        </section>
    }
}

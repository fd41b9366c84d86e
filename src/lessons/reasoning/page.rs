//! `/learn/reasoning`: Lesson 3. Its text, with the run's controls and each part of the
//! run's evidence where the text marks them (`<!-- lab: NAME -->`: `run` for the controls,
//! the others in `evidence.rs`), each beside the section it tests, then "Try it" with a
//! check beside each exercise.

use crate::routes::set_title;
use super::evidence::evidence;
use super::run_link::CONTROLS_ID;
use super::lab::needs_chat;
use super::{Exercises, Lab, Runner};
use crate::ui::measured_on::MeasuredOn;
use crate::ui::prose::{prose_with, LAB_MARKER};
use crate::ui::toc::LessonToc;
use crate::routes::Lesson;
use crate::markdown::render::{to_html, INTERACTIVE_MARKER};
use crate::model_choice::Choice;
use crate::model_file::default_built_in;
use leptos::prelude::*;

#[component]
pub fn Reasoning() -> impl IntoView {
    let lesson = Lesson::Reasoning;
    set_title(&lesson.title());
    // This page runs the model: it loads now, if no earlier page loaded it.
    expect_context::<crate::bridge::Bridge>().need_model();
    let (before, after) = lesson
        .markdown()
        .split_once(INTERACTIVE_MARKER)
        .unwrap_or((lesson.markdown(), ""));
    let html = to_html(before, lesson.slug());
    let lab = Lab::new();
    view! {
        <article class="lesson" data-testid="lesson-reasoning">
            <LessonToc/>
            {prose_with(&html, LAB_MARKER, move |name| panel(name, lab))}
            <Exercises markdown=after lab=lab/>
        </article>
    }
}

fn panel(name: &str, lab: Lab) -> AnyView {
    if name == "run" {
        return view! { <Controls lab=lab/> }.into_any();
    }
    evidence(name, lab).unwrap_or_else(|| {
        web_sys::console::warn_1(&format!("reasoning.md names an unknown lab: {name}").into());
        ().into_any()
    })
}

/// The run's settings, Run and Cancel, and its progress, with what the loaded model means
/// for the lab.
#[component]
fn Controls(lab: Lab) -> impl IntoView {
    let choice = expect_context::<crate::bridge::Bridge>().choice();
    let notice = move || {
        let default = default_built_in();
        let name = choice.get().name();
        if lab.engine.base_model() {
            Some(view! {
                <p class="notice" data-testid="reasoning-needs-chat">{needs_chat(&name, default.name)}</p>
            }.into_any())
        } else {
            (choice.get() != Choice::BuiltIn(default)).then(|| view! {
                <p class="notice" data-testid="model-dependence">
                    {format!(
                        "This lab runs {name}, the model loaded now. Its task set, its prompts and the figures this lesson quotes were written for {}: another model's results show that model. Pick {} above to run the lesson as written.",
                        default.name, default.name
                    )}
                </p>
            }.into_any())
        }
    };
    view! {
        <section class="lab" data-testid="interactive-reasoning" aria-labelledby=CONTROLS_ID>
            <h2 id=CONTROLS_ID>"Run an experiment"</h2>
            <MeasuredOn saved_by=Some(lab.restored_from.into())/>
            <p>"One run feeds every section below: each shows its part of the run beside its text, with a link back here."</p>
            {notice}
            <Runner lab=lab/>
        </section>
    }
}

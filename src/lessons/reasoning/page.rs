//! `/learn/reasoning`: Lesson 3. Its text, with the faithfulness panels where the text marks
//! them (`<!-- lab: faithfulness -->`, beside "A trace is not an explanation"), the
//! experiment runner where it marks it (`<!-- interactive -->`), then "Try it" with a check
//! beside each exercise.

use crate::routes::set_title;
use super::{DepthPanel, Exercises, FaithfulnessPanel, Lab, Results, Runner};
use crate::ui::measured_on::MeasuredOn;
use crate::ui::prose::Prose;
use crate::ui::toc::LessonToc;
use crate::routes::Lesson;
use crate::markdown::render::{to_html, INTERACTIVE_MARKER};
use crate::model_choice::Choice;
use crate::model_file::default_built_in;
use leptos::prelude::*;

/// Where the text wants the faithfulness panels.
const FAITHFULNESS_MARKER: &str = "<!-- lab: faithfulness -->";

#[component]
pub fn Reasoning() -> impl IntoView {
    let lesson = Lesson::Reasoning;
    set_title(&lesson.title());
    // This page runs the model: it loads now, if no earlier page loaded it.
    let bridge = expect_context::<crate::bridge::Bridge>();
    bridge.need_model();
    let choice = bridge.choice();
    let (before, after) = lesson
        .markdown()
        .split_once(INTERACTIVE_MARKER)
        .unwrap_or((lesson.markdown(), ""));
    let html = to_html(before, lesson.slug());
    let (text, more_text) = html.split_once(FAITHFULNESS_MARKER).unwrap_or((&html, ""));
    let (text, more_text) = (text.to_string(), more_text.to_string());
    let lab = Lab::new();
    view! {
        <article class="lesson" data-testid="lesson-reasoning">
            <LessonToc/>
            <Prose html=text/>
            <MeasuredOn/>
            <FaithfulnessPanel lab=lab/>
            <Prose html=more_text/>
            <section class="lab" data-testid="interactive-reasoning" aria-labelledby="l3-lab">
                <h2 id="l3-lab">"Run an experiment"</h2>
                <MeasuredOn/>
                {move || {
                    let default = default_built_in();
                    (choice.get() != Choice::BuiltIn(default)).then(|| view! {
                        <p class="notice" data-testid="model-dependence">
                            {format!(
                                "This lab runs {}, the model loaded now. Its task set, its prompts and the figures this lesson quotes were written for {}, an instruct model: another model's results show that model, and a base model has no chat template for the strategies' prompts. Pick {} above to run the lesson as written.",
                                choice.get().name(), default.name, default.name
                            )}
                        </p>
                    })
                }}
                <Runner lab=lab/>
                <Results lab=lab/>
                <DepthPanel lab=lab/>
            </section>
            <Exercises markdown=after lab=lab/>
        </article>
    }
}

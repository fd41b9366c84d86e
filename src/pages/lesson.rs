//! `/learn/…`: a lesson's text, with its interactive part where the text marks it
//! (`<!-- interactive -->`), or at the end.

use crate::app::set_title;
use crate::components::{interactive::Interactive, prose::Prose};
use crate::lessons::Lesson;
use crate::markdown::render::{to_html, INTERACTIVE_MARKER};
use leptos::prelude::*;

#[component]
pub fn LessonPage(lesson: Lesson) -> impl IntoView {
    set_title(&lesson.title());
    let html = to_html(lesson.markdown(), lesson.slug());
    let (before, after) = match html.split_once(INTERACTIVE_MARKER) {
        Some((before, after)) => (before.to_string(), after.to_string()),
        None => (html, String::new()),
    };
    view! {
        <article class="lesson" data-testid=format!("lesson-{}", lesson.slug())>
            <Prose html=before/>
            <Interactive lesson=lesson/>
            <Prose html=after/>
        </article>
    }
}

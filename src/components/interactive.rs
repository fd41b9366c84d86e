//! Where each lesson's interactive part will mount. The parts are built in their own
//! issues; until then the page says so plainly rather than showing made-up numbers.

use crate::lessons::Lesson;
use leptos::prelude::*;

#[component]
pub fn Interactive(lesson: Lesson) -> impl IntoView {
    let slug = lesson.slug();
    view! {
        <section class="interactive" data-testid=format!("interactive-{slug}") data-lesson=slug aria-label="Interactive part of this lesson">
            <h2>"Try it on the model"</h2>
            <p class="pending">
                "The interactive part of this lesson is not built yet. It will run here, on the model loaded above. Meanwhile, the "
                <a href="/playground">"Playground"</a>
                " lets you try every setting on the real model."
            </p>
        </section>
    }
}

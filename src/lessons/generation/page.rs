//! `/learn/generation`, Lesson 1: the lesson's text, its live tool where the text marks it
//! (`<!-- interactive -->`), then its exercises, checked against the tool's state.

use crate::routes::set_title;
use crate::bridge::{Bridge, ModelStatus};
use crate::ui::address_bar as url;
use super::{
    base_instruct::{BaseInstruct, BaseInstructPanel}, candidates::Candidates, compare::Compare, controls::Controls, exercises::Exercises,
    formula::Formula, live::{Live, DEFAULT_PROMPT}, mini::MiniLive, notices::Notices, order_compare::OrderCompare,
    readout::Readout, sample::Sample, stages::Stages, stepper::Stepper, strip::TokenStrip,
    systems_table::SystemsTable,
};
use crate::ui::measured_on::MeasuredOn;
use crate::ui::prose::{prose_with, Prose};
use crate::ui::toc::LessonToc;
use crate::ui::settings_query::to_query;
use crate::routes::Lesson;
use crate::markdown::exercises;
use crate::markdown::render::{to_html, INTERACTIVE_MARKER};
use engine::SamplerSettings;
use leptos::prelude::*;

#[component]
pub fn GenerationPage() -> impl IntoView {
    let lesson = Lesson::Generation;
    set_title(&lesson.title());
    let bridge = expect_context::<Bridge>();
    // This page runs the model: it loads now, if no earlier page loaded it.
    bridge.need_model();
    let (text, exercises) = exercises::split(lesson.markdown());
    let html = to_html(&text, lesson.slug());
    let (before, after) = match html.split_once(INTERACTIVE_MARKER) {
        Some((before, after)) => (before.to_string(), after.to_string()),
        None => (html, String::new()),
    };

    let live = Live::new(
        bridge,
        url::read(SamplerSettings::default(), DEFAULT_PROMPT),
    );
    provide_context(live);
    BaseInstruct::provide();
    let (settings, prompt) = (live.settings, live.prompt);
    url::keep(Lesson::Generation.path(), move || {
        to_query(&settings.get(), &prompt.get())
    });
    // Whenever the model is ready: at once, or after a restarted worker has reloaded it.
    Effect::new(move |_| {
        if matches!(bridge.status().get(), ModelStatus::Ready(_)) {
            live.connect();
        }
    });
    on_cleanup(move || {
        live.auto.try_set(false);
    });

    view! {
        <article class="lesson" data-testid="lesson-generation">
            <LessonToc/>
            {prose_with(&before, LIVE_MARKER, |name| view! { <MiniLive concept=name.to_string()/> }.into_any())}
            <section class="interactive lesson1" data-testid="interactive-generation" data-lesson="generation" aria-labelledby="tool-title">
                <h2 id="tool-title">"Try it on the model"</h2>
                <MeasuredOn/>
                <Notices/>
                <Stepper/>
                <TokenStrip/>
                <Controls/>
                <Readout/>
                <Stages/>
                <OrderCompare/>
                <SystemsTable/>
                <Candidates/>
                <Sample/>
                <Formula/>
                <Compare/>
                <BaseInstructPanel/>
            </section>
            <Prose html=after/>
            <Exercises list=exercises/>
        </article>
    }
}

/// Where the text says `<!-- live: NAME -->`: a small live view of that concept.
const LIVE_MARKER: &str = "<!-- live: ";

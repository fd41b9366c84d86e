//! `/learn/stages`, Lesson 2: the lesson's text with its measuring panels where the text
//! marks them (`<!-- lab: name -->`), and its exercises, each checked against what the
//! panels measured.

use crate::routes::set_title;
use super::{
    cache_panel::CachePanel, capacity_panel::CapacityPanel, exercises::ExerciseCard,
    inside_panel::InsidePanel, lab::Lab, memory_panel::MemoryPanel, pass_cost::PassCostPanel,
    pass_drawing::PassDrawingPanel,
    prefill_panel::PrefillPanel, reuse_panel::ReusePanel, saved_measurements,
    serving_panel::ServingPanel, spec_panel::SpecPanel,
    sweep_panel::SweepPanel, timeline_labels::TimelineLabels,
};
use crate::ui::measured_on::MeasuredOn;
use crate::ui::prose::{prose_with, LAB_MARKER};
use crate::ui::toc::LessonToc;
use crate::routes::Lesson;
use crate::markdown::{exercises, render::to_html};
use leptos::prelude::*;

#[component]
pub fn StagesPage() -> impl IntoView {
    let lesson = Lesson::Stages;
    set_title(&lesson.title());
    // This page runs the model: it loads now, if no earlier page loaded it.
    expect_context::<crate::bridge::Bridge>().need_model();
    let lab = Lab::new();
    let (prose, exercises) = exercises::split(lesson.markdown());
    let html = to_html(&prose, lesson.slug());
    view! {
        <article class="lesson" data-testid="lesson-stages">
            <LessonToc/>
            <div data-testid="interactive-stages" data-lesson="stages">
                {prose_with(&html, LAB_MARKER, |name| measured(name, lab))}
                {exercises.into_iter().map(|exercise| view! { <ExerciseCard exercise=exercise lab=lab/> }).collect_view()}
            </div>
        </article>
    }
}

/// A lab, after the line that says which model its numbers come from.
fn measured(name: &str, lab: Lab) -> AnyView {
    // The labs that save may show measurements saved earlier.
    let saving = saved_measurements::labs_under(name);
    let saved_by = (!saving.is_empty())
        .then(|| Signal::derive(move || saving.iter().find_map(|l| lab.restored_by(l))));
    view! {
        <MeasuredOn saved_by=saved_by/>
        {panel(name, lab)}
    }
    .into_any()
}

fn panel(name: &str, lab: Lab) -> AnyView {
    match name {
        "prefill-decode" => view! { <PrefillPanel lab=lab/> <SweepPanel lab=lab/> }.into_any(),
        "cache" => view! { <CachePanel lab=lab/> }.into_any(),
        "timeline-labels" => view! { <TimelineLabels lab=lab/> }.into_any(),
        "memory" => view! { <MemoryPanel lab=lab/> }.into_any(),
        "reuse" => view! { <ReusePanel lab=lab/> }.into_any(),
        "speculative" => view! { <SpecPanel lab=lab/> }.into_any(),
        "inside" => view! { <InsidePanel lab=lab/> }.into_any(),
        "pass-cost" => view! { <PassCostPanel lab=lab/> }.into_any(),
        "pass-drawing" => view! { <PassDrawingPanel lab=lab/> }.into_any(),
        "capacity" => view! { <CapacityPanel lab=lab/> }.into_any(),
        "serving" => view! { <ServingPanel lab=lab/> }.into_any(),
        other => {
            web_sys::console::warn_1(&format!("stages.md names an unknown lab: {other}").into());
            ().into_any()
        }
    }
}

//! The way back to the run's controls from every part of its evidence, with the run's state:
//! the parts sit beside the text, far down the page from the controls.

use super::lab::Lab;
use super::run::RunState;
use super::names;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The id of the controls' heading (`page.rs`).
pub const CONTROLS_ID: &str = "l3-lab";

#[component]
pub fn RunLink(lab: Lab) -> impl IntoView {
    let state = move || lab.run.with(|r| r.as_ref().map(|r| r.state.clone()));
    let number = move || lab.run.with(|r| r.as_ref().map_or(0, |r| r.number));
    let text = move || {
        let p = lab.progress.get();
        lab.run.with(|run| match run {
            None => "No run yet: choose its settings and press Run experiment".to_string(),
            Some(run) => {
                let tasks = names::count(run.tasks.len(), "task", "tasks");
                match run.state {
                    RunState::Running => format!("Run {} is running ({} of {} task runs done): follow it or cancel it", run.number, p.done, p.total),
                    RunState::Left => format!("From run {} ({} of {tasks} kept when you left the page): change its settings and run again", run.number, run.complete_tasks()),
                    _ => format!("From run {} ({}, {tasks}): change its settings and run again", run.number, run.state.name()),
                }
            }
        })
    };
    // A plain "#id" would be resolved against the page's <base href>: the home page.
    let href = move || format!("{}#{CONTROLS_ID}", window().location().pathname().unwrap_or_default());
    let go = move |ev: web_sys::MouseEvent| {
        ev.prevent_default();
        if let Some(heading) = document().get_element_by_id(CONTROLS_ID) {
            heading.scroll_into_view();
            if let Ok(heading) = heading.dyn_into::<web_sys::HtmlElement>() {
                heading.set_tab_index(-1);
                let _ = heading.focus();
            }
        }
    };
    view! {
        <p class="run-link" data-testid="run-link" data-run=number data-state=move || state().map_or("none", |s| s.name())>
            <a href=href on:click=go>{text}" ↑"</a>
        </p>
    }
}

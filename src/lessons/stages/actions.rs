//! A panel's Run and Stop buttons. Run waits for the model and for any other panel's
//! request (the engine does one thing at a time); Stop cancels this panel's request. Below
//! them: why the panel's last measurement could not be saved, if it could not (the lab it
//! saves as is the panel's name unless `saves` names another).

use super::lab::Lab;
use leptos::prelude::*;

#[component]
pub fn Actions(
    lab: Lab,
    panel: &'static str,
    label: &'static str,
    on_run: impl Fn() + 'static,
    /// Whether the panel has what Run needs (besides a free engine).
    #[prop(optional, into)]
    enabled: Option<Signal<bool>>,
    #[prop(optional)]
    saves: Option<&'static str>,
) -> impl IntoView {
    let saves = saves.unwrap_or(panel);
    let enabled = move || enabled.is_none_or(|e| e.get());
    view! {
        <div class="actions">
            <button type="button" class="run" data-testid=format!("{panel}-run") disabled=move || !lab.engine.can_run() || !enabled() on:click=move |_| on_run()>
                {label}
            </button>
            <button type="button" data-testid=format!("{panel}-stop") disabled=move || !lab.engine.running_in(panel) on:click=move |_| lab.engine.stop()>
                "Stop"
            </button>
        </div>
        {move || lab.save_problem.get().filter(|(lab, _)| *lab == saves).map(|(_, problem)| view! {
            <p class="error" role="alert" data-testid="save-error">{problem}</p>
        })}
    }
}

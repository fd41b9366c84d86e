//! The prompt, and stepping through the answer: Step, Rewind, Auto-run with Pause. Forcing
//! a token is clicking its bar (`Candidates`).

use super::live::{Live, DEFAULT_PROMPT};
use crate::ui::settings_query::MAX_PROMPT_CHARS;
use leptos::prelude::*;

#[component]
pub fn Stepper() -> impl IntoView {
    let lesson = expect_context::<Live>();
    let draft = RwSignal::new(lesson.prompt.get_untracked());
    let no_run = move || lesson.run.with(|r| r.is_none());
    let ended = move || lesson.run.with(|r| r.as_ref().is_some_and(|r| r.ended()));
    let generated = move || lesson.run.with(|r| r.as_ref().map_or(0, |r| r.steps.len()));
    view! {
        <form
            class="l1-prompt"
            on:submit=move |ev| {
                ev.prevent_default();
                lesson.open(draft.get_untracked());
            }
        >
            <label for="l1-prompt">"Prompt"</label>
            <textarea
                id="l1-prompt"
                data-testid="prompt"
                rows="2"
                maxlength=MAX_PROMPT_CHARS
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
            ></textarea>
            <button type="submit" data-testid="start" disabled=move || lesson.busy.get()>
                "Start from this prompt"
            </button>
            <button type="button" data-testid="prompt-example" hidden=move || draft.with(|d| d == DEFAULT_PROMPT)
                on:click=move |_| draft.set(DEFAULT_PROMPT.into())>
                "Back to the example prompt"
            </button>
        </form>
        <div class="actions stepper">
            <button
                type="button"
                data-testid="step"
                disabled=move || no_run() || ended() || lesson.busy.get() || lesson.auto.get()
                on:click=move |_| lesson.step()
            >
                "Step"
            </button>
            <button
                type="button"
                data-testid="rewind"
                disabled=move || generated() == 0 || lesson.busy.get()
                on:click=move |_| lesson.rewind()
            >
                "Rewind"
            </button>
            <button
                type="button"
                data-testid="auto"
                aria-pressed=move || lesson.auto.get().to_string()
                disabled=move || no_run() || (ended() && !lesson.auto.get())
                on:click=move |_| lesson.toggle_auto()
            >
                {move || if lesson.auto.get() { "Pause" } else { "Auto-run" }}
            </button>
            <span class="hint" aria-live="polite">
                {move || match (no_run(), ended()) {
                    (true, _) => "Waiting for the model…".to_string(),
                    (false, true) => format!("{} tokens; the model ended its answer.", generated()),
                    (false, false) => format!("{} tokens generated. Click a bar to force that token.", generated()),
                }}
            </span>
        </div>
    }
}

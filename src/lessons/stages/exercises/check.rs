//! An exercise's Check button and its verdict: passed, or what is missing or wrong.

use leptos::prelude::*;

/// Passed with a note on what was measured, or failed with what to try.
pub type Verdict = Result<String, String>;

#[component]
pub fn Check(id: &'static str, check: impl Fn() -> Verdict + 'static) -> impl IntoView {
    let verdict = RwSignal::new(None::<Verdict>);
    view! {
        <div class="check-row">
            <button type="button" data-testid=format!("{id}-check") on:click=move |_| verdict.set(Some(check()))>"Check"</button>
            <p class="verdict" role="status" data-testid=format!("{id}-result")
                data-state=move || verdict.with(|v| v.as_ref().map(|v| if v.is_ok() { "pass" } else { "fail" }))>
                {move || verdict.get().map(|v| match v {
                    Ok(note) => format!("Correct. {note}"),
                    Err(why) => format!("Not yet. {why}"),
                })}
            </p>
        </div>
    }
}

//! An exercise's Check button and its verdict: passed, or what is missing or wrong.

use crate::ui::exercise::Verdict;
use leptos::prelude::*;

/// A check passes with `Ok(what was measured)`, or says `Err(what to try)`.
pub type Outcome = Result<String, String>;

#[component]
pub fn Check(id: &'static str, check: impl Fn() -> Outcome + 'static) -> impl IntoView {
    let verdict = RwSignal::new(None::<Verdict>);
    view! {
        <div class="check-row">
            <button type="button" data-testid=format!("{id}-check") on:click=move |_| verdict.set(Some(Verdict::from(check())))>"Check"</button>
            <p class="verdict" role="status" data-testid=format!("{id}-result")
                data-state=move || verdict.with(|v| v.as_ref().map(|v| if v.pass { "pass" } else { "fail" }))>
                {move || verdict.get().map(|v| if v.pass {
                    format!("Correct. {}", v.message)
                } else {
                    format!("Not yet. {}", v.message)
                })}
            </p>
        </div>
    }
}

//! The engine's thread count, a setting of the engine rather than of the sampler: results
//! are bit-identical at every count, only the speed changes. Kept for the next visit.

use crate::bridge::Bridge;
use leptos::prelude::*;

#[component]
pub fn EngineThreads() -> impl IntoView {
    let bridge = expect_context::<Bridge>();
    let threads = bridge.threads();
    let hint = move || {
        threads.with(|t| match &t.single {
            Some(reason) => format!("One thread: {reason}."),
            None if t.max == 0 => "The engine is starting its threads.".to_string(),
            None => format!(
                "Each forward pass splits its matrix products over this many threads, up to {}. The text is the same at every count; only the speed changes.",
                t.max
            ),
        })
    };
    view! {
        <div class="control">
            <label for="engine-threads">"Engine threads"</label>
            <select
                id="engine-threads"
                data-testid="threads-setting"
                aria-describedby="engine-threads-hint"
                disabled=move || threads.with(|t| t.max <= 1)
                on:change=move |ev| {
                    if let Ok(n) = event_target_value(&ev).parse::<usize>() {
                        bridge.set_threads(n);
                    }
                }
            >
                {move || {
                    let t = threads.get();
                    (1..=t.max)
                        .map(|n| view! { <option value=n.to_string() selected=n == t.using>{n.to_string()}</option> })
                        .collect_view()
                }}
            </select>
            <small id="engine-threads-hint">{hint}</small>
        </div>
    }
}

//! How far the model has read a long prompt. A prefill of a thousand tokens takes tens of
//! seconds in a browser, before any token appears: without this the page would look frozen.
//! One bar for the whole site, at the foot of the window, whichever lab sent the request
//! (the engine reports each slice; `Bridge::prefill`), with a Stop.

use crate::bridge::Bridge;
use crate::digits::grouped;
use leptos::prelude::*;

#[component]
pub fn PrefillProgress() -> impl IntoView {
    let bridge = expect_context::<Bridge>();
    let prefill = bridge.prefill();
    move || {
        prefill.get().map(|p| {
            view! {
                <div class="prefill-progress" role="status" data-testid="prefill-progress" data-done=p.done data-total=p.total>
                    <label for="prefill-bar">"Reading the prompt"</label>
                    <progress id="prefill-bar" max=p.total as f64 value=p.done as f64></progress>
                    <span aria-live="off">{format!("{} of {} tokens", grouped(p.done), grouped(p.total))}</span>
                    // The request's own lab has a Stop too, but may be scrolled out of view.
                    <button type="button" data-testid="prefill-stop" on:click=move |_| bridge.cancel(p.id)>"Stop"</button>
                </div>
            }
        })
    }
}

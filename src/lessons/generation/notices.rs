//! What the learner must know before trusting the picture: the settings a link asked for
//! that were changed, and the last thing that went wrong.

use super::live::Live;
use leptos::prelude::*;

#[component]
pub fn Notices() -> impl IntoView {
    let lesson = expect_context::<Live>();
    view! {
        {move || {
            let notices = lesson.notices.get();
            (!notices.is_empty()).then(|| {
                view! {
                    <div class="url-notice" role="status" data-testid="url-notice">
                        <p>"This link's settings were adjusted:"</p>
                        <ul>{notices.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                        <button type="button" on:click=move |_| lesson.notices.set(Vec::new())>"Dismiss"</button>
                    </div>
                }
            })
        }}
        {move || lesson.problem.get().map(|p| view! { <p class="error" role="alert" data-testid="lesson-error">{p}</p> })}
    }
}

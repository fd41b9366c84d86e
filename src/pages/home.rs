//! `/`: what the site teaches, and the three lessons as a path (home.md).

use crate::app::set_title;
use crate::components::prose::Prose;
use crate::markdown::{render::to_html, sources};
use leptos::prelude::*;

#[component]
pub fn Home() -> impl IntoView {
    set_title("Home");
    view! {
        <article class="home">
            <Prose html=to_html(sources::HOME, "home")/>
        </article>
    }
}

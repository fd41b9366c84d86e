//! `/`: what the site teaches, and the three lessons as a path (home.md).

use crate::routes::set_title;
use crate::ui::prose::Prose;
use crate::content;
use crate::markdown::render::to_html;
use leptos::prelude::*;

#[component]
pub fn Home() -> impl IntoView {
    set_title("Home");
    view! {
        <article class="home">
            <Prose html=to_html(&content::HOME, "home")/>
        </article>
    }
}

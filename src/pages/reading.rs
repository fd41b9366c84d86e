//! `/reading`: books and papers for going further.

use crate::app::set_title;
use crate::components::prose::Prose;
use crate::markdown::{render::to_html, sources};
use leptos::prelude::*;

#[component]
pub fn Reading() -> impl IntoView {
    set_title("Reading");
    view! {
        <article class="reading">
            <Prose html=to_html(sources::READING, "reading")/>
        </article>
    }
}

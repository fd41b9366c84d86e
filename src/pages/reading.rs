//! `/reading`: books and papers for going further.

use crate::routes::set_title;
use crate::ui::prose::Prose;
use crate::content;
use crate::markdown::render::to_html;
use leptos::prelude::*;

#[component]
pub fn Reading() -> impl IntoView {
    set_title("Reading");
    view! {
        <article class="reading">
            <Prose html=to_html(&content::READING, "reading")/>
        </article>
    }
}

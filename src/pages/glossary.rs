//! `/glossary`: every term under its own id, so that `/glossary#kv-cache` lands on it.

use crate::routes::set_title;
use crate::ui::prose::Prose;
use crate::content;
use crate::markdown::render::to_html;
use leptos::prelude::*;

#[component]
pub fn Glossary() -> impl IntoView {
    set_title("Glossary");
    view! {
        <article class="glossary">
            <Prose html=to_html(&content::GLOSSARY, "glossary")/>
        </article>
    }
}

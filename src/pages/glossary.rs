//! `/glossary`: every term under its own id, so that `/glossary#kv-cache` lands on it.

use crate::app::set_title;
use crate::components::prose::Prose;
use crate::markdown::{render::to_html, sources};
use leptos::prelude::*;

#[component]
pub fn Glossary() -> impl IntoView {
    set_title("Glossary");
    view! {
        <article class="glossary">
            <Prose html=to_html(sources::GLOSSARY, "glossary")/>
        </article>
    }
}

//! Rendered Markdown, with the panels its text places by name (`<!-- lab: NAME -->`, Lesson 1's `<!-- live: NAME -->`), and
//! the jump to `#fragment` once it exists: on a deep link the browser looks for the fragment
//! before the page has rendered it.

use leptos::prelude::*;

#[component]
pub fn Prose(html: String) -> impl IntoView {
    Effect::new(move |_| request_animation_frame(scroll_to_hash));
    view! { <div class="prose" inner_html=html></div> }
}

/// Where a lesson's text places one of its panels: `<!-- lab: NAME -->`.
pub const LAB_MARKER: &str = "<!-- lab: ";

/// The rendered text with each marked panel (`panel(NAME)`) where its `marker`
/// (`<!-- KIND: NAME -->`, e.g. `LAB_MARKER`) stands, so that a section's evidence follows
/// its own text.
pub fn prose_with(html: &str, marker: &str, panel: impl Fn(&str) -> AnyView) -> AnyView {
    let mut parts = html.split(marker);
    let first = parts.next().unwrap_or_default().to_string();
    let labs = parts
        .map(|part| {
            let (name, rest) = part.split_once(" -->").unwrap_or((part, ""));
            view! {
                {panel(name)}
                <Prose html=rest.to_string()/>
            }
        })
        .collect_view();
    view! {
        <Prose html=first/>
        {labs}
    }
    .into_any()
}

fn scroll_to_hash() {
    let Ok(hash) = window().location().hash() else {
        return;
    };
    let Some(id) = hash.strip_prefix('#').filter(|id| !id.is_empty()) else {
        return;
    };
    let id = js_sys::decode_uri_component(id)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| id.to_string());
    if let Some(target) = document().get_element_by_id(&id) {
        target.scroll_into_view();
        target.class_list().add_1("targeted").ok();
    }
}

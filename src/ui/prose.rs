//! Rendered Markdown, and the jump to `#fragment` once it exists: on a deep link the
//! browser looks for the fragment before the page has rendered it.

use leptos::prelude::*;

#[component]
pub fn Prose(html: String) -> impl IntoView {
    Effect::new(move |_| request_animation_frame(scroll_to_hash));
    view! { <div class="prose" inner_html=html></div> }
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

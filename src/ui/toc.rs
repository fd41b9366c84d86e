//! A long lesson's contents: its sections and, under each, its labs, read from the page once
//! it is drawn (the prose's headings get ids from `markdown::render`, the labs' own headings
//! carry theirs), in a bar that stays at the top of the window while the lesson scrolls,
//! folded until opened.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[component]
pub fn LessonToc() -> impl IntoView {
    // (is a lab, id, text), in page order.
    let sections = RwSignal::new(Vec::<(bool, String, String)>::new());
    let open = RwSignal::new(false);
    let nav = NodeRef::<leptos::html::Nav>::new();
    // After the lesson around it is in the document.
    Effect::new(move |_| {
        let Some(nav) = nav.get() else { return };
        let Some(article) = nav.closest("article").ok().flatten() else { return };
        let Ok(headings) = article.query_selector_all("h2[id], .lab-panel > h3[id]") else { return };
        let found = (0..headings.length())
            .filter_map(|i| headings.item(i)?.dyn_into::<web_sys::Element>().ok())
            .filter_map(|h| Some((h.tag_name() == "H3", h.id(), h.text_content()?.trim().to_string())))
            .collect();
        sections.set(found);
    });
    let go = move |ev: web_sys::MouseEvent, id: String| {
        // A plain "#id" would be resolved against the page's <base href>: the home page.
        ev.prevent_default();
        open.set(false);
        if let Some(target) = document().get_element_by_id(&id) {
            target.scroll_into_view();
            if let Ok(heading) = target.dyn_into::<web_sys::HtmlElement>() {
                heading.set_tab_index(-1);
                let _ = heading.focus();
            }
        }
    };
    view! {
        <nav class="lesson-toc" data-testid="lesson-toc" aria-label="In this lesson" node_ref=nav>
            <details prop:open=move || open.get() on:toggle=move |ev| {
                open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())
            }>
                <summary>"In this lesson"</summary>
                <ol>
                    {move || sections.get().into_iter().map(|(lab, id, text)| {
                        let href = format!("{}#{id}", window().location().pathname().unwrap_or_default());
                        view! { <li class:lab=lab><a href=href on:click=move |ev| go(ev, id.clone())>{text}</a></li> }
                    }).collect_view()}
                </ol>
            </details>
        </nav>
    }
}

//! The page: the list of routes, the layout around them, and start-up.

use crate::bridge::Bridge;
use crate::routes::base_path;
use crate::ui::{header::Header, model_status::ModelStatusPanel, prefill_progress::PrefillProgress};
use crate::lessons::{generation::page::GenerationPage, reasoning::page::Reasoning, stages::page::StagesPage};
use crate::pages::{glossary::Glossary, home::Home, not_found::NotFound, reading::Reading, saved::Saved};
use crate::playground::page::Playground;
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;
use wasm_bindgen::JsCast;

pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    // One engine for the whole visit: the model loads once, whatever page comes first.
    provide_context(Bridge::start());
    view! {
        <Router base=base_path()>
            // Handled here: with the page's <base href>, "#main" alone would mean the home page.
            <a class="skip" href="#main" on:click=skip_to_main>"Skip to content"</a>
            <Header/>
            <ModelStatusPanel/>
            <main id="main" tabindex="-1">
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=Home/>
                    <Route path=path!("/learn/generation") view=GenerationPage/>
                    <Route path=path!("/learn/stages") view=StagesPage/>
                    <Route path=path!("/learn/reasoning") view=Reasoning/>
                    <Route path=path!("/playground") view=Playground/>
                    <Route path=path!("/glossary") view=Glossary/>
                    <Route path=path!("/reading") view=Reading/>
                    <Route path=path!("/saved") view=Saved/>
                </Routes>
            </main>
            <PrefillProgress/>
        </Router>
    }
}

fn skip_to_main(event: web_sys::MouseEvent) {
    event.prevent_default();
    if let Some(main) = document().get_element_by_id("main") {
        main.scroll_into_view();
        let _ = main.unchecked_into::<web_sys::HtmlElement>().focus();
    }
}

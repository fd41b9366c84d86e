//! The page: routes, the layout around them, and start-up.

use crate::bridge::Bridge;
use crate::components::{header::Header, model_status::ModelStatusPanel};
use crate::pages::{
    generation::GenerationPage, glossary::Glossary, home::Home, not_found::NotFound,
    reading::Reading, reasoning::Reasoning, stages::StagesPage,
};
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
                </Routes>
            </main>
        </Router>
    }
}

/// The path the site is served under, without its trailing slash: "" at a host's root,
/// "/deep/sub" for `trunk build --public-url /deep/sub/`. Trunk writes that URL into
/// index.html's `<base href>`; relative URLs (the worker, the model, the service worker,
/// links in lessons) follow it by themselves, routes and menu links through this.
pub fn base_path() -> String {
    let base = document().base_uri().ok().flatten().unwrap_or_default();
    let path = web_sys::Url::new(&base)
        .map(|url| url.pathname())
        .unwrap_or_default();
    path.trim_end_matches('/').to_string()
}

/// A route ("/glossary") as a link under the site's base path.
pub fn href(route: &str) -> String {
    format!("{}{route}", base_path())
}

fn skip_to_main(event: web_sys::MouseEvent) {
    event.prevent_default();
    if let Some(main) = document().get_element_by_id("main") {
        main.scroll_into_view();
        let _ = main.unchecked_into::<web_sys::HtmlElement>().focus();
    }
}

/// Sets the tab's title for the current page.
pub fn set_title(page: &str) {
    document().set_title(&format!("{page} · Inference Playground"));
}


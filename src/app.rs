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
use wasm_bindgen_futures::JsFuture;

pub fn start() {
    console_error_panic_hook::set_once();
    register_service_worker();
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    // One engine for the whole visit: the model loads once, whatever page comes first.
    provide_context(Bridge::start());
    view! {
        <Router>
            <a class="skip" href="#main">"Skip to content"</a>
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

/// Sets the tab's title for the current page.
pub fn set_title(page: &str) {
    document().set_title(&format!("{page} · Inference Playground"));
}

/// public/sw.js keeps the app shell for offline visits. Failing to register only costs that.
fn register_service_worker() {
    let navigator = window().navigator();
    if !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    let registration = navigator.service_worker().register("/sw.js");
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = JsFuture::from(registration).await {
            web_sys::console::warn_2(
                &"offline support is unavailable: the service worker did not register".into(),
                &e,
            );
        }
    });
}

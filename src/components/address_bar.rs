//! The lesson's settings and prompt in the address bar: read when the page opens, and
//! written back (replacing the history entry, not adding one) a moment after the learner
//! changes them, so that copying the link reproduces what is on the screen.

use super::settings_query::{from_query, to_query, FromUrl};
use crate::lessons::Lesson;
use engine::SamplerSettings;
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsValue;

/// Writes wait this long: a slider sends dozens of changes a second, and browsers refuse
/// history updates that come too fast.
const SETTLE: Duration = Duration::from_millis(250);

pub fn read() -> FromUrl {
    from_query(&window().location().search().unwrap_or_default())
}

pub fn keep(settings: RwSignal<SamplerSettings>, prompt: RwSignal<String>) {
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |first: Option<()>| {
        let query = to_query(&settings.get(), &prompt.get());
        // The address stays as it came until the learner changes something.
        if first.is_none() {
            return;
        }
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
        pending.set_value(set_timeout_with_handle(move || write(&query), SETTLE).ok());
    });
}

fn write(query: &str) {
    let location = window().location();
    // The learner may have gone to another page meanwhile.
    if location.pathname().ok() != Some(Lesson::Generation.path()) {
        return;
    }
    let url = format!(
        "{}?{query}{}",
        Lesson::Generation.path(),
        location.hash().unwrap_or_default()
    );
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

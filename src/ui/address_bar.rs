//! A page's settings and prompt in the address bar: read when the page opens, and written
//! back (replacing the history entry, not adding one) a moment after the learner changes
//! them, so that copying the link reproduces what is on the screen.

use super::settings_query::{from_query, FromUrl};
use crate::routes::href;
use engine::SamplerSettings;
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsValue;

/// Writes wait this long: a slider sends dozens of changes a second, and browsers refuse
/// history updates that come too fast.
const SETTLE: Duration = Duration::from_millis(250);

/// The query of the address, over the page's `start` settings and `default_prompt`.
pub fn read(start: SamplerSettings, default_prompt: &str) -> FromUrl {
    from_query(
        &window().location().search().unwrap_or_default(),
        start,
        default_prompt,
    )
}

/// Keeps the query of page `path` equal to what `query` computes (a reactive closure).
pub fn keep(path: String, query: impl Fn() -> String + 'static) {
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |first: Option<()>| {
        let query = query();
        // The address stays as it came until the learner changes something.
        if first.is_none() {
            return;
        }
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
        let path = path.clone();
        pending.set_value(set_timeout_with_handle(move || write(&path, &query), SETTLE).ok());
    });
}

fn write(path: &str, query: &str) {
    let location = window().location();
    // The learner may have gone to another page meanwhile. The site may be served under a
    // sub-path: the address holds the page's path under the base.
    let path = href(path);
    if location.pathname().ok() != Some(path.clone()) {
        return;
    }
    let url = format!("{path}?{query}{}", location.hash().unwrap_or_default());
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

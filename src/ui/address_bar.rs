//! A page's settings and prompt in the address bar: read when the page opens, and written
//! back (replacing the history entry, not adding one) when the learner changes them, so that
//! copying the link reproduces what is on the screen, and Back returns to it.

use super::settings_query::{from_query, FromUrl};
use crate::routes::href;
use engine::SamplerSettings;
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsValue;

/// At most one write in this long: a slider sends dozens of changes a second, and browsers
/// refuse history updates that come too fast. The first change of a pause is written at
/// once, so that a change made just before leaving the page is in the entry Back returns to.
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
    // When the last write was (performance.now(), ms).
    let written = StoredValue::new(f64::NEG_INFINITY);
    // The query last computed: a signal that notifies without a change (a model becoming
    // ready) must neither write nor hold back the learner's next change by `SETTLE`, or a
    // change made just before leaving would be written too late, to no entry.
    let last = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        let query = query();
        let unchanged = last.with_value(|l| l.as_deref() == Some(query.as_str()));
        // The address stays as it came until the learner changes something.
        let first = last.with_value(Option::is_none);
        last.set_value(Some(query.clone()));
        if first || unchanged {
            return;
        }
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
        let now = now_ms();
        let wait = SETTLE.as_secs_f64() * 1000.0 - (now - written.get_value());
        if wait <= 0.0 {
            write(&path, &query);
            written.set_value(now);
            return;
        }
        let path = path.clone();
        let later = move || {
            write(&path, &query);
            written.set_value(now_ms());
        };
        pending.set_value(set_timeout_with_handle(later, Duration::from_secs_f64(wait / 1000.0)).ok());
    });
}

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
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

//! Which exercises the learner has solved, kept in localStorage so that it survives a
//! reload. Storage can be missing or full (private windows): then progress lasts the visit.

use leptos::prelude::*;
use std::collections::BTreeSet;

const KEY: &str = "inference-playground/lesson-1/done";

pub fn load() -> BTreeSet<String> {
    storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .map(|v| {
            v.split(',')
                .filter(|id| !id.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

pub fn save(done: &BTreeSet<String>) {
    if let Some(s) = storage() {
        let _ = s.set_item(KEY, &done.iter().cloned().collect::<Vec<_>>().join(","));
    }
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

//! Decode-loop choices the engine made on this device (`protocol::Kernels`), kept in the
//! browser so that the next load of the same model at the same thread count reuses one
//! instead of timing the loops again. A few are kept: one per model and thread count
//! recently used. What cannot be read back is dropped: the worker then times again, which
//! costs tens of milliseconds and loses nothing of the learner's.

use crate::protocol::KernelChoice;
use leptos::prelude::window;

const KEY: &str = "engine-kernel-choices";
/// Choices kept at most (each about 1 KB): two models at a few thread counts.
const MOST: usize = 12;

/// The choices kept, newest first.
pub fn stored() -> Vec<KernelChoice> {
    storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default()
}

/// Keeps `choice` for its model and thread count, in place of the one kept before.
pub fn remember(choice: &KernelChoice) {
    let kept = keep(stored(), choice.clone());
    if let (Some(s), Ok(json)) = (storage(), serde_json::to_string(&kept)) {
        let _ = s.set_item(KEY, &json);
    }
}

/// `choices` with `choice` first, without any other choice for the same model, file size
/// and thread count, and at most `MOST` long.
fn keep(mut choices: Vec<KernelChoice>, choice: KernelChoice) -> Vec<KernelChoice> {
    let k = &choice.key;
    choices.retain(|c| (&c.key.model, c.key.file_bytes, c.key.threads) != (&k.model, k.file_bytes, k.threads));
    choices.insert(0, choice);
    choices.truncate(MOST);
    choices
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::quant::choice::{DecodeLoop, KernelKey};
    use wasm_bindgen_test::wasm_bindgen_test;

    fn choice(model: &str, threads: usize, took_ms: f64) -> KernelChoice {
        let key = KernelKey { model: model.into(), file_bytes: 7, threads, candidates: DecodeLoop::ALL.to_vec() };
        KernelChoice { key, families: vec![], took_ms }
    }

    #[wasm_bindgen_test]
    fn a_new_choice_replaces_the_one_for_its_model_and_threads_only_and_the_list_is_bounded() {
        let kept = keep(vec![choice("a", 1, 1.0), choice("a", 2, 2.0), choice("b", 1, 3.0)], choice("a", 1, 4.0));
        let took: Vec<f64> = kept.iter().map(|c| c.took_ms).collect();
        assert_eq!(took, [4.0, 2.0, 3.0]);
        let many = (0..20).fold(Vec::new(), |list, i| keep(list, choice(&format!("m{i}"), 1, i as f64)));
        assert_eq!(many.len(), MOST);
        assert_eq!(many[0].took_ms, 19.0, "the newest first");
    }
}

//! Whether the engine decodes with its opt-in integer arithmetic, as the page knows it, and
//! the learner's choice, kept for the next visit. Off by default: the exact arithmetic is the
//! one the engine's figures are checked against; the integer one is faster and moves the
//! logits a little, by as much as the worker measures when it is switched on.

use crate::protocol::IntegerDeviation;
use leptos::prelude::window;

const KEY: &str = "engine-integer-arithmetic";

/// The worker's arithmetic for the loaded model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arithmetic {
    /// The setting asked of the worker, until it answers (switching on takes a measurement).
    pub asked: Option<bool>,
    /// While decode uses the integer arithmetic: what it was measured to change.
    pub deviation: Option<IntegerDeviation>,
    /// Why it could not be switched on.
    pub refused: Option<String>,
}

/// The learner's last choice (off at first).
pub fn preferred() -> bool {
    storage().and_then(|s| s.get_item(KEY).ok().flatten()).is_some_and(|v| v == "on")
}

/// Keeps the learner's choice for the next visit.
pub fn remember(on: bool) {
    if let Some(s) = storage() {
        let _ = s.set_item(KEY, if on { "on" } else { "off" });
    }
}

impl Arithmetic {
    /// Whether decode uses the integer arithmetic.
    pub fn integer(&self) -> bool {
        self.deviation.is_some()
    }
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

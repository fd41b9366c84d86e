//! "Measured on MODEL": the line each lesson's labs carry, so that a learner reading their
//! numbers knows which model made them (a lesson's prose quotes the default model; the
//! labs measure whichever is loaded). Read from the bridge, never written in a lesson.

use crate::bridge::{Bridge, ModelStatus};
use leptos::prelude::*;

#[component]
pub fn MeasuredOn() -> impl IntoView {
    let bridge = expect_context::<Bridge>();
    let status = bridge.status();
    move || {
        let loading = matches!(status.get(), ModelStatus::Loading { .. });
        let loaded = bridge.loaded().map(|c| c.file_stem());
        let text = match (loading, &loaded) {
            (true, Some(model)) => format!("Measured on {model}; {} is loading.", bridge.choice().get().file_stem()),
            (true, None) => format!("{} is loading: what the labs measure, they measure on it.", bridge.choice().get().file_stem()),
            (false, Some(model)) => format!("Measured on {model}, the model loaded now."),
            (false, None) => "No model is loaded: the labs measure once one is.".to_string(),
        };
        view! {
            <p class="measured-on" data-testid="measured-on" data-model=loaded.unwrap_or_default()>{text}</p>
        }
    }
}

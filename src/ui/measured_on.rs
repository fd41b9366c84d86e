//! "Measured on MODEL": the line each lesson's labs carry, so that a learner reading their
//! numbers knows which model made them (a lesson's prose quotes the default model; the
//! labs measure whichever is loaded). Read from the bridge, never written in a lesson.

use crate::bridge::{Bridge, ModelStatus};
use crate::ui::store::MadeBy;
use leptos::prelude::*;

/// `saved_by`: when the labs below show a measurement saved earlier, what made it.
#[component]
pub fn MeasuredOn(#[prop(default = None)] saved_by: Option<Signal<Option<MadeBy>>>) -> impl IntoView {
    let bridge = expect_context::<Bridge>();
    let status = bridge.status();
    move || {
        let loading = matches!(status.get(), ModelStatus::Loading { .. });
        let loaded = bridge.loaded().map(|c| c.file_stem());
        let saved = saved_by.and_then(|s| s.get()).map(|m| m.label());
        let text = match (saved, loading, &loaded) {
            (Some(saved), _, _) => format!(
                "Shown: a measurement saved earlier, made on {saved}. A new run measures {}.",
                loaded.clone().unwrap_or_else(|| bridge.choice().get().file_stem())
            ),
            (None, true, Some(model)) => format!("Measured on {model}; {} is loading.", bridge.choice().get().file_stem()),
            (None, true, None) => format!("{} is loading: what the labs measure, they measure on it.", bridge.choice().get().file_stem()),
            (None, false, Some(model)) => format!("Measured on {model}, the model loaded now."),
            (None, false, None) => "No model is loaded: the labs measure once one is.".to_string(),
        };
        view! {
            <p class="measured-on" data-testid="measured-on" data-model=loaded.unwrap_or_default()>{text}</p>
        }
    }
}

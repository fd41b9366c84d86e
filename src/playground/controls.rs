//! The generation settings as labelled, keyboard-operable controls. Every setting the
//! engine applies is shown: nothing hidden changes the result.

use crate::components::field::{Slider, WholeNumber};
use engine::SamplerSettings;
use leptos::prelude::*;

/// The playground's starting point: a little randomness, the common cuts, no min-p and
/// no repetition penalty (the lessons introduce those).
pub fn playground_defaults() -> SamplerSettings {
    SamplerSettings {
        temperature: 0.7,
        top_k: 40,
        top_p: 0.9,
        min_p: 0.0,
        repeat_penalty: 1.0,
        ..SamplerSettings::default()
    }
}

/// Seeds stay below 2³² so that JavaScript numbers (the inputs, the tests) hold them exactly.
pub const MAX_SEED: u64 = u32::MAX as u64;

#[component]
pub fn SamplerControls(
    settings: RwSignal<SamplerSettings>,
    max_tokens: RwSignal<usize>,
) -> impl IntoView {
    let get = move |f: fn(&SamplerSettings) -> f64| Signal::derive(move || settings.with(f));
    let two_places = |v: f64| format!("{v:.2}");
    view! {
        <fieldset class="controls">
            <legend>"Generation settings"</legend>
            <Slider
                id="temperature" label="Temperature" min=0.0 max=2.0 step=0.05 readout=two_places
                value=get(|s| s.temperature as f64)
                set=move |v: f64| settings.update(|s| s.temperature = v as f32)
            >
                "0 always takes the most likely token."
            </Slider>
            <WholeNumber
                id="top-k" label="Top-k" min=0 max=1000
                value=Signal::derive(move || settings.with(|s| s.top_k as u64))
                set=move |k: u64| settings.update(|s| s.top_k = k as usize)
            >
                "Keep the k most likely tokens; 0 turns it off."
            </WholeNumber>
            <Slider
                id="top-p" label="Top-p" min=0.05 max=1.0 step=0.05 readout=two_places
                value=get(|s| s.top_p as f64)
                set=move |p: f64| settings.update(|s| s.top_p = p as f32)
            >
                "Keep the most likely tokens until their probability adds up to p; 1 turns it off."
            </Slider>
            <WholeNumber
                id="seed" label="Seed" min=0 max=MAX_SEED
                value=Signal::derive(move || settings.with(|s| s.seed))
                set=move |seed: u64| settings.update(|s| s.seed = seed)
            >
                "The same seed and settings give the same text."
            </WholeNumber>
            <WholeNumber
                id="max-tokens" label="Maximum tokens" min=1 max=1024
                value=Signal::derive(move || max_tokens.get() as u64)
                set=move |n: u64| max_tokens.set(n as usize)
            />
        </fieldset>
    }
}

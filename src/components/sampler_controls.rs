//! The generation settings as labelled, keyboard-operable controls. Every setting the
//! engine applies is shown: nothing hidden changes the result.

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

#[component]
pub fn SamplerControls(
    settings: RwSignal<SamplerSettings>,
    max_tokens: RwSignal<usize>,
) -> impl IntoView {
    // Parses the control's text; a half-typed number leaves the setting as it was.
    fn parse<T: std::str::FromStr>(ev: &leptos::ev::Event) -> Option<T> {
        event_target_value(ev).parse().ok()
    }
    view! {
        <fieldset class="controls">
            <legend>"Generation settings"</legend>
            <div class="control">
                <label for="temperature">"Temperature"</label>
                <input
                    id="temperature"
                    data-testid="temperature"
                    type="range"
                    min="0"
                    max="2"
                    step="0.05"
                    aria-describedby="temperature-hint"
                    prop:value=move || settings.with(|s| s.temperature.to_string())
                    on:input=move |ev| {
                        if let Some(t) = parse(&ev) {
                            settings.update(|s| s.temperature = t)
                        }
                    }
                />
                <output for="temperature">{move || format!("{:.2}", settings.with(|s| s.temperature))}</output>
                <small id="temperature-hint">"0 always takes the most likely token."</small>
            </div>
            <div class="control">
                <label for="top-k">"Top-k"</label>
                <input
                    id="top-k"
                    data-testid="top-k"
                    type="number"
                    min="0"
                    max="1000"
                    step="1"
                    inputmode="numeric"
                    aria-describedby="top-k-hint"
                    prop:value=move || settings.with(|s| s.top_k.to_string())
                    on:input=move |ev| {
                        if let Some(k) = parse(&ev) {
                            settings.update(|s| s.top_k = k)
                        }
                    }
                />
                <small id="top-k-hint">"Keep the k most likely tokens; 0 turns it off."</small>
            </div>
            <div class="control">
                <label for="top-p">"Top-p"</label>
                <input
                    id="top-p"
                    data-testid="top-p"
                    type="range"
                    min="0.05"
                    max="1"
                    step="0.05"
                    aria-describedby="top-p-hint"
                    prop:value=move || settings.with(|s| s.top_p.to_string())
                    on:input=move |ev| {
                        if let Some(p) = parse(&ev) {
                            settings.update(|s| s.top_p = p)
                        }
                    }
                />
                <output for="top-p">{move || format!("{:.2}", settings.with(|s| s.top_p))}</output>
                <small id="top-p-hint">"Keep the most likely tokens until their probability adds up to p; 1 turns it off."</small>
            </div>
            <div class="control">
                <label for="seed">"Seed"</label>
                <input
                    id="seed"
                    data-testid="seed"
                    type="number"
                    min="0"
                    step="1"
                    inputmode="numeric"
                    aria-describedby="seed-hint"
                    prop:value=move || settings.with(|s| s.seed.to_string())
                    on:input=move |ev| {
                        if let Some(seed) = parse(&ev) {
                            settings.update(|s| s.seed = seed)
                        }
                    }
                />
                <small id="seed-hint">"The same seed and settings give the same text."</small>
            </div>
            <div class="control">
                <label for="max-tokens">"Maximum tokens"</label>
                <input
                    id="max-tokens"
                    data-testid="max-tokens"
                    type="number"
                    min="1"
                    max="1024"
                    step="1"
                    inputmode="numeric"
                    prop:value=move || max_tokens.get().to_string()
                    on:input=move |ev| {
                        if let Some(n) = parse::<usize>(&ev) {
                            max_tokens.set(n.clamp(1, 1024))
                        }
                    }
                />
            </div>
        </fieldset>
    }
}

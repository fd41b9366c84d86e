//! The sampler's controls: native range and number inputs that act on every `input` event,
//! each with its label, its live value and what its end of the range means.

use super::live::Live;
use super::settings::{self, Bound, MIN_P, REPEAT_PENALTY, SEED, TEMPERATURE, TOP_K, TOP_P};
use engine::SamplerSettings;
use leptos::prelude::*;

/// How many candidates the page can draw.
const SHOWN: (usize, usize) = (5, 100);

#[component]
pub fn Controls() -> impl IntoView {
    let lesson = expect_context::<Live>();
    let s = lesson.settings;
    let get = move |f: fn(&SamplerSettings) -> f64| move || s.with(f);
    view! {
        <fieldset class="controls l1-controls">
            <legend>"Sampler settings"</legend>
            {slider(
                "temperature", "Temperature", &TEMPERATURE, 0.05,
                get(|s| s.temperature as f64), move |v| s.update(|s| s.temperature = v as f32),
                |v| if v == 0.0 { "0 (greedy)".into() } else { format!("{v:.2}") },
                "0 is greedy: always the most likely token.",
            )}
            {slider(
                "top-k", "Top-k", &TOP_K, 1.0,
                get(|s| s.top_k as f64), move |v| s.update(|s| s.top_k = v as usize),
                |v| if v == 0.0 { "off".into() } else { format!("{v}") },
                "Keep the k most likely; 0 turns it off.",
            )}
            {slider(
                "top-p", "Top-p", &TOP_P, 0.01,
                get(|s| s.top_p as f64), move |v| s.update(|s| s.top_p = v as f32),
                |v| if v >= 1.0 { "off (1)".into() } else { format!("{v:.2}") },
                "Keep the fewest that reach probability p; 1 turns it off.",
            )}
            {slider(
                "min-p", "Min-p", &MIN_P, 0.01,
                get(|s| s.min_p as f64), move |v| s.update(|s| s.min_p = v as f32),
                |v| if v == 0.0 { "off".into() } else { format!("{v:.2}") },
                "Drop those below min-p × the top probability; 0 turns it off.",
            )}
            {slider(
                "repeat-penalty", "Repetition penalty", &REPEAT_PENALTY, 0.05,
                get(|s| s.repeat_penalty as f64), move |v| s.update(|s| s.repeat_penalty = v as f32),
                |v| if v == 1.0 { "off (1)".into() } else { format!("{v:.2}") },
                "Pushes down tokens of the last 64; 1 turns it off.",
            )}
            <div class="control">
                <label for="seed">"Seed"</label>
                <input
                    id="seed"
                    data-testid="seed"
                    type="number"
                    min=SEED.min
                    max=SEED.max
                    step="1"
                    inputmode="numeric"
                    aria-describedby="seed-hint"
                    prop:value=move || s.with(|s| s.seed.to_string())
                    on:input=move |ev| {
                        if let Ok(seed) = event_target_value(&ev).trim().parse::<u64>() {
                            s.update(|s| s.seed = seed.min(SEED.max as u64))
                        }
                    }
                />
                <small id="seed-hint">"Token n of a run is drawn with the n-th number of this seed's generator."</small>
            </div>
            <div class="control">
                <label for="shown">"Candidates shown"</label>
                <input
                    id="shown"
                    data-testid="shown"
                    type="number"
                    min=SHOWN.0
                    max=SHOWN.1
                    step="1"
                    inputmode="numeric"
                    prop:value=move || lesson.shown.get().to_string()
                    on:input=move |ev| {
                        if let Ok(n) = event_target_value(&ev).trim().parse::<usize>() {
                            lesson.shown.set(n.clamp(SHOWN.0, SHOWN.1))
                        }
                    }
                />
            </div>
            <div class="control reset">
                <button
                    type="button"
                    data-testid="reset"
                    on:click=move |_| {
                        s.set(settings::defaults());
                        lesson.shown.set(20);
                    }
                >
                    "Reset to defaults"
                </button>
            </div>
        </fieldset>
    }
}

/// A range input for one setting. A value outside the bound (typed through devtools, say)
/// is clamped, so the engine never sees it.
#[allow(clippy::too_many_arguments)]
fn slider(
    id: &'static str,
    label: &'static str,
    bound: &'static Bound,
    step: f64,
    value: impl Fn() -> f64 + Copy + Send + Sync + 'static,
    set: impl Fn(f64) + 'static,
    readout: fn(f64) -> String,
    hint: &'static str,
) -> impl IntoView {
    let hint_id = format!("{id}-hint");
    view! {
        <div class="control">
            <label for=id>{label}</label>
            <input
                id=id
                data-testid=id
                type="range"
                min=bound.min
                max=bound.max
                step=step
                aria-describedby=hint_id.clone()
                prop:value=move || (value() as f32).to_string()
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                        if v.is_finite() {
                            set(v.clamp(bound.min, bound.max))
                        }
                    }
                }
            />
            <output for=id data-testid=format!("{id}-value")>{move || readout(value())}</output>
            <small id=hint_id>{hint}</small>
        </div>
    }
}

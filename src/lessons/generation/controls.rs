//! The sampler's controls: native range and number inputs that act on every `input` event,
//! each with its label, its live value and what its end of the range means.

use super::live::Live;
use crate::ui::field::{Slider, WholeNumber};
use crate::ui::settings_query::{MIN_P, REPEAT_PENALTY, SEED, TEMPERATURE, TOP_K, TOP_P};
use crate::ui::stage_order::{CutOrder, TemperaturePlace};
use engine::SamplerSettings;
use leptos::prelude::*;

/// How many candidates the page can draw.
const SHOWN: (u64, u64) = (5, 100);

#[component]
pub fn Controls() -> impl IntoView {
    let lesson = expect_context::<Live>();
    let s = lesson.settings;
    let get = move |f: fn(&SamplerSettings) -> f64| Signal::derive(move || s.with(f));
    // On a phone the bar shows the four sliders, and the rest on demand (style/lesson1.css).
    let more = RwSignal::new(false);
    view! {
        <fieldset class="controls l1-controls">
            <legend>"Sampler settings"</legend>
            <Slider
                id="temperature" label="Temperature" min=TEMPERATURE.min max=TEMPERATURE.max step=0.05
                value=get(|s| s.temperature as f64) set=move |v: f64| s.update(|s| s.temperature = v as f32)
                readout={|v| if v == 0.0 { "0 (greedy)".into() } else { format!("{v:.2}") }}
            >
                "0 is greedy: always the most likely token."
            </Slider>
            <Slider
                id="top-k" label="Top-k" min=TOP_K.min max=TOP_K.max step=1.0
                value=get(|s| s.top_k as f64) set=move |v: f64| s.update(|s| s.top_k = v as usize)
                readout={|v| if v == 0.0 { "off".into() } else { format!("{v}") }}
            >
                "Keep the k most likely; 0 turns it off."
            </Slider>
            <Slider
                id="top-p" label="Top-p" min=TOP_P.min max=TOP_P.max step=0.01
                value=get(|s| s.top_p as f64) set=move |v: f64| s.update(|s| s.top_p = v as f32)
                readout={|v| if v >= 1.0 { "off (1)".into() } else { format!("{v:.2}") }}
            >
                "Keep the fewest that reach probability p; 1 turns it off."
            </Slider>
            <Slider
                id="min-p" label="Min-p" min=MIN_P.min max=MIN_P.max step=0.01
                value=get(|s| s.min_p as f64) set=move |v: f64| s.update(|s| s.min_p = v as f32)
                readout={|v| if v == 0.0 { "off".into() } else { format!("{v:.2}") }}
            >
                "Drop those below min-p × the top probability; 0 turns it off."
            </Slider>
            <button type="button" class="more-toggle" data-testid="more-settings" aria-controls="l1-more"
                aria-expanded=move || more.get().to_string() on:click=move |_| more.update(|m| *m = !*m)>
                {move || if more.get() { "Fewer settings" } else { "More settings" }}
            </button>
            <div class="more" id="l1-more" class:open=move || more.get()>
                <TemperaturePlace settings=s/>
                <CutOrder settings=s/>
                <Slider
                    id="repeat-penalty" label="Repetition penalty" min=REPEAT_PENALTY.min max=REPEAT_PENALTY.max step=0.05
                    value=get(|s| s.repeat_penalty as f64) set=move |v: f64| s.update(|s| s.repeat_penalty = v as f32)
                    readout={|v| if v == 1.0 { "off (1)".into() } else { format!("{v:.2}") }}
                >
                    "Pushes down tokens of the last 64 (the prompt's included); 1 turns it off."
                </Slider>
                <WholeNumber
                    id="seed" label="Seed" min=SEED.min as u64 max=SEED.max as u64
                    value=Signal::derive(move || s.with(|s| s.seed)) set=move |seed: u64| s.update(|s| s.seed = seed)
                >
                    "Token n of a run is drawn with the n-th number of this seed's generator."
                </WholeNumber>
                <WholeNumber
                    id="shown" label="Candidates shown" min=SHOWN.0 max=SHOWN.1
                    value=Signal::derive(move || lesson.shown.get() as u64) set=move |n: u64| lesson.shown.set(n as usize)
                />
                <div class="control reset">
                    <button
                        type="button"
                        data-testid="reset"
                        on:click=move |_| {
                            // The engine's own defaults: every cut stage on, so that each one shows.
                            s.set(SamplerSettings::default());
                            lesson.shown.set(20);
                        }
                    >
                        "Reset to defaults"
                    </button>
                </div>
            </div>
        </fieldset>
    }
}

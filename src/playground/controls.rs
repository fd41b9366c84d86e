//! Every generation setting the engine has, as labelled, keyboard-operable controls: the
//! preset they match, the sampler (temperature, top-k, top-p, min-p, repetition penalty and
//! its window, the order of the cut stages and temperature's place among them, seed), the maximum length and stop sequences.
//! Nothing hidden changes the result.

use super::link::{MAX_TOKENS, REPEAT_LAST_N};
use super::presets::Preset;
use crate::ui::field::{Slider, WholeNumber};
use crate::ui::settings_query::{MAX_SEED, MIN_P, REPEAT_PENALTY, TEMPERATURE, TOP_K, TOP_P};
use crate::protocol::MAX_STOP_SEQUENCES;
use crate::ui::stage_order::{CutOrder, TemperaturePlace};
use engine::SamplerSettings;
use leptos::prelude::*;

/// Stop sequences as the box shows them: one a line, a line break written `\n`.
pub fn stop_text(stop: &[String]) -> String {
    stop.iter()
        .map(|s| s.replace('\n', "\\n"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The box's lines as stop sequences: empty lines left out, at most `MAX_STOP_SEQUENCES`.
pub fn parse_stop(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.replace("\\n", "\n"))
        .take(MAX_STOP_SEQUENCES)
        .collect()
}

#[component]
pub fn SamplerControls(
    settings: RwSignal<SamplerSettings>,
    max_tokens: RwSignal<usize>,
    stop: RwSignal<Vec<String>>,
) -> impl IntoView {
    let get = move |f: fn(&SamplerSettings) -> f64| Signal::derive(move || settings.with(f));
    let two_places = |v: f64| format!("{v:.2}");
    let preset = move || settings.with(Preset::of).map_or("custom", Preset::name);
    // The box keeps what is typed; the sequences in use are its non-empty lines.
    let typed_stop = RwSignal::new(stop_text(&stop.get_untracked()));
    Effect::new(move |_| {
        let in_use = stop.get();
        if parse_stop(&typed_stop.get_untracked()) != in_use {
            typed_stop.set(stop_text(&in_use));
        }
    });
    view! {
        <fieldset class="controls">
            <legend>"Generation settings"</legend>
            <div class="control">
                <label for="preset">"Preset"</label>
                <select
                    id="preset"
                    data-testid="preset"
                    aria-describedby="preset-hint"
                    prop:value=preset
                    on:change=move |ev| {
                        if let Some(p) = Preset::from_name(&event_target_value(&ev)) {
                            settings.update(|s| *s = p.apply(s));
                        }
                    }
                >
                    {Preset::ALL.map(|p| view! { <option value=p.name()>{format!("{}: {}", p.name(), p.hint())}</option> })}
                    <option value="custom" disabled>"custom: your own values"</option>
                </select>
                <small id="preset-hint">"A preset sets the values below, which stay visible; any change makes it custom."</small>
            </div>
            <Slider
                id="temperature" label="Temperature" min=TEMPERATURE.min max=TEMPERATURE.max step=0.05 readout=two_places
                value=get(|s| s.temperature as f64)
                set=move |v: f64| settings.update(|s| s.temperature = v as f32)
            >
                "0 always takes the most likely token."
            </Slider>
            <WholeNumber
                id="top-k" label="Top-k" min=TOP_K.min as u64 max=TOP_K.max as u64
                value=Signal::derive(move || settings.with(|s| s.top_k as u64))
                set=move |k: u64| settings.update(|s| s.top_k = k as usize)
            >
                "Keep the k most likely tokens; 0 turns it off."
            </WholeNumber>
            <Slider
                id="top-p" label="Top-p" min=TOP_P.min max=TOP_P.max step=0.05 readout=|v| if v == 1.0 { "off (1)".into() } else { format!("{v:.2}") }
                value=get(|s| s.top_p as f64)
                set=move |p: f64| settings.update(|s| s.top_p = p as f32)
            >
                "Keep the most likely tokens until their probability adds up to p; 1 turns it off."
            </Slider>
            <Slider
                id="min-p" label="Min-p" min=MIN_P.min max=MIN_P.max step=0.01 readout=|v| if v == 0.0 { "off".into() } else { format!("{v:.2}") }
                value=get(|s| s.min_p as f64)
                set=move |p: f64| settings.update(|s| s.min_p = p as f32)
            >
                "Drop tokens less likely than min-p × the most likely one; 0 turns it off."
            </Slider>
            <Slider
                id="repeat-penalty" label="Repetition penalty" min=REPEAT_PENALTY.min max=REPEAT_PENALTY.max step=0.05 readout=|v| if v == 1.0 { "off (1)".into() } else { format!("{v:.2}") }
                value=get(|s| s.repeat_penalty as f64)
                set=move |r: f64| settings.update(|s| s.repeat_penalty = r as f32)
            >
                "Pushes down the tokens of the last few (the window below); 1 turns it off."
            </Slider>
            <WholeNumber
                id="repeat-last-n" label="Repetition window (tokens)" min=REPEAT_LAST_N.min as u64 max=REPEAT_LAST_N.max as u64
                value=Signal::derive(move || settings.with(|s| s.repeat_last_n as u64))
                set=move |n: u64| settings.update(|s| s.repeat_last_n = n as usize)
            >
                "How far back the penalty looks, over the whole context."
            </WholeNumber>
            <CutOrder settings/>
            <TemperaturePlace settings/>
            <WholeNumber
                id="seed" label="Seed" min=0 max=MAX_SEED
                value=Signal::derive(move || settings.with(|s| s.seed))
                set=move |seed: u64| settings.update(|s| s.seed = seed)
            >
                "The same seed and settings give the same text."
            </WholeNumber>
            <WholeNumber
                id="max-tokens" label="Maximum tokens" min=MAX_TOKENS.min as u64 max=MAX_TOKENS.max as u64
                value=Signal::derive(move || max_tokens.get() as u64)
                set=move |n: u64| max_tokens.set(n as usize)
            />
            <div class="control">
                <label for="stop-sequences">"Stop sequences"</label>
                <textarea
                    id="stop-sequences"
                    data-testid="stop-sequences"
                    rows="2"
                    aria-describedby="stop-sequences-hint"
                    prop:value=move || typed_stop.get()
                    on:input=move |ev| {
                        let text = event_target_value(&ev);
                        stop.set(parse_stop(&text));
                        typed_stop.set(text);
                    }
                ></textarea>
                <small id="stop-sequences-hint">
                    {format!("One a line (\\n for a line break), up to {MAX_STOP_SEQUENCES}: the answer stops once it contains one.")}
                </small>
            </div>
        </fieldset>
    }
}

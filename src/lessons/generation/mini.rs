//! A small live view beside each concept's section of the lesson's text (where
//! generation.md says `<!-- live: NAME -->`): that concept's control and the five most likely
//! candidates as the tool below computes them, so that the reader moves a slider beside the
//! formula it illustrates rather than thousands of pixels away. It reads and writes the
//! tool's own settings.

use crate::ui::format::prob;
use super::live::Live;
use crate::ui::token_text::visible;
use crate::ui::field::{Slider, WholeNumber};
use crate::ui::settings_query::{MIN_P, REPEAT_PENALTY, SEED, TEMPERATURE, TOP_K, TOP_P};
use engine::SamplerSettings;
use leptos::prelude::*;

/// Candidates a small view lists.
const SHOWN: usize = 5;

#[component]
pub fn MiniLive(concept: String) -> impl IntoView {
    let lesson = expect_context::<Live>();
    let s = lesson.settings;
    let get = move |f: fn(&SamplerSettings) -> f64| Signal::derive(move || s.with(f));
    let two_places = |v: f64| format!("{v:.2}");
    let control = match concept.as_str() {
        "temperature" => view! {
            <Slider id="mini-temperature" label="Temperature" min=TEMPERATURE.min max=TEMPERATURE.max step=0.05
                readout=two_places value=get(|s| s.temperature as f64) set=move |v: f64| s.update(|s| s.temperature = v as f32)/>
        }
        .into_any(),
        "cuts" => view! {
            <Slider id="mini-top-k" label="Top-k" min=TOP_K.min max=TOP_K.max step=1.0
                readout=|v| format!("{v}") value=get(|s| s.top_k as f64) set=move |v: f64| s.update(|s| s.top_k = v as usize)/>
            <Slider id="mini-top-p" label="Top-p" min=TOP_P.min max=TOP_P.max step=0.01
                readout=two_places value=get(|s| s.top_p as f64) set=move |v: f64| s.update(|s| s.top_p = v as f32)/>
            <Slider id="mini-min-p" label="Min-p" min=MIN_P.min max=MIN_P.max step=0.01
                readout=two_places value=get(|s| s.min_p as f64) set=move |v: f64| s.update(|s| s.min_p = v as f32)/>
        }
        .into_any(),
        "repetition" => view! {
            <Slider id="mini-repeat-penalty" label="Repetition penalty" min=REPEAT_PENALTY.min max=REPEAT_PENALTY.max step=0.05
                readout=two_places value=get(|s| s.repeat_penalty as f64) set=move |v: f64| s.update(|s| s.repeat_penalty = v as f32)/>
        }
        .into_any(),
        "seed" => view! {
            <WholeNumber id="mini-seed" label="Seed" min=SEED.min as u64 max=SEED.max as u64
                value=Signal::derive(move || s.with(|s| s.seed)) set=move |seed: u64| s.update(|s| s.seed = seed)/>
            <p class="hint">
                {move || lesson.snapshot.with(|snap| snap.as_ref().map(|snap| format!(
                    "The next Step draws u = {:.3}, which falls on ‘{}’.",
                    snap.next_u,
                    visible(&lesson.text(snap.next_token))
                )))}
            </p>
        }
        .into_any(),
        other => {
            web_sys::console::warn_1(&format!("generation.md names an unknown live view: {other}").into());
            return ().into_any();
        }
    };
    let rows = move || {
        lesson.snapshot.with(|snap| match snap {
            None => view! { <li>"Waiting for the model…"</li> }.into_any(),
            Some(snap) => snap
                .top
                .iter()
                .take(SHOWN)
                .map(|c| {
                    let cut = c.cut_by.map_or(String::new(), |stage| format!(", cut by {}", stage.name()));
                    let text = format!(
                        "‘{}’ {} → {}{cut}",
                        visible(&lesson.text(c.id)),
                        prob(c.prob as f64),
                        prob(c.final_prob as f64)
                    );
                    view! { <li data-testid="mini-candidate" data-token-id=c.id data-prob=c.final_prob>{text}</li> }
                })
                .collect_view()
                .into_any(),
        })
    };
    view! {
        <aside class="mini-live" data-testid="mini-live" data-concept=concept aria-label="A live view of this section on the model">
            <div class="mini-controls">{control}</div>
            <p class="hint">"The next token's five most likely candidates: probability after the temperature → final."</p>
            <ol class="mini-top" aria-live="polite">{rows}</ol>
        </aside>
    }
    .into_any()
}

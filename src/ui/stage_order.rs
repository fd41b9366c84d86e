//! Where temperature runs among the cuts, and the order of the cuts: the two controls that
//! together set `SamplerSettings::order`, for Lesson 1 and the playground alike. Temperature
//! first is this engine's default (and Hugging Face's); last is llama.cpp's default chain.

use engine::sampler::{order_text, CUT_ORDERS};
use engine::{SamplerSettings, Stage};
use leptos::prelude::*;

/// Temperature's place: 0 = before every cut … 3 = after every cut.
#[component]
pub fn TemperaturePlace(settings: RwSignal<SamplerSettings>) -> impl IntoView {
    let options = move || {
        let cuts = settings.with(|s| s.cuts());
        (0..=cuts.len())
            .map(|place| {
                let label = match place {
                    0 => "first: the cuts see the probabilities at T".to_string(),
                    p if p == cuts.len() => "last: the cuts see T = 1, T reshapes what is left".to_string(),
                    p => format!("after {}", cuts[..p].iter().map(|s| s.name()).collect::<Vec<_>>().join(" and ")),
                };
                view! { <option value=place.to_string()>{label}</option> }
            })
            .collect_view()
    };
    view! {
        <div class="control">
            <label for="temperature-place">"Temperature runs"</label>
            <select
                id="temperature-place"
                data-testid="temperature-place"
                aria-describedby="temperature-place-hint"
                prop:value=move || settings.with(|s| s.temperature_place().to_string())
                on:change=move |ev| {
                    if let Ok(place) = event_target_value(&ev).parse::<usize>() {
                        settings.update(|s| {
                            let cuts = s.cuts();
                            s.arrange(&cuts, place);
                        });
                    }
                }
            >
                {options}
            </select>
            <small id="temperature-place-hint">"Top-k counts ranks, which T never changes; top-p and min-p weigh probabilities, which it does."</small>
        </div>
    }
}

/// The order of the three cuts; temperature keeps its place among them.
#[component]
pub fn CutOrder(settings: RwSignal<SamplerSettings>) -> impl IntoView {
    view! {
        <div class="control">
            <label for="stage-order">"Order of the cuts"</label>
            <select
                id="stage-order"
                data-testid="stage-order"
                aria-describedby="stage-order-hint"
                prop:value=move || settings.with(|s| order_text(&s.cuts()))
                on:change=move |ev| {
                    let chosen = event_target_value(&ev);
                    if let Some(cuts) = CUT_ORDERS.iter().find(|o| order_text(&o[..]) == chosen) {
                        settings.update(|s| {
                            let place = s.temperature_place();
                            s.arrange(cuts, place);
                        });
                    }
                }
            >
                {CUT_ORDERS.map(|o| {
                    let label = o.map(Stage::name).join(" → ");
                    view! { <option value=order_text(&o)>{label}</option> }
                })}
            </select>
            <small id="stage-order-hint">"Each cut sees only what the earlier ones kept."</small>
        </div>
    }
}

//! One measured figure: a label and a value, with the number itself in `data-value` (for
//! tests and scripts) once it has been measured.

use leptos::prelude::*;

#[component]
pub fn Readout(
    testid: &'static str,
    label: &'static str,
    #[prop(into)] value: Signal<Option<f64>>,
    /// How the number is written.
    format: fn(f64) -> String,
) -> impl IntoView {
    view! {
        <div class="readout">
            <span class="readout-label">{label}</span>
            <output data-testid=testid data-value=move || value.get().map(|v| v.to_string())>
                {move || value.get().map_or_else(|| "–".to_string(), format)}
            </output>
        </div>
    }
}

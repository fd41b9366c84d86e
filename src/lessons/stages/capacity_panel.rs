//! Serving capacity: how many conversations of a given length fit in a given memory, from
//! the loaded model's configuration (what this engine's cache holds for that many positions:
//! a local layer only its window), beside the KV bytes per position measured by a run.

use super::lab::Lab;
use super::number::{bytes, mb};
use crate::ui::field::WholeNumber;
use engine::kv_cache::KvCache;
use leptos::prelude::*;

#[component]
pub fn CapacityPanel(lab: Lab) -> impl IntoView {
    // KV bytes per cached position, as the look inside's last run measured them.
    let measured = Signal::derive(move || lab.inside.with(|i| i.measured_bytes_per_position()));
    let memory_gb = RwSignal::new(8u64);
    let length = RwSignal::new(2048u64);
    let per_position = move || lab.shape.get().map(|s| s.kv_bytes_per_position);
    let answer = move || {
        let weights = lab.engine.weight_bytes()? as f64;
        let conversation = lab.shape.with(|s| s.as_ref().map(|s| KvCache::bytes_for(&s.config, length.get() as usize)))? as f64;
        let memory = memory_gb.get() as f64 * 1e9;
        let fit = ((memory - weights) / conversation).floor().max(0.0);
        Some(format!(
            "One conversation of {} tokens holds {} of keys and values. In {} GB, after {} of weights, {} such conversations fit at once.",
            length.get(),
            mb(conversation),
            memory_gb.get(),
            mb(weights),
            fit
        ))
    };
    view! {
        <section class="lab-panel" aria-labelledby="capacity-lab">
            <h3 id="capacity-lab">"Serving capacity"</h3>
            <WholeNumber id="capacity-memory" label="Memory (GB)" min=1 max=1024 value=memory_gb set=Callback::new(move |v| memory_gb.set(v))/>
            <WholeNumber id="capacity-length" label="Tokens per conversation" min=1 max=8192 value=length set=Callback::new(move |v| length.set(v))/>
            <p data-testid="capacity-formula">{move || per_position().map(|b| format!("From the configuration: {} bytes per position (2 × layers × key/value heads × head dimension × 4 bytes), in every layer that keeps every position.", bytes(b)))}</p>
            <p data-testid="capacity-measured">{move || match measured.get() {
                Some(b) => format!(
                    "Measured by the last run above: {} bytes per cached position{}.",
                    bytes(b.round() as usize),
                    if lab.shape.with(|s| s.as_ref().is_some_and(|s| s.config.sliding_window.is_some())) {
                        " on average (the local layers keep only their window, so longer runs average less)"
                    } else {
                        ""
                    }
                ),
                None => "Run the look inside above to measure the bytes per position.".to_string(),
            }}</p>
            <p data-testid="capacity-answer">{answer}</p>
        </section>
    }
}

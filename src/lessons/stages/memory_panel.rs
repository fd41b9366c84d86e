//! The KV cache's memory: its size after each token of the latest run with the cache, the
//! formula filled in with the loaded model's own numbers, and the weights for scale.

use super::lab::{Lab, Shape};
use crate::ui::chart::line::{LineChart, Series};
use super::number::{bytes, mb, percent};
use leptos::prelude::*;

#[component]
pub fn MemoryPanel(lab: Lab) -> impl IntoView {
    let run = lab.cache_on;
    let kv_bytes = Signal::derive(move || run.with(|r| r.kv_bytes()).map(|b| b as f64));
    let series = Signal::derive(move || {
        let per_position = lab
            .shape
            .with(|s| s.as_ref().map_or(0, |s| s.kv_bytes_per_position));
        let points = match per_position {
            0 => Vec::new(),
            p => run.with(|r| {
                r.costs
                    .iter()
                    .map(|c| ((c.kv_bytes / p) as f64, c.kv_bytes as f64 / 1e6))
                    .collect()
            }),
        };
        vec![Series {
            name: "KV cache",
            class: "series-a",
            points,
        }]
    });
    view! {
        <section class="lab-panel" aria-labelledby="memory-lab">
            <h3 id="memory-lab">"Measure it: the cache's memory"</h3>
            <p class="hint">"From the latest run above with the cache on; it grows as that run generates."</p>
            <div class="readouts">
                <div class="readout">
                    <span class="readout-label">"KV cache now"</span>
                    <output data-testid="kv-bytes" data-value=move || kv_bytes.get().map(|b| b.to_string())>
                        {move || kv_bytes.get().map_or_else(|| "–".into(), |b| format!("{} bytes", bytes(b as usize)))}
                    </output>
                </div>
            </div>
            {move || lab.shape.get().map(|shape| formula(&shape, run.with(|r| r.kv_bytes()).unwrap_or(0), lab.engine.weight_bytes()))}
            <LineChart testid="kv-chart" caption="KV cache size after each token." x_label="positions cached" y_label="MB" series=series/>
        </section>
    }
}

fn formula(shape: &Shape, kv_bytes: usize, weight_bytes: Option<u64>) -> impl IntoView {
    let c = &shape.config;
    let per_position = shape.kv_bytes_per_position;
    let element = per_position / (2 * c.layers * c.kv_heads * c.head_dim);
    let positions = kv_bytes / per_position;
    let weights = weight_bytes.map(|w| {
        let w = w as f64;
        let full = (per_position * c.context) as f64;
        format!(
            "That is {} of the weights' {}. The cache matches the weights at {} positions; the full context of {} positions would need {}, {:.1} times the weights.",
            percent(kv_bytes as f64 / w),
            mb(w),
            bytes((w / per_position as f64).round() as usize),
            bytes(c.context),
            mb(full),
            full / w
        )
    });
    view! {
        <p class="formula" data-testid="kv-formula">
            "2 × " <span>{c.layers}" layers"</span>
            " × " <span>{c.kv_heads}" KV heads"</span>
            " × " <span>{c.head_dim}" head dims"</span>
            " × " <strong>{bytes(positions)}" positions"</strong>
            " × " <span>{element}" bytes"</span>
            " = " <strong data-testid="kv-formula-bytes">{bytes(kv_bytes)}" bytes"</strong>
            {format!(" ({} bytes per position)", bytes(per_position))}
        </p>
        <p>{weights}</p>
        <p>
            {format!(
                "The model's {} query heads share {} key/value heads (grouped-query attention): with one key/value head per query head the cache would be {} times larger.",
                c.heads,
                c.kv_heads,
                c.heads / c.kv_heads
            )}
        </p>
    }
}

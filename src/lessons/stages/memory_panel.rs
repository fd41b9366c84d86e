//! The KV cache's memory: its size after each token of the latest run with the cache, the
//! formula filled in with the loaded model's own numbers, and the weights for scale. A model
//! with local (sliding-window) layers, Gemma 3, gets the formula in two parts: its global
//! layers keep every position, its local layers only their window (`engine::kv_cache`).

use super::lab::{Lab, Shape};
use crate::ui::chart::line::{LineChart, Series};
use super::number::{bytes, mb, percent};
use engine::gguf::config::Config;
use engine::kv_cache::KvCache;
use leptos::prelude::*;

#[component]
pub fn MemoryPanel(lab: Lab) -> impl IntoView {
    let run = lab.cache_on;
    let kv_bytes = Signal::derive(move || run.with(|r| r.kv_bytes()).map(|b| b as f64));
    // `position` is 1-based and counts the token just drawn, which is not cached yet.
    let cached = move || run.with(|r| r.costs.last().map_or(0, |c| c.position.saturating_sub(1)));
    // A run restored from a saved item (`saved_measurements.rs`) that another model made.
    let made_by_another_model = move || {
        let loaded = lab.engine.loaded_model().map(|c| c.file_stem());
        lab.restored_by("cache-on").map(|m| m.model).filter(|m| Some(m) != loaded.as_ref())
    };
    let series = Signal::derive(move || {
        let points = run.with(|r| r.costs.iter().map(|c| ((c.position - 1) as f64, c.kv_bytes as f64 / 1e6)).collect());
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
            {move || lab.shape.get().map(|shape| match made_by_another_model() {
                // The loaded model's shape times another model's positions would not add up.
                Some(model) => view! { <p class="hint" data-testid="kv-formula-elsewhere">{format!("The run above was made on {model}: run it again for the formula of the model loaded now.")}</p> }.into_any(),
                None => formula(&shape, run.with(|r| r.kv_bytes()).unwrap_or(0), cached(), lab.engine.weight_bytes()).into_any(),
            })}
            <LineChart testid="kv-chart" caption="KV cache size after each token." x_label="positions cached" y_label="MB" series=series/>
        </section>
    }
}

fn formula(shape: &Shape, kv_bytes: usize, positions: usize, weight_bytes: Option<u64>) -> impl IntoView {
    let c = &shape.config;
    let per_position = shape.kv_bytes_per_position;
    let element = per_position / (2 * c.layers * c.kv_heads * c.head_dim);
    let weights = weight_bytes.map(|w| {
        let full = KvCache::bytes_for(c, c.context) as f64;
        let w = w as f64;
        let matching = match positions_matching(c, w) {
            Some(n) => format!("The cache matches the weights at {} positions; the", bytes(n)),
            None => "Even the".into(),
        };
        format!(
            "That is {} of the weights' {}. {matching} full context of {} positions would need {}, {:.1} times the weights.",
            percent(kv_bytes as f64 / w),
            mb(w),
            bytes(c.context),
            mb(full),
            full / w
        )
    });
    let local = (0..c.layers).filter(|&l| c.window(l).is_some()).count();
    let layer_bytes = 2 * c.kv_heads * c.head_dim * element;
    let term = |layers: usize, kind: &'static str, positions: usize| {
        view! {
            "2 × " <span>{layers}" "{kind}"layers"</span>
            " × " <span>{c.kv_heads}" KV heads"</span>
            " × " <span>{c.head_dim}" head dims"</span>
            " × " <strong>{bytes(positions)}" positions"</strong>
            " × " <span>{element}" bytes"</span>
        }
    };
    let sum = match (local, c.sliding_window) {
        (0, _) | (_, None) => view! {
            {term(c.layers, "", positions)}
            " = " <strong data-testid="kv-formula-bytes">{bytes(kv_bytes)}" bytes"</strong>
            {format!(" ({} bytes per position)", bytes(per_position))}
        }
        .into_any(),
        (local, Some(w)) => {
            let global = c.layers - local;
            // Every local layer holds the same positions: what the global ones do not account for.
            let held = kv_bytes.saturating_sub(global * layer_bytes * positions) / (local * layer_bytes);
            view! {
                {term(global, "global ", positions)}
                " + " {term(local, "local ", held)}
                " = " <strong data-testid="kv-formula-bytes">{bytes(kv_bytes)}" bytes"</strong>
                <span data-testid="kv-window-note">{format!(
                    ". The {local} local layers attend to the last {} positions only, so this engine keeps at most {} of them (a margin lets a short rewind go on without recomputing); the {global} global layers keep every position.",
                    bytes(w.size),
                    bytes(KvCache::local_positions_at_most(w.size)),
                )}</span>
            }
            .into_any()
        }
    };
    view! {
        <p class="formula" data-testid="kv-formula">{sum}</p>
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

/// How many positions' cache takes as many bytes as the weights, if the context holds that many.
fn positions_matching(c: &Config, weight_bytes: f64) -> Option<usize> {
    let fits = |n: usize| (KvCache::bytes_for(c, n) as f64) < weight_bytes;
    if fits(c.context) {
        return None;
    }
    // The cache grows with every position: the first that does not fit.
    let (mut lo, mut hi) = (0, c.context);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fits(mid) { lo = mid + 1 } else { hi = mid }
    }
    Some(lo)
}

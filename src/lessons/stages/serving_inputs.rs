//! The serving simulator's assumptions, one control each: the requests that arrive, the
//! server's memory and batch, and the four changes the lesson asks about (continuous
//! batching, prefill chunking, a larger cache, context-parallel prefill). None of them is
//! measured; the page lists them beside the results.

use crate::ui::field::{count_input, Slider};
use engine::serving_sim::{ContextParallel, Server, Workload, MAX_ANSWER, MAX_BATCH, MAX_DEVICES, MAX_PROMPT, MAX_REQUESTS};
use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct Assumptions {
    pub requests: RwSignal<usize>,
    pub per_minute: RwSignal<usize>,
    pub prompt_min: RwSignal<usize>,
    pub prompt_max: RwSignal<usize>,
    pub answer_min: RwSignal<usize>,
    pub answer_max: RwSignal<usize>,
    pub memory_mb: RwSignal<usize>,
    /// The KV bytes per position as a multiple of the measured ones.
    pub kv_scale: RwSignal<f64>,
    pub batch_limit: RwSignal<usize>,
    pub continuous: RwSignal<bool>,
    pub chunking: RwSignal<bool>,
    pub chunk: RwSignal<usize>,
    /// Twice the memory budget.
    pub larger_cache: RwSignal<bool>,
    pub context_parallel: RwSignal<bool>,
    pub devices: RwSignal<usize>,
    pub link_gb_per_s: RwSignal<usize>,
    pub seed: RwSignal<usize>,
}

// No `Default`: the signals belong to the component that makes them.
#[allow(clippy::new_without_default)]
impl Assumptions {
    /// A small server under about as much traffic as this model serves on a laptop's CPU:
    /// enough that memory and the batch limit both matter.
    pub fn new() -> Self {
        Assumptions {
            requests: RwSignal::new(40),
            per_minute: RwSignal::new(60),
            prompt_min: RwSignal::new(50),
            prompt_max: RwSignal::new(300),
            answer_min: RwSignal::new(20),
            answer_max: RwSignal::new(150),
            memory_mb: RwSignal::new(100),
            kv_scale: RwSignal::new(1.0),
            batch_limit: RwSignal::new(8),
            continuous: RwSignal::new(true),
            chunking: RwSignal::new(false),
            chunk: RwSignal::new(32),
            larger_cache: RwSignal::new(false),
            context_parallel: RwSignal::new(false),
            devices: RwSignal::new(4),
            link_gb_per_s: RwSignal::new(50),
            seed: RwSignal::new(1),
        }
    }

    pub fn workload(&self) -> Workload {
        Workload {
            requests: self.requests.get(),
            arrivals_per_s: self.per_minute.get() as f64 / 60.0,
            prompt_tokens: (self.prompt_min.get(), self.prompt_max.get()),
            answer_tokens: (self.answer_min.get(), self.answer_max.get()),
            seed: self.seed.get() as u64,
        }
    }

    /// The server as set; the results table flips one switch of it at a time.
    pub fn server(&self) -> Server {
        let budget = self.memory_mb.get() as f64 * 1e6;
        Server {
            memory_bytes: if self.larger_cache.get() { 2.0 * budget } else { budget },
            kv_scale: self.kv_scale.get(),
            batch_limit: self.batch_limit.get(),
            continuous: self.continuous.get(),
            prefill_chunk: self.chunking.get().then(|| self.chunk.get()),
            context_parallel: self.context_parallel.get().then(|| ContextParallel {
                devices: self.devices.get(),
                link_gb_per_s: self.link_gb_per_s.get() as f64,
            }),
        }
    }
}

#[component]
pub fn AssumptionControls(a: Assumptions) -> impl IntoView {
    view! {
        <fieldset class="serving-controls">
            <legend>"Traffic (assumed)"</legend>
            <div class="control-row">
                {count_input("serving-requests", "Requests", a.requests, 1, MAX_REQUESTS)}
                {count_input("serving-per-minute", "Arrivals per minute", a.per_minute, 1, 6000)}
            </div>
            <div class="control-row">
                {count_input("serving-prompt-min", "Prompt tokens, from", a.prompt_min, 1, MAX_PROMPT)}
                {count_input("serving-prompt-max", "to", a.prompt_max, 1, MAX_PROMPT)}
            </div>
            <div class="control-row">
                {count_input("serving-answer-min", "Answer tokens, from", a.answer_min, 1, MAX_ANSWER)}
                {count_input("serving-answer-max", "to", a.answer_max, 1, MAX_ANSWER)}
            </div>
            <div class="control-row">{count_input("serving-seed", "Seed", a.seed, 0, 1_000_000)}</div>
        </fieldset>
        <fieldset class="serving-controls">
            <legend>"Server (assumed)"</legend>
            <div class="control-row">
                {count_input("serving-memory", "KV cache memory (MB)", a.memory_mb, 1, 1_000_000)}
                {count_input("serving-batch", "Batch limit (requests)", a.batch_limit, 1, MAX_BATCH)}
            </div>
            <Slider id="serving-kv-scale" label="KV bytes per position, × measured" min=0.5 max=16.0 step=0.5
                value=a.kv_scale set=Callback::new(move |v| a.kv_scale.set(v)) readout=|v| format!("×{v:.1}")>
                "An assumption: ×2 is this cache in 16 bits for a model twice as deep, for example."
            </Slider>
            {switch("serving-continuous", "Continuous batching (admit at every pass, not only into an empty batch)", a.continuous)}
            <div class="control-row">
                {switch("serving-chunking", "Prefill chunking", a.chunking)}
                {count_input("serving-chunk", "prompt tokens per pass", a.chunk, 1, MAX_PROMPT)}
            </div>
            {switch("serving-larger-cache", "Larger cache (twice the memory)", a.larger_cache)}
            <div class="control-row">
                {switch("serving-context-parallel", "Context-parallel prefill", a.context_parallel)}
                {count_input("serving-devices", "devices", a.devices, 1, MAX_DEVICES)}
                {count_input("serving-link", "link GB/s", a.link_gb_per_s, 1, 10_000)}
            </div>
        </fieldset>
    }
}

/// A labelled on/off switch.
fn switch(id: &'static str, label: &'static str, on: RwSignal<bool>) -> impl IntoView {
    view! {
        <div class="control-row">
            <input id=id data-testid=id type="checkbox" role="switch"
                prop:checked=move || on.get()
                on:change=move |ev| on.set(event_target_checked(&ev))/>
            <label for=id>{label}</label>
        </div>
    }
}

//! The serving simulator's assumptions, one control each: the requests that arrive, the
//! server's memory and batch, and the changes the lesson asks about (paged memory, continuous
//! batching, prefill chunking, context-parallel prefill). None of them is measured; the page
//! lists them beside the results.

use crate::ui::field::{count_input, Slider};
use engine::serving_sim::{ContextParallel, Memory, Server, Workload, MAX_ANSWER, MAX_BLOCK, MAX_DEVICES, MAX_PROMPT, MAX_REQUESTS};
use leptos::prelude::*;

/// The page's largest batch: the largest pass it times.
pub const PAGE_MAX_BATCH: usize = 32;

#[derive(Clone, Copy)]
pub struct Assumptions {
    pub requests: RwSignal<usize>,
    pub per_minute: RwSignal<usize>,
    pub prompt_min: RwSignal<usize>,
    pub prompt_max: RwSignal<usize>,
    pub answer_min: RwSignal<usize>,
    pub answer_max: RwSignal<usize>,
    pub max_tokens: RwSignal<usize>,
    pub memory_mb: RwSignal<usize>,
    /// The KV bytes per position as a multiple of the measured ones.
    pub kv_scale: RwSignal<f64>,
    pub batch_limit: RwSignal<usize>,
    pub paged: RwSignal<bool>,
    pub block_size: RwSignal<usize>,
    pub continuous: RwSignal<bool>,
    pub chunking: RwSignal<bool>,
    pub chunk: RwSignal<usize>,
    pub context_parallel: RwSignal<bool>,
    pub devices: RwSignal<usize>,
    pub link_gb_per_s: RwSignal<usize>,
    pub overlap: RwSignal<bool>,
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
            max_tokens: RwSignal::new(512),
            memory_mb: RwSignal::new(100),
            kv_scale: RwSignal::new(1.0),
            batch_limit: RwSignal::new(8),
            paged: RwSignal::new(false),
            block_size: RwSignal::new(16),
            continuous: RwSignal::new(true),
            chunking: RwSignal::new(false),
            chunk: RwSignal::new(256),
            context_parallel: RwSignal::new(false),
            devices: RwSignal::new(4),
            link_gb_per_s: RwSignal::new(50),
            overlap: RwSignal::new(false),
            seed: RwSignal::new(1),
        }
    }

    pub fn workload(&self) -> Workload {
        Workload {
            requests: self.requests.get(),
            arrivals_per_s: self.per_minute.get() as f64 / 60.0,
            prompt_tokens: (self.prompt_min.get(), self.prompt_max.get()),
            answer_tokens: (self.answer_min.get(), self.answer_max.get()),
            max_tokens: self.max_tokens.get(),
            seed: self.seed.get() as u64,
        }
    }

    /// The server as set, on the measured bytes per position; the results table flips one
    /// switch of it at a time.
    pub fn server(&self, measured_kv_bytes: f64) -> Server {
        let kv_bytes_per_token = measured_kv_bytes * self.kv_scale.get();
        Server {
            memory_bytes: self.memory_mb.get() as f64 * 1e6,
            kv_bytes_per_token,
            batch_limit: self.batch_limit.get(),
            memory: self.memory(),
            continuous: self.continuous.get(),
            prefill_chunk: self.chunking.get().then(|| self.chunk.get()),
            context_parallel: self.context_parallel.get().then(|| self.ring(kv_bytes_per_token)),
        }
    }

    pub fn memory(&self) -> Memory {
        if self.paged.get() {
            Memory::Paged { block_size: self.block_size.get() }
        } else {
            Memory::Contiguous
        }
    }

    /// The ring as set: a link of GB/s sends 1,000 positions of `kv_bytes` each in
    /// 1,000 · kv_bytes / (GB/s · 10^9) seconds.
    pub fn ring(&self, kv_bytes: f64) -> ContextParallel {
        let link_ms = 1000.0 * kv_bytes / (self.link_gb_per_s.get() as f64 * 1e9) * 1000.0;
        ContextParallel { devices: self.devices.get(), link_ms, overlap: self.overlap.get() }
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
                {count_input("serving-max-tokens", "max_tokens asked for", a.max_tokens, 1, MAX_ANSWER)}
            </div>
            <div class="control-row">{count_input("serving-seed", "Seed", a.seed, 0, 1_000_000)}</div>
        </fieldset>
        <fieldset class="serving-controls">
            <legend>"Server (assumed)"</legend>
            <div class="control-row">
                {count_input("serving-memory", "KV cache memory (MB)", a.memory_mb, 1, 1_000_000)}
                {count_input("serving-batch", "Batch limit (requests)", a.batch_limit, 1, PAGE_MAX_BATCH)}
            </div>
            <Slider id="serving-kv-scale" label="KV bytes per position, × measured" min=0.5 max=16.0 step=0.5
                value=a.kv_scale set=Callback::new(move |v| a.kv_scale.set(v)) readout=|v| format!("×{v:.1}")>
                "An assumption: ×2 is this cache in 16 bits for a model twice as deep, for example."
            </Slider>
            <div class="control-row">
                {switch("serving-paged", "Paged memory (blocks taken as tokens are written, not prompt + max_tokens on admission)", a.paged)}
                {count_input("serving-block-size", "positions per block", a.block_size, 1, MAX_BLOCK)}
            </div>
            {switch("serving-continuous", "Continuous batching (admit at every pass, not only into an empty batch)", a.continuous)}
            <div class="control-row">
                {switch("serving-chunking", "Prefill chunking", a.chunking)}
                {count_input("serving-chunk", "prompt tokens per pass", a.chunk, 1, MAX_PROMPT)}
            </div>
            <div class="control-row">
                {switch("serving-context-parallel", "Context-parallel prefill", a.context_parallel)}
                {count_input("serving-devices", "devices", a.devices, 1, MAX_DEVICES)}
                {count_input("serving-link", "link GB/s", a.link_gb_per_s, 1, 10_000)}
            </div>
            {switch("serving-overlap", "Overlap the ring exchange with the computation (without it: after it, an upper bound)", a.overlap)}
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

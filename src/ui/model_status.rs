//! The model's state for every page: not loaded with the offer to load it (also after the
//! learner cancelled its first download), loading (with bytes, total and speed), ready, or an
//! error with Retry. Also what the learner may want to do with the cached file, and the
//! model picker.

use super::model_picker::ModelPicker;
use crate::bridge::{Bridge, ModelStatus};
use crate::model_choice::Choice;
use crate::model_file::megabytes;
use leptos::prelude::*;

#[component]
pub fn ModelStatusPanel() -> impl IntoView {
    let bridge = expect_context::<Bridge>();
    let status = bridge.status();
    let choice = bridge.choice();
    view! {
        <section class="model-status" data-testid="model-status" data-state=move || status.with(|s| s.name()) aria-label="Model status">
            {move || match status.get() {
                ModelStatus::Idle => {
                    let model = match choice.get() {
                        Choice::BuiltIn(b) => format!("{}, {}", b.name, megabytes(b.bytes)),
                        other => other.name(),
                    };
                    let text = if bridge.load_cancelled().get() {
                        format!(
                            "Its download was cancelled: the model ({model}) is not loaded, and no page loads it until you ask. The lessons' labs and the playground need it."
                        )
                    } else {
                        format!(
                            "The model ({model}) is not loaded: this page does not run it. The lessons and the playground load it when you open them."
                        )
                    };
                    view! {
                        <p data-testid="model-offer">{text}</p>
                        <button type="button" data-testid="load-model" on:click=move |_| bridge.load_now()>"Load it now"</button>
                    }
                    .into_any()
                }
                ModelStatus::Loading { loaded, total, mb_per_s, from_cache } => {
                    let chosen = choice.get();
                    let verb = match (&chosen, from_cache) {
                        (Choice::Device { .. }, _) => "Loading the model from this device",
                        (_, true) => "Checking the cached model",
                        (_, false) => "Downloading the model",
                    };
                    view! {
                        <label class="progress-label" for="model-progress">{format!("{verb} ({})", chosen.name())}</label>
                        // Without a known total the bar is indeterminate.
                        <progress
                            id="model-progress"
                            data-testid="model-progress"
                            max=total.map(|t| t as f64)
                            value=total.map(|_| loaded as f64)
                        ></progress>
                        <span class="progress-numbers" aria-live="off">{progress_text(loaded, total, mb_per_s)}</span>
                    }
                    .into_any()
                }
                ModelStatus::Ready(info) => {
                    let chosen = choice.get();
                    let source = match (&chosen, info.from_cache) {
                        (Choice::Device { .. }, _) => "read from this device",
                        (_, true) => "from this browser's cache",
                        (_, false) => "downloaded",
                    };
                    view! {
                        <p class="ready" data-testid="model-ready" data-vocab=info.vocab>
                            <strong>"Model ready: "</strong>
                            {format!(
                                "{}, {}, {} layers, {}, {source} and loaded in {:.1} s. Vocabulary: {} tokens. Context: up to {} tokens in this page, to bound the memory its cache takes.",
                                chosen.name(),
                                info.architecture,
                                info.layers,
                                megabytes(info.file_bytes),
                                info.load_ms / 1000.0,
                                info.vocab,
                                info.context,
                            )}
                        </p>
                        <button type="button" data-testid="clear-cache" on:click=move |_| bridge.clear_cache()>
                            "Clear cached model"
                        </button>
                    }
                    .into_any()
                }
                ModelStatus::Error(message) => {
                    view! {
                        <p class="error" role="alert" data-testid="model-error">
                            <strong>"The model could not be loaded. "</strong>
                            {message}
                        </p>
                        <button type="button" data-testid="retry" on:click=move |_| bridge.retry()>"Retry"</button>
                    }
                    .into_any()
                }
            }}
            <ModelPicker/>
            <ThreadsLine />
            <ArithmeticLine />
            {move || {
                bridge.notice().get().map(|notice| view! { <p class="notice" role="status" data-testid="engine-notice">{notice}</p> })
            }}
        </section>
    }
}

/// How many threads the engine's passes use, or why only one.
#[component]
fn ThreadsLine() -> impl IntoView {
    let threads = expect_context::<Bridge>().threads();
    move || {
        let t = threads.get();
        let text = match &t.single {
            Some(reason) => format!("Engine: 1 thread, because {reason}."),
            None if t.max == 0 => "Engine: starting its threads…".to_string(),
            None => format!(
                "Engine: {} of {} threads (cross-origin isolated). Change it in the playground's settings.",
                t.using, t.max
            ),
        };
        view! { <p class="threads" data-testid="engine-threads" data-threads=t.using data-max=t.max>{text}</p> }
    }
}

/// Said only while the opt-in integer arithmetic is on: every figure a page shows then comes from it.
#[component]
fn ArithmeticLine() -> impl IntoView {
    let arithmetic = expect_context::<Bridge>().arithmetic();
    move || {
        arithmetic.with(|a| a.deviation.as_ref().map(|d| {
            let text = format!(
                "Arithmetic: integer (switched on in the playground's settings), so every figure the pages show now comes from it; \
                 on this model its logits differ from the exact ones by {:.1e} on average.",
                d.mean_abs
            );
            view! { <p class="threads" data-testid="engine-arithmetic">{text}</p> }
        }))
    }
}

fn progress_text(loaded: u64, total: Option<u64>, mb_per_s: f64) -> String {
    match total {
        Some(total) => format!("{} of {}, {mb_per_s:.1} MB/s", megabytes(loaded), megabytes(total)),
        None => format!("{}, {mb_per_s:.1} MB/s", megabytes(loaded)),
    }
}

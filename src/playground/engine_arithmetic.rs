//! The engine's opt-in integer arithmetic, a setting of the engine like its threads: off, every
//! product is exact; on, decode is faster and the logits move, by as much as was measured on
//! the loaded model when it was switched on, which is shown here. Kept for the next visit.

use crate::bridge::{Bridge, ModelStatus};
use crate::digits::grouped;
use crate::protocol::IntegerDeviation;
use leptos::prelude::*;

#[component]
pub fn EngineArithmetic() -> impl IntoView {
    let bridge = expect_context::<Bridge>();
    let arithmetic = bridge.arithmetic();
    let status = bridge.status();
    let ready = move || status.with(|s| match s {
        ModelStatus::Ready(info) => Some((info.integer_share, info.vocab)),
        _ => None,
    });
    let hint = move || {
        let a = arithmetic.get();
        if a.asked == Some(true) {
            return "Measuring what it changes on this model: decode steps run exactly and in integers from the same cache…".to_string();
        }
        if let Some(refused) = a.refused {
            return refused;
        }
        match (a.deviation, ready()) {
            (Some(d), Some((_, vocab))) => measured(&d, vocab),
            (_, Some((share, _))) if share > 0.0 => format!(
                "Off: every product is exact (activations in f32). On, each decode step rounds its activations to 16-bit integers, \
                 per block of 32, and multiplies them with the weights in integers, as llama.cpp does with 8 bits: faster, and the \
                 logits move a little. It covers {:.0} % of this model's weights per step (its Q4_0, Q4_1, Q5_0 and Q8_0 matrices). \
                 Switching it on first measures how much it changes them.",
                share * 100.0
            ),
            (_, Some(_)) => "This model has no Q4_0, Q4_1, Q5_0 or Q8_0 matrix, the types the integer arithmetic covers: it stays exact.".into(),
            (_, None) => "Available once a model is loaded.".into(),
        }
    };
    view! {
        <div class="control">
            <label class="switch">
                <input
                    type="checkbox"
                    data-testid="integer-setting"
                    aria-describedby="integer-arithmetic-hint"
                    prop:checked=move || arithmetic.with(|a| a.asked.unwrap_or(a.integer()))
                    disabled=move || arithmetic.with(|a| a.asked.is_some()) || !ready().is_some_and(|(share, _)| share > 0.0)
                    on:change=move |ev| bridge.set_integer_arithmetic(event_target_checked(&ev))
                />
                " Integer arithmetic (faster decode, not exact)"
            </label>
            <small
                id="integer-arithmetic-hint"
                data-testid="integer-hint"
                data-on=move || arithmetic.with(|a| a.integer().to_string())
                data-mean=move || arithmetic.with(|a| a.deviation.as_ref().map(|d| d.mean_abs.to_string()))
                data-same=move || arithmetic.with(|a| a.deviation.as_ref().map(|d| format!("{}/{}", d.same_greedy, d.steps)))
                data-share=move || arithmetic.with(|a| a.deviation.as_ref().map(|d| d.integer_share.to_string()))
            >
                {hint}
            </small>
        </div>
    }
}

/// What the measurement found, in the learner's terms.
fn measured(d: &IntegerDeviation, vocab: usize) -> String {
    let per_step = |ms: f64| ms / d.steps as f64;
    format!(
        "On. Measured on this model when it was switched on: {} greedy decode steps after a fixed text, each run exactly and in \
         integers from the same cache. The {} logits moved by {:.1e} on average and {:.3} at most; the most likely token was \
         the same at {} of {} steps; a step took {:.1} ms exactly and {:.1} ms in integers ({:.2}× as fast). It covers {:.0} % \
         of a step's weights; the rest, and every prompt's prefill, stay exact.",
        d.steps,
        grouped(vocab),
        d.mean_abs,
        d.max_abs,
        d.same_greedy,
        d.steps,
        per_step(d.exact_ms),
        per_step(d.integer_ms),
        d.exact_ms / d.integer_ms.max(1e-9),
        d.integer_share * 100.0,
    )
}

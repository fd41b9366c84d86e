//! Speculation faster, and slower with the reason, from the speculative panel's latest
//! comparison.

use super::check::{Check, Outcome};
use crate::lessons::stages::lab::Lab;
use crate::lessons::stages::number::{percent, ratio};
use crate::lessons::stages::spec_run::Comparison;
use leptos::prelude::*;

#[component]
pub fn Faster(lab: Lab) -> impl IntoView {
    let check = move || -> Outcome {
        let c = lab.spec.get_untracked();
        match c.speedup() {
            None => Err("Run plain and speculative decoding in the panel above, with a draft, to the end.".into()),
            Some(s) if s > 1.0 => {
                Ok(format!("Measured: {} the plain speed, with {} of drafts accepted.", ratio(s), accepted(&c)))
            }
            Some(s) => Err(format!(
                "This run was slower ({}). Give the draft something to copy, and keep the sampling predictable.",
                ratio(s)
            )),
        }
    };
    view! { <Check id="ex-speculation-faster" check=check/> }
}

/// The reasons a learner may give, and when the measured figures bear each out.
const REASONS: [(&str, &str); 5] = [
    ("rejected", "Most drafts were rejected: each cycle paid for drafting and verifying, and yielded about one token."),
    ("draft-cost", "Drafting was expensive: it took a large share of every cycle."),
    ("verify-cost", "Verifying the drafts in one pass cost more than decoding the accepted tokens one by one."),
    ("changed-text", "Speculation changed the text, so there was more to generate."),
    ("no-cache", "Speculation works without the KV cache."),
];

fn holds(reason: &str, c: &Comparison) -> bool {
    let spec = &c.spec;
    match reason {
        "rejected" => spec.acceptance_rate().is_some_and(|a| a < 0.5),
        "draft-cost" => spec.draft_ms() >= 0.3 * (spec.draft_ms() + spec.verify_ms()),
        "verify-cost" => c
            .plain_ms_per_token()
            .is_some_and(|plain| spec.verify_ms() > spec.decode_tokens() as f64 * plain),
        _ => false,
    }
}

#[component]
pub fn Slower(lab: Lab) -> impl IntoView {
    let reason = RwSignal::new(String::new());
    let check = move || -> Outcome {
        let c = lab.spec.get_untracked();
        let s = match c.speedup() {
            None => return Err(
                "Run plain and speculative decoding in the panel above, with a draft, to the end."
                    .into(),
            ),
            Some(s) if s >= 1.0 => {
                return Err(format!(
                    "This run was faster ({}): find a setting where it is slower.",
                    ratio(s)
                ))
            }
            Some(s) => s,
        };
        let chosen = reason.get_untracked();
        if chosen.is_empty() {
            return Err("Choose the reason.".into());
        }
        let figures = format!(
            "acceptance {}, drafting {} of the draft-and-verify time",
            accepted(&c),
            percent(
                c.spec.draft_ms() / (c.spec.draft_ms() + c.spec.verify_ms()).max(f64::MIN_POSITIVE)
            )
        );
        if holds(&chosen, &c) {
            Ok(format!(
                "Measured: {} the plain speed; {figures}.",
                ratio(s)
            ))
        } else if matches!(chosen.as_str(), "changed-text" | "no-cache") {
            Err("Speculation never changes the greedy text (the panel checks it) and keeps the cache: look at the draft's cost and its acceptance.".into())
        } else {
            Err(format!(
                "The figures of this run do not show that: {figures}."
            ))
        }
    };
    view! {
        <div class="control">
            <label for="slower-reason">"Why was it slower?"</label>
            <select id="slower-reason" data-testid="slower-reason" prop:value=move || reason.get() on:change=move |ev| reason.set(event_target_value(&ev))>
                <option value="">"Choose…"</option>
                {REASONS.iter().map(|&(v, text)| view! { <option value=v>{text}</option> }).collect_view()}
            </select>
        </div>
        <Check id="ex-speculation-slower" check=check/>
    }
}

fn accepted(c: &Comparison) -> String {
    c.spec
        .acceptance_rate()
        .map_or_else(|| "none".into(), percent)
}

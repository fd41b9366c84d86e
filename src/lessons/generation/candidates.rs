//! The candidates shown, most likely first, one button each: its probability after the
//! temperature (outline), its final probability (filled), the stage that cut it, and after
//! "Sample 1000×" how often it was drawn (thin line). Clicking one forces that token.

use crate::ui::format::prob;
use super::live::Live;
use super::draws::SampleResult;
use crate::ui::token_text::visible;
use engine::sampler::Candidate;
use leptos::prelude::*;

#[component]
pub fn Candidates() -> impl IntoView {
    let lesson = expect_context::<Live>();
    view! {
        <section class="candidates" aria-labelledby="candidates-title">
            <h3 id="candidates-title">"Candidates"</h3>
            <p class="hint">
                "Outline: probability after the temperature. Filled: final probability, after the cuts and renormalising. Click a candidate to force it as the next token."
            </p>
            <ol class="bars">
                {move || {
                    let sample = lesson.sample.get();
                    lesson.snapshot.with(|snap| {
                        snap.as_ref().map(|snap| {
                            let max = snap.top.iter().map(|c| c.prob.max(c.final_prob) as f64).fold(1e-9, f64::max);
                            snap.top
                                .iter()
                                .enumerate()
                                .map(|(i, c)| row(lesson, i, c, max, c.id == snap.next_token, sample.as_ref()))
                                .collect_view()
                        })
                    })
                }}
            </ol>
        </section>
    }
}

fn row(
    lesson: Live,
    rank: usize,
    c: &Candidate,
    max: f64,
    next: bool,
    sample: Option<&SampleResult>,
) -> impl IntoView {
    let id = c.id;
    let text = visible(&lesson.text(id));
    let width = |p: f64| 100.0 * (p / max).clamp(0.0, 1.0);
    let observed = sample.map(|s| s.counts.get(&id).copied().unwrap_or(0));
    let frequency = sample.zip(observed).map(|(s, o)| o as f64 / s.n as f64);
    let cut = c.cut_by.map_or("none", |s| s.name());
    let status = match (c.cut_by, next) {
        (Some(stage), _) => format!("cut by {}", stage.name()),
        (None, true) => "next draw".into(),
        (None, false) => String::new(),
    };
    // Read after the visible text, which stays the start of the button's name (speech
    // control users say what they see).
    let details = format!(
        ": logit {:.2}, probability after temperature {}; press to force it as the next token",
        c.logit,
        prob(c.prob as f64),
    );
    let class = format!(
        "prob-bar{}{}",
        if c.eligible() { "" } else { " cut" },
        if next { " next" } else { "" }
    );
    view! {
        <li>
            <button
                type="button"
                class=class
                data-testid="prob-bar"
                data-token-id=id
                data-logit=c.logit.to_string()
                data-softmax=c.prob.to_string()
                data-prob=c.final_prob.to_string()
                data-eligible=c.eligible().to_string()
                data-cut-by=cut
                data-observed=observed
                on:click=move |_| lesson.force(id)
                on:mouseenter=move |_| lesson.selected.set(Some(id))
                on:focus=move |_| lesson.selected.set(Some(id))
            >
                <span class="rank">{rank + 1}</span>
                <code class="tok">{text}</code>
                <svg class="meter" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
                    <rect class="softmax" x="0" y="0.5" width=width(c.prob as f64) height="9"/>
                    <rect class="final" x="0" y="2" width=width(c.final_prob as f64) height="6"/>
                    {frequency.map(|f| view! { <rect class="empirical" x="0" y="4.25" width=width(f) height="1.5"/> })}
                </svg>
                <span class="num">{prob(c.final_prob as f64)}</span>
                <span class="status">
                    {status}
                    // A cut token cannot be drawn: its count, always 0, would be noise.
                    {observed.filter(|&o| o > 0 || c.eligible()).map(|o| format!(" ×{o}"))}
                </span>
                <span class="sr-only">{details}</span>
            </button>
        </li>
    }
}

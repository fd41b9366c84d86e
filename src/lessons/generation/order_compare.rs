//! Temperature first or last: the learner's settings run twice on the same logits, once with
//! temperature before the cuts (this engine's default, and Hugging Face's) and once after
//! them (llama.cpp's default chain), and the two kept sets are shown side by side with the
//! reason they differ, or do not.

use super::live::Live;
use crate::ui::format::{count, prob};
use crate::ui::token_text::visible;
use engine::sampler::{distribution, SamplerSettings};
use leptos::prelude::*;

/// Kept candidates each side lists.
const LISTED: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub kept: usize,
    /// The most likely kept candidates and their final probabilities.
    pub top: Vec<(u32, f32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub first: Side,
    pub last: Side,
    pub reason: String,
}

/// The learner's settings with temperature first and last, the cuts in their order.
pub fn compare(logits: &[f32], s: &SamplerSettings, context: &[u32]) -> Comparison {
    let side = |place: usize| {
        let mut at = s.clone();
        at.arrange(&s.cuts(), place);
        let d = distribution(logits, &at, context);
        let top = d.candidates.iter().filter(|c| c.eligible()).take(LISTED).map(|c| (c.id, c.final_prob)).collect();
        Side { kept: d.eligible, top }
    };
    let (first, last) = (side(0), side(3));
    let reason = reason(s, first.kept, last.kept);
    Comparison { first, last, reason }
}

/// The one sentence that says why the two sides differ, for these settings.
pub fn reason(s: &SamplerSettings, first: usize, last: usize) -> String {
    let t = s.temperature;
    let weighing = s.top_p < 1.0 || s.min_p > 0.0;
    if t == 0.0 {
        return "T = 0 is greedy: every cut keeps the most likely token, so either way it alone is left.".into();
    }
    if t == 1.0 {
        return "At T = 1 temperature changes nothing, so its place cannot matter: the same set, the same probabilities.".into();
    }
    if !weighing {
        return format!(
            "Only top-k cuts here, and it counts ranks, which T never changes: the same {} are kept, and T = {t:.2} shapes them the same way.",
            count(first)
        );
    }
    let shape = if t > 1.0 { "flatter" } else { "sharper" };
    let effect = if first == last {
        format!("though here both keep {}", count(first))
    } else {
        format!("so they keep {} rather than {}", count(first), count(last))
    };
    format!(
        "Top-p and min-p weigh probabilities: with temperature first they weigh them at T = {t:.2}, {shape} than the model's own, {effect}; with temperature last they weigh the model's own (T = 1), and T then reshapes only what they kept."
    )
}

#[component]
pub fn OrderCompare() -> impl IntoView {
    let lesson = expect_context::<Live>();
    let comparison = Memo::new(move |_| {
        let s = lesson.settings.get();
        lesson.run.with(|r| r.as_ref().map(|r| compare(&r.logits, &s, &r.context)))
    });
    let side = move |which: &'static str, title: &'static str| {
        view! {
            <section class="order-side" data-order=which>
                <h4>{title}</h4>
                {move || comparison.with(|c| c.as_ref().map(|c| {
                    let side = if which == "first" { &c.first } else { &c.last };
                    let rows = side
                        .top
                        .iter()
                        .map(|&(id, p)| view! {
                            <li data-token-id=id data-prob=p>{format!("‘{}’ {}", visible(&lesson.text(id)), prob(p as f64))}</li>
                        })
                        .collect_view();
                    let more = side.kept.saturating_sub(side.top.len());
                    view! {
                        <p class="kept" data-testid="kept-count" data-kept=side.kept>{format!("{} kept", count(side.kept))}</p>
                        <ol class="kept-list">{rows}</ol>
                        {(more > 0).then(|| view! { <p class="hint">{format!("and {} more", count(more))}</p> })}
                    }
                }))}
            </section>
        }
    };
    view! {
        <section class="order-compare" data-testid="order-compare" aria-labelledby="order-compare-title">
            <h3 id="order-compare-title">"Temperature first or last"</h3>
            <p class="hint">"Your settings and cut order, with temperature before the cuts and after them, on the same logits."</p>
            <div class="order-sides">
                {side("first", "Temperature first (this page's default; Hugging Face, vLLM)")}
                {side("last", "Temperature last (llama.cpp's default chain)")}
            </div>
            <p class="order-reason" data-testid="order-reason" aria-live="polite">
                {move || comparison.with(|c| c.as_ref().map(|c| c.reason.clone()))}
            </p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn at_t_two_top_p_keeps_more_when_temperature_comes_first() {
        // Model probabilities 0.5, 0.3, 0.15, 0.05; at T = 2 about 0.379, 0.294, 0.208, 0.120.
        let logits: Vec<f32> = [0.5f32, 0.3, 0.15, 0.05].iter().map(|p| p.ln()).collect();
        let s = SamplerSettings { temperature: 2.0, top_k: 0, top_p: 0.75, min_p: 0.0, ..SamplerSettings::default() };
        let c = compare(&logits, &s, &[]);
        assert_eq!((c.first.kept, c.last.kept), (3, 2));
        let want = 0.5f32.sqrt() / (0.5f32.sqrt() + 0.3f32.sqrt());
        assert!((c.last.top[0].1 - want).abs() < 1e-6);
        assert!(c.reason.contains("flatter") && c.reason.contains("keep 3 rather than 2"), "{}", c.reason);
    }

    #[wasm_bindgen_test]
    fn where_the_order_cannot_matter_the_reason_says_why() {
        let logits: Vec<f32> = [0.5f32, 0.3, 0.15, 0.05].iter().map(|p| p.ln()).collect();
        let only_k = SamplerSettings { temperature: 1.5, top_k: 2, top_p: 1.0, min_p: 0.0, ..SamplerSettings::default() };
        let c = compare(&logits, &only_k, &[]);
        assert_eq!(c.first, c.last);
        assert!(c.reason.contains("counts ranks"));
        let one = SamplerSettings { temperature: 1.0, ..only_k };
        assert!(compare(&logits, &one, &[]).reason.contains("T = 1"));
    }
}

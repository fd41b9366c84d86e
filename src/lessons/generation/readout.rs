//! The distribution in a few numbers: how many candidates are eligible, how spread the
//! choice is, which token the next Step will draw, and what the last token's probability was.

use crate::ui::format::{count, prob};
use super::live::Live;
use crate::ui::token_text::visible;
use leptos::prelude::*;

#[component]
pub fn Readout() -> impl IntoView {
    let lesson = expect_context::<Live>();
    let numbers = move || {
        lesson.snapshot.with(|snap| {
            snap.as_ref().map(|s| {
                (
                    s.eligible,
                    s.vocab,
                    s.entropy_bits,
                    s.final_entropy_bits,
                    s.next_u,
                    s.next_token,
                    s.next_prob,
                )
            })
        })
    };
    let last = move || {
        lesson.run.with(|r| {
            r.as_ref()
                .and_then(|r| r.steps.last().map(|s| (s.token, s.prob, s.forced)))
        })
    };
    view! {
        <dl class="readout" aria-live="off">
            <div>
                <dt>"Eligible"</dt>
                <dd>
                    <output data-testid="eligible-count">{move || numbers().map(|n| n.0.to_string())}</output>
                    {move || numbers().map(|n| format!(" of {}", count(n.1)))}
                </dd>
            </div>
            <div>
                <dt>"Entropy"</dt>
                <dd data-testid="entropy">
                    {move || numbers().map(|n| format!("{:.2} bits after T, {:.2} after the cuts", n.2, n.3))}
                </dd>
            </div>
            <div>
                <dt>"Next draw"</dt>
                <dd data-testid="next-draw" data-token-id=move || numbers().map(|n| n.5)>
                    {move || {
                        numbers().map(|n| {
                            format!("u = {:.4} falls on ‘{}’ (p = {})", n.4, visible(&lesson.text(n.5)), prob(n.6 as f64))
                        })
                    }}
                </dd>
            </div>
            <div>
                <dt>"Last token"</dt>
                <dd data-testid="last-prob">
                    {move || match last() {
                        None => "none yet".to_string(),
                        Some((token, p, forced)) => {
                            let how = if forced { "forced" } else { "drawn" };
                            format!("‘{}’, {how} with p = {}", visible(&lesson.text(token)), prob(p as f64))
                        }
                    }}
                </dd>
            </div>
        </dl>
    }
}

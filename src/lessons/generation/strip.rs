//! The generated tokens, each coloured by the probability it had when it was drawn (or
//! forced); hovering or focusing one shows the distribution it came from.

use crate::ui::format::prob;
use super::live::{Live, StepRecord};
use crate::ui::token_text::visible;
use leptos::prelude::*;

#[component]
pub fn TokenStrip() -> impl IntoView {
    let lesson = expect_context::<Live>();
    view! {
        <div class="strip">
            <p class="strip-prompt">
                <span class="hint">"Prompt (as a chat message): "</span>
                {move || lesson.prompt.get()}
            </p>
            <ol class="token-strip" data-testid="token-strip" aria-label="Generated tokens">
                {move || {
                    lesson.run.with(|r| {
                        r.as_ref().map(|r| r.steps.iter().enumerate().map(|(i, s)| token(lesson, i, s)).collect_view())
                    })
                }}
            </ol>
            <p class="strip-legend hint">
                "Colour: the token's probability when it was chosen, from "<span class="tok p0">"low"</span>" to "
                <span class="tok p9">"high"</span>"; a dashed outline marks a forced token. Hover or focus a token to see its distribution."
            </p>
        </div>
    }
}

fn token(lesson: Live, i: usize, s: &StepRecord) -> impl IntoView {
    // Ten shades, one per tenth of probability.
    let shade = ((s.prob * 10.0) as usize).min(9);
    let class = format!("tok p{shade}{}", if s.forced { " forced" } else { "" });
    let tip_id = format!("tok-tip-{i}");
    let how = if s.forced { "forced" } else { "drawn" };
    let rows = s
        .shown
        .iter()
        .map(|&(id, p)| {
            let chosen = (id == s.token).then_some("chosen");
            view! { <li class=chosen><code>{visible(&lesson.text(id))}</code>" "{prob(p as f64)}</li> }
        })
        .collect_view();
    view! {
        <li>
            <span
                class=class
                tabindex="0"
                data-testid="strip-token"
                data-token-id=s.token
                data-prob=s.prob.to_string()
                data-forced=s.forced.to_string()
                aria-describedby=tip_id.clone()
            >
                {visible(&lesson.text(s.token))}
            </span>
            <span class="tok-tip" role="tooltip" id=tip_id>
                <strong>{format!("Token {}: {how}, p = {}", i + 1, prob(s.prob as f64))}</strong>
                <ol>{rows}</ol>
            </span>
        </li>
    }
}

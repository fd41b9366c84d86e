//! A generation on a time axis: the prefill as one block (the wait for the first token),
//! then one block per generated token, each as wide as it took.

use super::number::ms;
use super::run::Run;
use leptos::prelude::*;

const W: f64 = 480.0;
const H: f64 = 36.0;

#[component]
pub fn Timeline(#[prop(into)] run: Signal<Run>) -> impl IntoView {
    let blocks = move || {
        run.with(|r| {
            let total = r.total_ms();
            if total <= 0.0 {
                return ().into_any();
            }
            let scale = W / total;
            let mut t = 0.0;
            r.costs
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let class = match i {
                        0 => "prefill",
                        i if i % 2 == 1 => "token odd",
                        _ => "token",
                    };
                    let (x, width) = (t * scale, (c.ms * scale).max(0.5));
                    t += c.ms;
                    let what = match i {
                        0 => format!("prefill of {} tokens and the first token", c.computed),
                        i => format!("token {}", i + 1),
                    };
                    view! {
                        <rect x=x y="4" width=width height=H - 8.0 class=class data-ms=c.ms>
                            <title>{format!("{what}: {}", ms(c.ms))}</title>
                        </rect>
                    }
                })
                .collect_view()
                .into_any()
        })
    };
    let caption = move || {
        run.with(|r| match (r.costs.first(), r.decode_costs()) {
            (None, _) => "Run a prompt to see its timeline.".to_string(),
            (Some(first), rest) => format!(
                "Prefill: {} prompt tokens computed together, first token after {}. Decode: {} more tokens, one at a time, in {}.",
                first.computed,
                ms(first.ms),
                rest.len(),
                ms(r.decode_ms())
            ),
        })
    };
    view! {
        <figure class="chart timeline">
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label="Timeline of the generation" data-testid="timeline">
                {blocks}
            </svg>
            <figcaption>{caption}</figcaption>
        </figure>
    }
}

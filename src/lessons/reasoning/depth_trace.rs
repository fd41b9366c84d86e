//! One trace's tokens coloured by the layer each settles at; hovering a token, or moving
//! through them with the arrow keys (one focus stop), shows its divergence curve across the
//! layers against g, in bits.

use super::depth_record::Point;
use super::names;
use engine::probe::depth::{Thresholds, Unit};
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

/// Colour classes `settle-0` (shallow) to `settle-5` (the last layers), by sixths of the layers.
const BANDS: usize = 6;

const CURVE_W: f64 = 320.0;
const CURVE_H: f64 = 120.0;
const PAD: f64 = 28.0;

#[component]
pub fn DepthTrace(points: Memo<Vec<Point>>, thresholds: Memo<Thresholds>) -> impl IntoView {
    let chosen = RwSignal::new(0usize);
    let token = RwSignal::new(0usize);
    // The list grows as the run's items arrive; a trace's label does not depend on g or ρ.
    let options = move || {
        points.with(|points| {
            points
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let label = format!(
                        "{} · {} · sample {} ({} tokens)",
                        p.task_id,
                        names::name(p.strategy),
                        p.sample + 1,
                        p.tokens()
                    );
                    view! { <option value=i.to_string()>{label}</option> }
                })
                .collect_view()
        })
    };
    let point = move || points.with(|p| p.get(chosen.get()).cloned());
    let on_key = move |ev: KeyboardEvent| {
        let n = point().map_or(0, |p| p.tokens());
        let next = match ev.key().as_str() {
            "ArrowRight" | "ArrowDown" => (token.get() + 1).min(n.saturating_sub(1)),
            "ArrowLeft" | "ArrowUp" => token.get().saturating_sub(1),
            "Home" => 0,
            "End" => n.saturating_sub(1),
            _ => return,
        };
        ev.prevent_default();
        token.set(next);
    };
    let tokens = move || {
        point().map(|p| {
            let layers = p.depth.tokens[0].jsd.len();
            p.depth
                .texts
                .iter()
                .zip(&p.settle)
                .enumerate()
                .map(|(i, (text, &c))| {
                    let band = ((c.max(1) - 1) * BANDS / layers.max(1)).min(BANDS - 1);
                    let class = move || {
                        format!("depth-token settle-{band}{}", if token.get() == i { " depth-token-current" } else { "" })
                    };
                    view! {
                        <span class=class data-settle=c on:mouseenter=move |_| token.set(i)>{text.replace('\n', "↵\n")}</span>
                    }
                })
                .collect_view()
        })
    };
    let detail = move || {
        let p = point()?;
        let i = token.get().min(p.tokens().saturating_sub(1));
        let jsd = &p.depth.tokens.get(i)?.jsd;
        let t = thresholds.get();
        let layers = jsd.len();
        let x = |l: usize| PAD + (l as f64 - 1.0) / (layers.max(2) - 1) as f64 * (CURVE_W - 2.0 * PAD);
        // D in bits: 0 to 1, the chart's height.
        let y = |d: f64| CURVE_H - PAD - d * (CURVE_H - 2.0 * PAD);
        let line = jsd.iter().enumerate().map(|(l, &d)| format!("{:.1},{:.1}", x(l + 1), y(Unit::Bits.of_nats(d)))).collect::<Vec<_>>().join(" ");
        let c = p.settle[i];
        let deep = p.deep[i];
        let text = format!(
            "Token {} of {}, {:?}: settles at layer {c} of {layers}{} (D at layer 1: {:.3} bits; g = {:.2} bits).",
            i + 1,
            p.tokens(),
            p.depth.texts[i],
            if deep { ", deep-thinking" } else { "" },
            Unit::Bits.of_nats(jsd[0]),
            t.g
        );
        Some(view! {
            <figure class="chart depth-curve">
                <svg viewBox=format!("0 0 {CURVE_W} {CURVE_H}") role="img" aria-label=text.clone()>
                    <line class="axis" x1=PAD y1=CURVE_H - PAD x2=CURVE_W - PAD y2=CURVE_H - PAD></line>
                    <line class="grid depth-g" x1=PAD y1=y(t.g) x2=CURVE_W - PAD y2=y(t.g)></line>
                    <text class="tick" x=PAD - 4.0 y=y(t.g) + 4.0 text-anchor="end">"g"</text>
                    <text class="tick" x=PAD - 4.0 y=PAD + 4.0 text-anchor="end">"1 bit"</text>
                    <line class="grid" x1=x(c) y1=PAD x2=x(c) y2=CURVE_H - PAD></line>
                    <polyline class="depth-line" points=line></polyline>
                    <text class="tick" x=PAD y=CURVE_H - 8.0>"layer 1"</text>
                    <text class="tick" x=CURVE_W - PAD y=CURVE_H - 8.0 text-anchor="end">{format!("layer {layers}")}</text>
                </svg>
                <figcaption data-testid="depth-token-detail" data-settle=c>{text}</figcaption>
            </figure>
        })
    };
    view! {
        <section class="depth-trace-section" aria-labelledby="l3-depth-trace">
            <h4 id="l3-depth-trace">"One trace, token by token"</h4>
            <label for="l3-depth-choice">"Trace"</label>
            <select
                id="l3-depth-choice"
                data-testid="depth-trace-choice"
                prop:value=move || chosen.get().to_string()
                on:change=move |ev| {
                    chosen.set(event_target_value(&ev).parse().unwrap_or(0));
                    token.set(0);
                }
            >
                {options}
            </select>
            <p class="hint">"Colour: the layer a token settles at, light (early) to dark (the last layers). Hover a token, or focus the trace and use the arrow keys, for its divergence across the layers."</p>
            <div
                class="depth-tokens"
                data-testid="depth-trace"
                tabindex="0"
                role="group"
                aria-label="The trace's tokens; arrow keys move between them"
                on:keydown=on_key
            >
                {tokens}
            </div>
            <div aria-live="polite">{detail}</div>
        </section>
    }
}

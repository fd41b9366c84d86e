//! The pipeline drawn stage by stage, one small chart per stage, for the candidates shown:
//! logits, then temperature and the cut stages in the settings' order (a candidate greys
//! out at the stage that excludes it and stays grey after; a cut before temperature is
//! drawn in the model's own probabilities, T = 1), and the renormalised final distribution.

use crate::ui::format::{count, prob};
use super::live::Live;
use super::snapshot::{after_temperature, greyed_at, Snapshot};
use engine::sampler::{Candidate, SamplerSettings, Stage};
use leptos::prelude::*;

/// The charts' own coordinates; CSS stretches them to the panel.
const W: f64 = 200.0;
const H: f64 = 100.0;

#[component]
pub fn Stages() -> impl IntoView {
    let lesson = expect_context::<Live>();
    view! {
        <section class="stages" aria-label="The pipeline, stage by stage">
            {move || {
                let settings = lesson.settings.get();
                lesson.snapshot.with(|snap| snap.as_ref().map(|snap| panels(snap, &settings)))
            }}
        </section>
    }
}

fn panels(snap: &Snapshot, s: &SamplerSettings) -> impl IntoView {
    let top = &snap.top;
    let n = top.len().max(1) as f64;
    // One scale for every probability chart, so that heights compare across stages.
    let pmax = top
        .iter()
        .map(|c| c.prob.max(c.final_prob).max(c.model_prob) as f64)
        .fold(1e-9, f64::max);
    let left = |stage: Stage| snap.left.iter().find(|l| l.0 == stage).map_or(0, |l| l.1);
    let mut out = vec![logits_panel(top)];
    for (i, &stage) in s.order.iter().enumerate() {
        // Stage 1 is the logits.
        let k = i + 2;
        if stage == Stage::Temperature {
            out.push(softmax_panel(snap, s, pmax, k));
            continue;
        }
        let at_t = after_temperature(stage, &s.order);
        let probs: Vec<f64> =
            top.iter().map(|c| if at_t { c.prob } else { c.model_prob } as f64).collect();
        let greyed: Vec<bool> = top.iter().map(|c| greyed_at(c, stage, &s.order)).collect();
        let bars = bars(&probs, pmax, &greyed);
        let kept = count(left(stage));
        let seen = if at_t { "" } else { " (sees T = 1)" };
        let (title, note, overlay) = match stage {
            Stage::TopK if s.top_k > 0 => {
                let x = s.top_k as f64 * W / n;
                let line = (s.top_k < top.len())
                    .then(|| view! { <line class="cut-line" x1=x x2=x y1=0 y2=H/> });
                (
                    format!("{k}. Top-k, k = {}{seen}", s.top_k),
                    format!("keeps {kept}"),
                    line.into_any(),
                )
            }
            Stage::TopP if s.top_p < 1.0 => {
                let points: Vec<String> = snap
                    .top_p_cumulative
                    .iter()
                    .enumerate()
                    .map(|(i, c)| format!("{:.2},{:.2}", (i as f64 + 0.5) * W / n, H * (1.0 - c)))
                    .collect();
                let y = H * (1.0 - s.top_p as f64);
                let overlay = view! {
                    <polyline class="cumulative" points=points.join(" ")/>
                    <line class="p-line" x1=0 x2=W y1=y y2=y/>
                };
                (
                    format!("{k}. Top-p, p = {:.2}{seen}", s.top_p),
                    format!("keeps {kept}; line: cumulative, dashed: p"),
                    overlay.into_any(),
                )
            }
            Stage::MinP if s.min_p > 0.0 => {
                let y = H * (1.0 - snap.min_p_line / pmax);
                let line = view! { <line class="p-line" x1=0 x2=W y1=y y2=y/> };
                (
                    format!("{k}. Min-p, {:.2}{seen}", s.min_p),
                    format!(
                        "keeps {kept}; dashed: {} = {:.2} × top",
                        prob(snap.min_p_line),
                        s.min_p
                    ),
                    line.into_any(),
                )
            }
            _ => (
                format!("{k}. {} (off)", name(stage)),
                format!("keeps {kept}"),
                ().into_any(),
            ),
        };
        out.push(panel(title, note, bars, overlay, stage.name()));
    }
    let finals: Vec<f64> = top.iter().map(|c| c.final_prob as f64).collect();
    let cut: Vec<bool> = top.iter().map(|c| !c.eligible()).collect();
    let note = format!(
        "{} eligible, entropy {:.2} bits",
        count(snap.eligible),
        snap.final_entropy_bits
    );
    out.push(panel(
        "6. Renormalised".into(),
        note,
        bars(&finals, pmax, &cut),
        ().into_any(),
        "final",
    ));
    out
}

fn logits_panel(top: &[Candidate]) -> AnyView {
    let n = top.len().max(1) as f64;
    let hi = top
        .iter()
        .map(|c| c.logit.max(c.penalized) as f64)
        .fold(0.0, f64::max);
    let lo = top
        .iter()
        .map(|c| c.logit.min(c.penalized) as f64)
        .fold(0.0, f64::min);
    let y = |v: f64| H * (hi - v) / (hi - lo).max(1e-9);
    let rects = top
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let x = i as f64 * W / n + W / n * 0.125;
            let w = W / n * 0.75;
            let rect = |v: f64, class: &'static str| {
                let (a, b) = (y(v), y(0.0));
                view! { <rect class=class x=x y=a.min(b) width=w height=(a - b).abs()/> }
            };
            // The penalty only moves the logits of tokens already in the context.
            let penalized =
                (c.penalized != c.logit).then(|| rect(c.penalized as f64, "bar penalized"));
            view! { {rect(c.logit as f64, "bar")} {penalized} }
        })
        .collect_view();
    let (first, last) = (
        top.first().map_or(0.0, |c| c.logit),
        top.last().map_or(0.0, |c| c.logit),
    );
    let axis = view! { <line class="axis" x1=0 x2=W y1=y(0.0) y2=y(0.0)/> };
    panel(
        "1. Logits z".into(),
        format!("from {first:.2} to {last:.2}"),
        rects.into_any(),
        axis.into_any(),
        "logits",
    )
}

/// Temperature's stage, numbered `k`: the softmax at T over the whole vocabulary (greyed:
/// what earlier cuts removed; at T = 0, everything but the most likely still eligible).
fn softmax_panel(snap: &Snapshot, s: &SamplerSettings, pmax: f64, k: usize) -> AnyView {
    let probs: Vec<f64> = snap.top.iter().map(|c| c.prob as f64).collect();
    let greyed: Vec<bool> = snap
        .top
        .iter()
        .map(|c| greyed_at(c, Stage::Greedy, &s.order))
        .collect();
    let t = s.temperature;
    let (title, note) = if t == 0.0 {
        (
            format!("{k}. T = 0: greedy"),
            "keeps only the most likely".to_string(),
        )
    } else {
        (
            format!("{k}. Softmax at T = {t:.2}"),
            format!("entropy {:.2} bits", snap.entropy_bits),
        )
    };
    panel(
        title,
        note,
        bars(&probs, pmax, &greyed),
        ().into_any(),
        "softmax",
    )
}

/// Bars from the bottom, `max` at full height; a greyed bar keeps its height.
fn bars(values: &[f64], max: f64, greyed: &[bool]) -> AnyView {
    let n = values.len().max(1) as f64;
    values
        .iter()
        .zip(greyed)
        .enumerate()
        .map(|(i, (&v, &grey))| {
            let h = H * (v / max).clamp(0.0, 1.0);
            let class = if grey { "bar cut" } else { "bar" };
            view! { <rect class=class x=i as f64 * W / n + W / n * 0.125 y=H - h width=W / n * 0.75 height=h/> }
        })
        .collect_view()
        .into_any()
}

fn panel(
    title: String,
    note: String,
    bars: AnyView,
    overlay: AnyView,
    stage: &'static str,
) -> AnyView {
    view! {
        <figure class="stage" data-stage=stage>
            <figcaption><strong>{title}</strong>" "<span>{note}</span></figcaption>
            <svg viewBox=format!("0 0 {W} {H}") preserveAspectRatio="none" aria-hidden="true">
                {bars}
                {overlay}
            </svg>
        </figure>
    }
    .into_any()
}

fn name(stage: Stage) -> &'static str {
    match stage {
        Stage::Greedy => "Greedy",
        Stage::Temperature => "Temperature",
        Stage::TopK => "Top-k",
        Stage::TopP => "Top-p",
        Stage::MinP => "Min-p",
    }
}

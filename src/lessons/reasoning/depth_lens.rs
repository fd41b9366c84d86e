//! What the logit lens itself reads on this run: the mean D at each layer, over the traces'
//! tokens and over the prompts' tokens, and a baseline DTR on the prompts (teacher-forced,
//! text the model read but did not write). A small model's early layers are read poorly
//! through the final head, so "settling" may mostly track where the lens becomes readable;
//! if the prompts settle as the traces do, the DTR says little about reasoning.

use super::depth_record::{layer_means, prompt_dtrs, Point};
use super::chart::{BOTTOM, LEFT, RIGHT, TOP, WIDTH};
use super::lab::Lab;
use engine::probe::depth::{Thresholds, Unit};
use leptos::prelude::*;

const HEIGHT: f64 = 200.0;

#[component]
pub fn DepthLens(lab: Lab, points: Memo<Vec<Point>>, thresholds: Memo<Thresholds>) -> impl IntoView {
    let means = Memo::new(move |_| lab.run.with(|run| run.as_ref().map(|r| layer_means(r, Unit::Bits)).unwrap_or_default()));
    let prompts = Memo::new(move |_| {
        let t = thresholds.get();
        lab.run.with(|run| run.as_ref().map(|r| prompt_dtrs(r, t)).unwrap_or_default())
    });
    let chart = move || {
        let (traces, prompt_means) = means.get();
        let layers = traces.len().max(2);
        let x = move |l: usize| LEFT + (l as f64 - 1.0) / (layers - 1) as f64 * (WIDTH - LEFT - RIGHT);
        let y = |d: f64| HEIGHT - BOTTOM - d * (HEIGHT - BOTTOM - TOP);
        let line = move |v: &[f64]| v.iter().enumerate().map(|(l, &d)| format!("{:.1},{:.1}", x(l + 1), y(d))).collect::<Vec<_>>().join(" ");
        let g = thresholds.get().g;
        let values = |v: &[f64]| v.iter().map(|d| format!("{d:.4}")).collect::<Vec<_>>().join(",");
        let ticks = [0.0, 0.5, 1.0].map(|v| view! {
            <line class="grid" x1=LEFT y1=y(v) x2=WIDTH - RIGHT y2=y(v)></line>
            <text class="tick" x=LEFT - 8.0 y=y(v) + 4.0 text-anchor="end">{format!("{v:.1}")}</text>
        }).collect_view();
        let summary = format!(
            "Mean D by layer in bits, layer 1 to {}: traces {}; prompts {}.",
            traces.len(),
            values(&traces),
            if prompt_means.is_empty() { "not measured".into() } else { values(&prompt_means) }
        );
        view! {
            <figure class="chart" data-testid="depth-layers" data-traces=values(&traces) data-prompts=values(&prompt_means)>
                <figcaption>"Mean D by layer, in bits: the traces' tokens (solid) and the prompts' tokens (dashed), with g"</figcaption>
                <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=summary>
                    {ticks}
                    <line class="grid depth-g" x1=LEFT y1=y(g) x2=WIDTH - RIGHT y2=y(g)></line>
                    <text class="tick" x=WIDTH - RIGHT y=y(g) - 4.0 text-anchor="end">{format!("g = {g:.2} bits")}</text>
                    <polyline class="depth-line" points=line(&traces)></polyline>
                    <polyline class="depth-line depth-line-prompt" stroke-dasharray="6 4" points=line(&prompt_means)></polyline>
                    <text class="tick" x=LEFT y=HEIGHT - BOTTOM + 18.0>"layer 1"</text>
                    <text class="tick" x=WIDTH - RIGHT y=HEIGHT - BOTTOM + 18.0 text-anchor="end">{format!("layer {}", traces.len())}</text>
                </svg>
            </figure>
        }
    };
    let baseline = move || {
        let prompts = prompts.get();
        let traces = points.with(|p| p.iter().map(Point::dtr).collect::<Vec<_>>());
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let attr = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.4}"));
        let text = match (mean(&traces), mean(&prompts)) {
            (Some(t), Some(p)) => format!(
                "Mean DTR at these g and ρ: the traces {t:.3} ({} traces); the prompts, which the model read but did not write, {p:.3} ({} prompts, teacher-forced). {}",
                traces.len(),
                prompts.len(),
                "Where the two are close, the measure reads the lens and the layers more than any reasoning in the trace."
            ),
            _ => "The prompts' baseline is not in this run (a run saved before it was measured): run again to see it.".into(),
        };
        let list = prompts.iter().map(|d| format!("{d:.4}")).collect::<Vec<_>>().join(",");
        view! {
            <p data-testid="depth-baseline" data-dtr-traces=attr(mean(&traces)) data-dtr-prompts=attr(mean(&prompts)) data-prompt-dtrs=list>{text}</p>
        }
    };
    view! {
        <section aria-labelledby="l3-depth-lens">
            <h4 id="l3-depth-lens">"What the lens reads: D by layer, and a baseline"</h4>
            {chart}
            {baseline}
            <p class="hint">
                "The logit lens reads each layer through the model's own final head, which early layers were never trained to feed. Belrose et al. (2023, \"Eliciting Latent Predictions from Transformers with the Tuned Lens\") found the logit lens unreliable on early layers and trained a small affine probe per layer (the tuned lens) that reads them far better. With the plain lens, a high D at early layers may say more about the lens than about the model's reasoning, most of all in a small model."
            </p>
        </section>
    }
}

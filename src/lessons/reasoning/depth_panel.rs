//! "Depth, not length", measured on the run just made: the deep-thinking ratio of every
//! trace (Chen et al. 2026) with g and ρ adjustable, what measuring it cost, and the three
//! views of it (the scatter with its correlations, one trace coloured by depth, Think@n).
//! Every figure is recomputed from the divergences the worker sent, so the sliders redraw
//! without the model.

use super::depth_lens::DepthLens;
use super::depth_record::{cost, points, think_rates, think_tasks};
use super::depth_scatter::DepthScatter;
use super::depth_trace::DepthTrace;
use super::depth_within::DepthWithin;
use super::lab::Lab;
use super::think_at_n::ThinkAtN;
use crate::ui::field::Slider;
use engine::probe::depth::{Thresholds, Unit, DEFAULT_G, DEFAULT_RHO};
use leptos::prelude::*;

#[component]
pub fn DepthPanel(lab: Lab) -> impl IntoView {
    let g = RwSignal::new(DEFAULT_G);
    let rho = RwSignal::new(DEFAULT_RHO);
    // The sliders stay within the ranges `Thresholds::new` accepts; g is in bits, the study's unit.
    let thresholds = Memo::new(move |_| Thresholds::new(g.get(), rho.get(), Unit::Bits).unwrap_or_default());
    // The views below keep their own state (the trace chosen, P) while g and ρ move: only
    // these memos change.
    let points = Memo::new(move |_| {
        let t = thresholds.get();
        lab.run.with(|run| run.as_ref().map(|run| points(run, t)).unwrap_or_default())
    });
    let tasks = Memo::new(move |_| {
        let t = thresholds.get();
        lab.run.with(|run| run.as_ref().map(|run| think_tasks(run, t)).unwrap_or_default())
    });
    let has_points = Memo::new(move |_| points.with(|p| !p.is_empty()));
    let rates = Memo::new(move |_| lab.run.with(|run| run.as_ref().and_then(think_rates)));
    move || {
        if !has_points.get() {
            return lab
                .run
                .with(|r| r.as_ref().is_some_and(|r| !r.experiment.strategies.iter().any(|&s| r.experiment.scores_depth(s))))
                .then(|| {
                    view! {
                        <p class="hint" data-testid="depth-none">
                            "Depth is measured on chain-of-thought and self-consistency traces when \"Measure depth\" is ticked: tick both and run again to see it here."
                        </p>
                    }
                })
                .into_any();
        }
        let experiment = lab.run.with_untracked(|r| r.as_ref().map(|r| r.experiment.clone()));
        let Some(experiment) = experiment else { return ().into_any() };
        let layers = points.with_untracked(|p| p[0].depth.tokens.first().map_or(0, |t| t.jsd.len()));
        let cost_text = move || {
            let (generation_ms, depth_ms) =
                lab.run.with(|run| run.as_ref().map_or((0.0, 0.0), cost));
            let factor = (generation_ms + depth_ms) / generation_ms.max(1e-9);
            let text = format!(
                "Measuring depth on this run took {:.1} s on top of the {:.1} s these traces took to write: {factor:.1}× the time of the same run without it.",
                depth_ms / 1000.0,
                generation_ms / 1000.0
            );
            (format!("{factor:.2}"), text)
        };
        view! {
            <section class="depth-section" data-testid="depth" aria-labelledby="l3-depth">
                <h3 id="l3-depth">"Depth, not length: how deep each token settles"</h3>
                <p>
                    "For every token t of a trace and every layer l = 1…L (L = " {layers} "), the page has "
                    <em>"p"<sub>"t,l"</sub></em>" = softmax(head(norm(h"<sub>"t,l"</sub>"))), that layer's prediction read through the model's own output head, and "
                    <em>"D"<sub>"t,l"</sub></em>" = JSD(p"<sub>"t,L"</sub>", p"<sub>"t,l"</sub>"), its Jensen–Shannon divergence from the model's final prediction, in bits (base-2 logarithms, 0 to 1; the study's unit, as its figures show). The token "
                    <em>"settles"</em>" at c"<sub>"t"</sub>" = the smallest l with min"<sub>"j ≤ l"</sub>" D"<sub>"t,j"</sub>" ≤ g, and is deep-thinking when c"<sub>"t"</sub>" ≥ ⌈ρ·L⌉ (here layer "
                    {move || thresholds.get().first_deep_layer(layers)} "). A trace's deep-thinking ratio (DTR) is its deep tokens over its tokens."
                </p>
                <div class="lab-grid">
                    <Slider
                        id="l3-depth-g" testid="depth-g" label="g in bits (settled when D ≤ g)"
                        min=0.0 max=1.0 step=0.01 readout={|v| format!("{v:.2} bits")}
                        value=g set=move |v: f64| g.set(v)
                    >
                        "The default 0.5 bits is the study's, which also tried 0.25 and 0.75."
                    </Slider>
                    <Slider
                        id="l3-depth-rho" testid="depth-rho" label="ρ (deep from layer ⌈ρ·L⌉)"
                        min=0.0 max=1.0 step=0.05 readout={|v| format!("{v:.2}")}
                        value=rho set=move |v: f64| rho.set(v)
                    >
                        "The default 0.85 is the study's."
                    </Slider>
                </div>
                <p class="hint" data-testid="depth-peer">{format!(
                    "Definitions differ between implementations. The Python package deep-think-tokens (0.1.0) takes D in nats (0 to 0.693), so its g = 0.5 is 0.72 bits, a looser threshold under which tokens settle no later than here, and it cuts the deep layers at int(0.9·L) = {} of {layers} rather than the study's ⌈0.85·L⌉ = {}. Its ratios are a different quantity from the study's and from these.",
                    9 * layers / 10,
                    Thresholds::default().first_deep_layer(layers)
                )}</p>
                <p data-testid="depth-cost" data-factor=move || cost_text().0>{move || cost_text().1}</p>
                <DepthScatter points=points seed=experiment.seed/>
                <DepthWithin points=points/>
                <DepthLens lab=lab points=points thresholds=thresholds/>
                <DepthTrace points=points thresholds=thresholds/>
                <ThinkAtN tasks=tasks rates=rates budget=experiment.budget samples=experiment.samples/>
            </section>
        }
        .into_any()
    }
}

//! "Sample 1000×": the next token drawn many times from the final distribution, by the
//! engine's own `Distribution::draw` with the seed's generator, and how well the counts fit
//! the probabilities. The counts show on the candidates' bars (`Candidates`); this part
//! holds the button and the goodness of fit.

use crate::ui::format::{count, prob};
use super::draws::{sample, SampleResult};
use super::live::Live;
use leptos::prelude::*;

pub const DRAWS: u64 = 1000;

#[component]
pub fn Sample() -> impl IntoView {
    let lesson = expect_context::<Live>();
    // A sample belongs to one distribution: a new setting or a new context retires it.
    Effect::new(move |_| {
        lesson.settings.track();
        lesson.run.track();
        lesson.sample.set(None);
    });
    let draw = move |_| {
        let settings = lesson.settings.get_untracked();
        let shown: Vec<u32> = lesson.snapshot.with_untracked(|s| {
            s.as_ref()
                .map(|s| s.top.iter().map(|c| c.id).collect())
                .unwrap_or_default()
        });
        let result = lesson.run.with_untracked(|r| {
            r.as_ref()
                .map(|r| sample(&r.logits, &settings, &r.context, &shown, DRAWS))
        });
        lesson.sample.set(result);
    };
    view! {
        <section class="sample" aria-labelledby="sample-title">
            <h3 id="sample-title">"Sample 1000×"</h3>
            <p class="hint">
                "Draws the next token 1000 times from the final distribution, with the seed's generator and the engine's own draw, and shows the counts on the bars above (the thin line inside each bar) against the probabilities. "
                "The bars and the draws come from the same distribution, so this tests the draw and the generator, not the cuts: a wrong cut would be drawn from faithfully. Whether the cuts are right is what the stage charts and the sources show."
            </p>
            <button type="button" data-testid="sample" disabled=move || lesson.run.with(|r| r.is_none()) on:click=draw>
                "Sample 1000×"
            </button>
            {move || lesson.sample.with(|r| r.as_ref().map(summary))}
        </section>
    }
}

fn summary(r: &SampleResult) -> impl IntoView {
    let fit = match r.chi {
        Some(c) => format!(
            "Chi-square = {:.2} with {} degrees of freedom ({} groups): p = {}. ",
            c.statistic,
            c.dof,
            c.categories,
            prob(c.p_value)
        ),
        None => {
            "Only one token can be drawn, so every draw is that token: there is nothing to test. "
                .into()
        }
    };
    view! {
        <div class="sample-result" data-testid="sample-result" data-draws=r.n data-p-value=r.chi.map(|c| c.p_value)>
            <p>
                {format!("{} draws gave {} different tokens; {} went to eligible tokens without a bar (expected {}). ",
                    count(r.n as usize), r.counts.len(), r.rest.0, prob(r.rest.1 * r.n as f64))}
                <strong>{fit}</strong>
                <span data-testid="sample-tvd" data-tvd=r.tvd data-chance=r.chance_tvd data-kept=r.kept>
                    {format!("Total variation distance: {:.3}; a correct sampler shows {:.3} on average at {} draws over these {} kept tokens, from chance alone.", r.tvd, r.chance_tvd, count(r.n as usize), count(r.kept))}
                </span>
            </p>
            <p class="hint">
                "Chi-square adds up (observed − expected)² / expected over every token expected at least 5 times; the rarer ones are pooled into one group. "
                "The p-value is the chance that a sampler drawing exactly these probabilities shows a chi-square this large or larger: "
                "expect values spread evenly between 0 and 1, and about 1 sample in 100 below 0.01. "
                "Total variation distance is half the summed gap between observed frequencies and probabilities: the most that the probability of any set of tokens is off by. "
                "Even exact draws show some: about ½·√(2k/(πn)) for k equally likely tokens and n draws (0.04 for k = 10 at n = 1000), more when many tokens are kept, computed here exactly for these probabilities."
            </p>
        </div>
    }
}

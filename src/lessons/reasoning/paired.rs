//! Strategies compared pair by pair on the same tasks: how many tasks each got right where
//! the other was wrong, and McNemar's exact p for that split. Tasks both get right (or both
//! wrong) say nothing about which is better, so only the discordant ones are weighed.

use super::names;
use super::run::Run;
use engine::reasoning::stats::{paired, Paired};
use engine::reasoning::strategy::{ItemResult, Strategy};
use leptos::prelude::*;

/// The paired comparison of two result lists over the same tasks, in the same order.
pub fn compare(first: &[ItemResult], second: &[ItemResult]) -> Paired {
    let verdicts = |rs: &[ItemResult]| rs.iter().map(|r| r.correct).collect::<Vec<_>>();
    paired(&verdicts(first), &verdicts(second))
}

/// "p = 0.12", "p < 0.001".
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else {
        format!("p = {:.3}", p)
    }
}

/// McNemar's p at or above this says the pair showed nothing: a split this even is what two
/// equally good strategies give most of the time.
pub const NOTHING_SHOWN_P: f64 = 0.5;

/// "Chain of thought right and direct answer wrong: 4; the reverse: 11; McNemar's exact
/// p = 0.118: it leans towards direct answer, …": rare under equal strategies below 0.05,
/// a lean between that and `NOTHING_SHOWN_P`, nothing shown above.
pub fn sentence(first: &str, second: &str, p: &Paired) -> String {
    let verdict = if p.p_value < 0.05 {
        "a split this uneven would be rare if the two were equally good".to_string()
    } else if p.p_value < NOTHING_SHOWN_P {
        let leaning = if p.only_first > p.only_second { first } else { second };
        format!(
            "it leans towards {}, but two equally good strategies split at least this unevenly in {:.0}% of runs: suggestive, not settled",
            leaning.to_lowercase(),
            100.0 * p.p_value
        )
    } else {
        "this run has not shown that either is better".to_string()
    };
    format!(
        "{first} right and {} wrong: {}; the reverse: {}; McNemar's exact {}: {verdict}.",
        second.to_lowercase(),
        p.only_first,
        p.only_second,
        p_text(p.p_value)
    )
}

#[component]
pub fn PairedComparison(run: Run) -> impl IntoView {
    let strategies: Vec<Strategy> = run.strategies().to_vec();
    if strategies.len() < 2 {
        return None;
    }
    let samples = run.experiment.samples;
    let mut rows = Vec::new();
    for (i, &a) in strategies.iter().enumerate() {
        for &b in &strategies[i + 1..] {
            let p = compare(&run.results_of(a), &run.results_of(b));
            let (na, nb) = (
                names::name_with_samples(a, samples),
                names::name_with_samples(b, samples),
            );
            rows.push(view! {
                <li
                    data-first=names::id(a)
                    data-second=names::id(b)
                    data-only-first=p.only_first
                    data-only-second=p.only_second
                    data-both=p.both
                    data-neither=p.neither
                    data-p=p.p_value.to_string()
                >
                    {sentence(&na, &nb, &p)}
                    {format!(" (Both right: {}; both wrong: {}.)", p.both, p.neither)}
                </li>
            });
        }
    }
    Some(view! {
        <section class="paired" data-testid="paired-comparison" aria-labelledby="l3-paired">
            <h4 id="l3-paired">"Paired comparison on the same tasks"</h4>
            <p>"Every strategy ran on the same tasks, so they are compared task by task: only the tasks where one was right and the other wrong tell them apart. McNemar's exact test asks how often a split at least this uneven would happen if each such task were a coin toss."</p>
            <ul>{rows}</ul>
        </section>
    })
}

#[cfg(test)]
mod tests {
    use super::sentence;
    use engine::reasoning::stats::paired;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The verdict follows McNemar's p: rare below 0.05 (6 to 0, p = 0.031), a lean towards
    /// the side with more wins up to 0.5 (3 to 0, p = 0.25), nothing shown above (2 to 1, p = 1).
    #[wasm_bindgen_test]
    fn the_sentence_says_what_the_split_shows() {
        let split = |a: usize, b: usize| {
            let first: Vec<bool> = (0..a).map(|_| true).chain((0..b).map(|_| false)).collect();
            let second: Vec<bool> = first.iter().map(|c| !c).collect();
            sentence("Chain of thought", "Direct answer", &paired(&first, &second))
        };
        assert!(split(6, 0).ends_with("p = 0.031: a split this uneven would be rare if the two were equally good."), "{}", split(6, 0));
        assert!(split(0, 3).ends_with("p = 0.250: it leans towards direct answer, but two equally good strategies split at least this unevenly in 25% of runs: suggestive, not settled."), "{}", split(0, 3));
        assert!(split(2, 1).ends_with("p = 1.000: this run has not shown that either is better."), "{}", split(2, 1));
    }
}

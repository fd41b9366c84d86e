//! Think@n (Chen et al. 2026) on this run's self-consistency samples: per task, keep the half
//! of the N samples whose first P tokens think deepest, vote over those, and compare accuracy
//! and tokens with the plain vote over all N, on the same samples. Its cost counts the depth
//! pass too: ranking needs every layer's distribution for every prefix token, which this
//! run measured (`think_rates`).

use super::names;
use crate::ui::field::WholeNumber;
use engine::reasoning::depth_stats::{think_at_n, ThinkTask};
use leptos::prelude::*;

#[component]
pub fn ThinkAtN(tasks: Memo<Vec<ThinkTask>>, rates: Memo<Option<(f64, f64)>>, budget: usize, samples: usize) -> impl IntoView {
    let prefix = RwSignal::new(32.min(budget) as u64);
    let result = Memo::new(move |_| tasks.with(|t| think_at_n(t, prefix.get() as usize)));
    let pct = |c: usize, n: usize| 100.0 * c as f64 / n.max(1) as f64;
    let row = move |name: &'static str, correct: usize, (lo, hi): (f64, f64), tokens: usize| {
        let n = result.with(|r| r.tasks);
        view! {
            <tr>
                <th scope="row">{name}</th>
                <td>{format!("{correct}/{n} ({:.0}%, 95% interval {:.0}–{:.0}%)", pct(correct, n), lo * 100.0, hi * 100.0)}</td>
                <td>{tokens}</td>
            </tr>
        }
    };
    let summary = move || {
        let r = result.get();
        let p = r.paired;
        let saved = 100.0 * (1.0 - r.think_tokens as f64 / r.plain_tokens.max(1) as f64);
        format!(
            "On the same {}: Think@n was right where the plain vote was wrong on {}, and wrong where it was right on {} (McNemar p = {:.2}{}). It generated {saved:.0}% fewer tokens, stopping the others after {}.",
            names::count(r.tasks, "task", "tasks"),
            p.only_first,
            p.only_second,
            p.p_value,
            if p.p_value < 0.05 { ": a difference beyond chance" } else { ": chance alone could give a split like this, so the run shows no difference" },
            names::count(r.prefix, "token", "tokens")
        )
    };
    // Time, depth included, at this run's own rates: Think@n scores the first P tokens of every
    // sample for depth on top of generating what it keeps.
    let cost = move || {
        let r = result.get();
        let Some((gen, depth)) = rates.get() else { return (String::new(), String::new()) };
        let scored: usize = tasks.with(|t| t.iter().flat_map(|t| &t.samples).map(|s| s.deep.len().min(r.prefix)).sum());
        let plain = gen * r.plain_tokens as f64;
        let think = gen * r.think_tokens as f64 + depth * scored as f64;
        let share = 100.0 * think / plain.max(1e-9);
        let text = format!(
            "With the depth pass counted: at this run's measured rates ({gen:.1} ms per generated token, {depth:.1} ms per token scored for depth), the plain vote's {} tokens take about {:.1} s; Think@n's {} tokens plus depth on {} prefix tokens take about {:.1} s, {share:.0}% of the plain vote's time.",
            r.plain_tokens,
            plain / 1000.0,
            r.think_tokens,
            scored,
            think / 1000.0
        );
        (format!("{share:.1}"), text)
    };
    // Records arrive item by item: the samples of self-consistency may come after others.
    let empty = Memo::new(move |_| tasks.with(Vec::is_empty));
    move || {
        if empty.get() {
            return view! {
                <section class="think-section" data-testid="think-at-n" data-tasks="0">
                    <h4>"Think@n"</h4>
                    <p class="hint">"Think@n chooses among self-consistency's samples: tick self-consistency (with N of 2 or more) and run again."</p>
                </section>
            }
            .into_any();
        }
        view! {
        <section class="think-section" data-testid="think-at-n" data-tasks=move || result.with(|r| r.tasks) data-prefix=move || prefix.get()>
            <h4>"Think@n"</h4>
            <p>{format!(
                "Per task, the ⌈{samples}/2⌉ = {} of its {samples} samples with the highest DTR on their first P tokens vote; the others could have been stopped after P tokens.",
                samples.div_ceil(2)
            )}</p>
            <WholeNumber
                id="think-prefix" label="P, the tokens the choice looks at"
                min=1 max=budget as u64
                value=Signal::derive(move || prefix.get())
                set=move |p: u64| prefix.set(p)
            />
            <table class="results-table">
                <thead><tr><th scope="col">"vote"</th><th scope="col">"correct"</th><th scope="col">"tokens generated"</th></tr></thead>
                <tbody>
                    {move || {
                        let r = result.get();
                        view! {
                            {row("plain vote over all N", r.plain_correct, r.plain_interval, r.plain_tokens)}
                            {row("Think@n", r.think_correct, r.think_interval, r.think_tokens)}
                        }
                    }}
                </tbody>
            </table>
            <p data-testid="think-summary">{summary}</p>
            <p data-testid="think-cost" data-share=move || cost().0>{move || cost().1}</p>
            <p class="hint">
                "The study (Chen et al. 2026) reports that Think@n \"matches or exceeds\" self-consistency at about half the cost, on large reasoning models; on GPQA-Diamond, choosing by the model's confidence (Self-Certainty@n) came out ahead of it. A count of tokens saved leaves out the layers' distributions that ranking needs, which this page measured at 2.3 to 4 times the generation time (docs/BENCHMARKS.md, 2026-12-03): the estimate above counts them."
            </p>
        </section>
        }
        .into_any()
    }
}

//! Which loop decode's matrix-vector products run for each block family of the loaded model,
//! and the timings that chose it (`engine::quant::choice`): the engine times the candidates on
//! the model's own matrices when it loads and when the thread count changes, unless the
//! browser kept a choice for this model and count. The text is the same whichever loop runs;
//! only the speed differs, and which loop is fastest differs between CPUs.

use crate::bridge::Bridge;
use crate::protocol::Kernels;
use engine::quant::choice::{FamilyChoice, LoopTiming};
use leptos::prelude::*;

#[component]
pub fn EngineKernels() -> impl IntoView {
    let kernels = expect_context::<Bridge>().kernels();
    view! {
        <div class="control" data-testid="kernels"
            data-measured=move || kernels.with(|k| k.as_ref().map(|k| k.measured_now.to_string()))
            data-threads=move || kernels.with(|k| k.as_ref().map(|k| k.choice.key.threads.to_string()))
        >
            <strong>"Decode loops"</strong>
            {move || kernels.with(|k| match k {
                Some(k) => view! {
                    <small data-testid="kernels-how">{how(k)}</small>
                    <div class="table-scroll">
                        <table class="results">
                            <thead><tr><th scope="col">"Block family"</th><th scope="col">"Loop"</th><th scope="col">"Candidates: fastest of the rounds"</th></tr></thead>
                            <tbody>{k.choice.families.iter().map(family_row).collect_view()}</tbody>
                        </table>
                    </div>
                }.into_any(),
                None => view! { <small>"Chosen when a model is loaded."</small> }.into_any(),
            })}
        </div>
    }
}

fn how(k: &Kernels) -> String {
    let threads = k.choice.key.threads;
    let thread_word = if threads == 1 { "thread" } else { "threads" };
    let when = if k.measured_now { "Timed now, on this device" } else { "Kept from an earlier load on this device (not timed again)" };
    format!(
        "{when}, at {threads} {thread_word}: each candidate loop multiplied up to {:.1} MB of the model's own weights per round \
         (a family with fewer weights, all of them), {} rounds, taking {:.0} ms in all. A family keeps its default loop unless \
         another is faster by more than the rounds' spread. Every loop sums each row in the same order, so the text is the same \
         whichever runs.",
        k.choice.families.iter().map(|f| f.bytes).max().unwrap_or(0) as f64 / 1e6,
        k.choice.families.first().and_then(|f| f.timings.first()).map_or(0, |t| t.rounds_ms.len()),
        k.choice.took_ms,
    )
}

fn family_row(f: &FamilyChoice) -> impl IntoView {
    let chosen = f.chosen.name();
    let default = if f.chosen == f.default { " (default)".to_string() } else { format!(" (default {})", f.default.name()) };
    let timings = if f.timings.is_empty() {
        "forced, not timed".to_string()
    } else {
        f.timings.iter().map(|t| timing(t, f.bytes)).collect::<Vec<_>>().join("; ")
    };
    let best_ms = f.timings.iter().map(|t| format!("{}:{}", t.decode_loop.name(), t.best_ms())).collect::<Vec<_>>().join(",");
    view! {
        <tr data-testid="kernels-family" data-family=f.family.name() data-chosen=chosen data-default=f.default.name()
            data-best-ms=best_ms data-bytes=f.bytes.to_string() data-noise=f.noise.to_string()
        >
            <th scope="row">{f.family.name()}</th>
            <td>{chosen}{default}</td>
            <td>{timings}</td>
        </tr>
    }
}

/// "one-row 2.42 ms (3.5 GB/s)": the fastest round and the rate it read the weights at.
fn timing(t: &LoopTiming, bytes: u64) -> String {
    let best = t.best_ms();
    format!("{} {best:.2} ms ({:.1} GB/s)", t.decode_loop.name(), bytes as f64 / best / 1e6)
}

//! What threads buy in each stage: the prefill panel's run, cold and greedy, at 1 thread,
//! 2, … up to the most the engine has, its prefill and decode speeds side by side, each
//! measured on this device at that moment. The learner's own thread count is set back after.

use super::actions::Actions;
use super::lab::Lab;
use super::number::{ratio, tps};
use super::prompt_field::stage_prompt;
use super::run::{measure, Run};
use super::saved_measurements::{Measurement, Speeds};
use crate::bridge::Bridge;
use crate::protocol::{CacheMode, StagePrompt};
use leptos::prelude::*;

const PANEL: &str = "threads";

#[component]
pub fn ThreadsPanel(lab: Lab, text: RwSignal<String>, chat: RwSignal<bool>, max_tokens: RwSignal<usize>) -> impl IntoView {
    let bridge = expect_context::<Bridge>();
    let threads = bridge.threads();
    let rows = lab.threads;
    let error = RwSignal::new(None::<String>);
    let start = move || {
        let (using, max) = threads.with_untracked(|t| (t.using, t.max));
        rows.set(Vec::new());
        error.set(None);
        let prompt = stage_prompt(lab.engine, text.get_untracked(), chat.get_untracked());
        measure_from(Chain { lab, bridge, prompt, max_tokens: max_tokens.get_untracked(), max, restore: using, rows, error }, 1);
    };
    let table = move || {
        let rows = rows.get();
        let one = rows.first().copied();
        (!rows.is_empty()).then(|| view! {
            <table class="numbers" data-testid="threads-table">
                <caption>"The same run at each thread count (prefill over the whole prompt, decode over the tokens after the first)."</caption>
                <thead><tr><th scope="col">"Threads"</th><th scope="col">"Prefill"</th><th scope="col">"Decode"</th><th scope="col">"Prefill vs 1 thread"</th><th scope="col">"Decode vs 1 thread"</th></tr></thead>
                <tbody>
                    {rows.into_iter().map(|r| {
                        let (p, d) = one.map_or((1.0, 1.0), |o| (r.prefill / o.prefill, r.decode / o.decode));
                        view! {
                            <tr data-threads=r.threads>
                                <th scope="row">{r.threads}</th>
                                <td data-testid="threads-prefill">{tps(r.prefill)}</td>
                                <td data-testid="threads-decode">{tps(r.decode)}</td>
                                <td>{ratio(p)}</td>
                                <td>{ratio(d)}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        })
    };
    view! {
        <div class="threads-lab" data-testid="threads-lab">
            <h4 id="threads-lab">"Threads: what parallelism buys in each stage"</h4>
            {move || threads.with(|t| match &t.single {
                Some(reason) => view! { <p class="hint">{format!("The engine runs on one thread here, because {reason}.")}</p> }.into_any(),
                None if t.max == 0 => view! { <p class="hint">"The engine is starting its threads."</p> }.into_any(),
                None => view! {
                    <p class="hint">{format!(
                        "The engine can split each pass's matrix products over up to {} threads. This runs the prompt above at each count, one after another.",
                        t.max
                    )}</p>
                }.into_any(),
            })}
            <Actions lab=lab panel=PANEL label="Measure at each thread count" on_run=start enabled=Signal::derive(move || threads.with(|t| t.max > 1))/>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {table}
        </div>
    }
}

/// What the chain of runs needs from one to the next.
#[derive(Clone)]
struct Chain {
    lab: Lab,
    bridge: Bridge,
    prompt: StagePrompt,
    max_tokens: usize,
    max: usize,
    restore: usize,
    rows: RwSignal<Vec<Speeds>>,
    error: RwSignal<Option<String>>,
}

/// Runs at `n` threads, then at `n + 1`, up to `max`; sets the learner's count back when done
/// or when a run fails or is stopped.
fn measure_from(chain: Chain, n: usize) {
    chain.bridge.use_threads(n);
    let run = RwSignal::new(Run::default());
    let next = chain.clone();
    measure(chain.lab.engine, PANEL, chain.prompt.clone(), CacheMode::Cold, chain.max_tokens, run, move |r: &Run| {
        match (r.prefill_tps(), r.decode_tps(), &r.error) {
            (Some(prefill), Some(decode), None) => {
                next.rows.update(|rows| rows.push(Speeds { threads: n, prefill, decode }));
                if n < next.max {
                    return measure_from(next.clone(), n + 1);
                }
                if let Some(rows) = next.rows.try_get_untracked() {
                    next.lab.save(Measurement::Threads { rows });
                }
            }
            (_, _, Some(e)) => next.error.set(Some(e.clone())),
            // Stopped, or too few tokens to time decode.
            _ => {}
        }
        next.bridge.use_threads(next.restore);
    });
}

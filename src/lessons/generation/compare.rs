//! Two settings side by side on the lesson's prompt: N continuations each, continuation i
//! with seed + i on both sides (all asked for in one `Continue`, which the worker decodes
//! together), then how diverse each side is (distinct-2) and how likely the model itself
//! found its text (mean log-probability per token).

use super::live::Live;
use super::stats::distinct_2;
use crate::ui::token_text::visible;
use crate::ui::field::{count_input, decimal_input, whole_number_input};
use crate::ui::settings_query::{Bound, MIN_P, TEMPERATURE, TOP_K, TOP_P};
use crate::protocol::{Request, Response};
use engine::{SamplerSettings, StopReason};
use leptos::prelude::*;

const COUNT: (usize, usize, usize) = (1, 5, 10);
const MAX_TOKENS: (usize, usize, usize) = (4, 32, 128);

#[derive(Debug, Clone, PartialEq)]
struct Continuation {
    seed: u64,
    text: String,
    tokens: Vec<u32>,
    logprobs: Vec<f32>,
    stop: StopReason,
}

/// One side: its settings and what they produced (with the settings they were run with).
#[derive(Clone, Copy)]
struct Side {
    name: &'static str,
    settings: RwSignal<SamplerSettings>,
    ran: RwSignal<Option<SamplerSettings>>,
    results: RwSignal<Vec<Continuation>>,
}

impl Side {
    fn new(name: &'static str, temperature: f32, top_k: usize, top_p: f32) -> Self {
        let settings = SamplerSettings {
            temperature,
            top_k,
            top_p,
            min_p: 0.0,
            ..SamplerSettings::default()
        };
        Side {
            name,
            settings: RwSignal::new(settings),
            ran: RwSignal::new(None),
            results: RwSignal::new(Vec::new()),
        }
    }
}

#[component]
pub fn Compare() -> impl IntoView {
    let lesson = expect_context::<Live>();
    // Plausible against varied: a nucleus at moderate temperature, and a hot, uncut softmax.
    let sides = [Side::new("A", 0.7, 0, 0.9), Side::new("B", 1.5, 0, 1.0)];
    let count = RwSignal::new(COUNT.1);
    let max_tokens = RwSignal::new(MAX_TOKENS.1);
    // The request running now; 0 when none.
    let running = RwSignal::new(0u32);
    let stopping = RwSignal::new(false);
    let note = RwSignal::new(None::<String>);

    let finish = move |message: Option<String>| {
        // Nothing to put back once the learner has left the page.
        if running.try_get_untracked().is_none() {
            return;
        }
        running.set(0);
        note.set(message);
        // The continuations used the worker's session: put the stepping run back.
        lesson.restore();
    };
    // One request for every continuation: run j is side j % 2 with seed + j / 2.
    let launch = move || {
        let n = count.get_untracked();
        let base = lesson.settings.get_untracked().seed;
        let seed = move |run: usize| base.wrapping_add((run / 2) as u64);
        let runs = (0..2 * n)
            .map(|run| SamplerSettings {
                seed: seed(run),
                ..sides[run % 2].settings.get_untracked()
            })
            .collect();
        let request = Request::Continue {
            prompt: lesson.prompt.get_untracked(),
            chat: lesson.bridge().chat_model(),
            runs,
            max_tokens: max_tokens.get_untracked(),
        };
        let id = lesson.bridge().send(request, move |r| match r {
            Response::Continuation {
                run,
                text,
                tokens,
                logprobs,
                stop,
            } => {
                // They end in any order: each side lists its continuations by seed.
                let c = Continuation {
                    seed: seed(run),
                    text,
                    tokens,
                    logprobs,
                    stop,
                };
                sides[run % 2].results.try_update(|v| {
                    let at = v.partition_point(|other| other.seed < c.seed);
                    v.insert(at, c)
                });
            }
            Response::Continued => finish(None),
            // Cancelling the request makes it answer with an error.
            Response::Error { message } => {
                finish(Some(if stopping.try_get_untracked() == Some(true) {
                    "Stopped.".into()
                } else {
                    message
                }))
            }
            _ => {}
        });
        running.try_set(id);
    };
    on_cleanup(move || {
        if let Some(id) = running.try_get_untracked().filter(|&id| id != 0) {
            lesson.bridge().cancel(id);
        }
    });
    let run = move |_| {
        if lesson.busy.get_untracked() {
            note.set(Some(
                "Wait for the step in progress, then run again.".into(),
            ));
            return;
        }
        note.set(None);
        stopping.set(false);
        for side in sides {
            side.results.set(Vec::new());
            side.ran.set(Some(side.settings.get_untracked()));
        }
        lesson.hold();
        launch();
    };
    let stop = move |_| {
        let id = running.get_untracked();
        if id != 0 {
            stopping.set(true);
            lesson.bridge().cancel(id);
        }
    };

    view! {
        <section class="compare" data-testid="compare" aria-labelledby="compare-title">
            <h3 id="compare-title">"Compare two settings"</h3>
            <p class="hint">
                "Both sides continue the prompt above, continuation i with seed + i on both sides, so that only the settings differ."
            </p>
            <div class="compare-settings">
                {sides.iter().copied().map(side_settings).collect_view()}
            </div>
            <div class="actions">
                {count_input("compare-count", "Continuations per side", count, COUNT.0, COUNT.2)}
                {count_input("compare-max-tokens", "Tokens each, at most", max_tokens, MAX_TOKENS.0, MAX_TOKENS.2)}
                <button type="button" data-testid="compare-run" disabled=move || running.get() != 0 || lesson.run.with(|r| r.is_none()) on:click=run>
                    "Run both"
                </button>
                <button type="button" data-testid="compare-stop" disabled=move || running.get() == 0 on:click=stop>
                    "Stop"
                </button>
            </div>
            {move || note.get().map(|n| view! { <p class="hint" role="status">{n}</p> })}
            <div class="compare-results">{sides.iter().copied().map(side_results).collect_view()}</div>
            <p class="hint">
                "Distinct-2: distinct pairs of adjacent tokens over all pairs, pooled over the side's continuations (1 = no pair repeats). "
                "Mean log-probability: the natural log of the probability the model itself gave each generated token (softmax of its raw logits at T = 1, before any penalty or cut), averaged over all the side's tokens. Closer to 0 means text the model found more likely."
            </p>
        </section>
    }
}

/// A side's four settings, each a number box that refuses an entry out of its range (the
/// side keeps the value it had, and says so) rather than running on a changed one.
fn side_settings(side: Side) -> impl IntoView {
    let s = side.settings;
    let id = move |what: &str| format!("compare-{}-{what}", side.name.to_lowercase());
    let decimal = move |what: &'static str,
                        label: &'static str,
                        bound: &'static Bound,
                        step: f64,
                        get: fn(&SamplerSettings) -> f32,
                        put: fn(&mut SamplerSettings, f32)| {
        let id = id(what);
        // Only this setting's changes redraw its box (not a change of another).
        let value = Memo::new(move |_| s.with(get) as f64);
        let set = Callback::new(move |v: f64| s.update(|s| put(s, v as f32)));
        view! {
            <label for=id.clone()>{label}</label>
            {decimal_input(&id, bound.min, bound.max, step, value.into(), set, None)}
        }
    };
    let top_k = {
        let id = id("top-k");
        let value = Memo::new(move |_| s.with(|s| s.top_k as u64));
        let set = Callback::new(move |k: u64| s.update(|s| s.top_k = k as usize));
        view! {
            <label for=id.clone()>"Top-k (0 = off)"</label>
            {whole_number_input(&id, TOP_K.min as u64, TOP_K.max as u64, value.into(), set, None)}
        }
    };
    view! {
        <fieldset class="compare-side">
            <legend>{format!("Side {}", side.name)}</legend>
            {decimal("temperature", "Temperature", &TEMPERATURE, 0.05, |s| s.temperature, |s, v| s.temperature = v)}
            {top_k}
            {decimal("top-p", "Top-p (1 = off)", &TOP_P, 0.01, |s| s.top_p, |s, v| s.top_p = v)}
            {decimal("min-p", "Min-p (0 = off)", &MIN_P, 0.01, |s| s.min_p, |s, v| s.min_p = v)}
        </fieldset>
    }
}

fn side_results(side: Side) -> impl IntoView {
    let summary = move || {
        side.results.with(|results| {
            let sequences: Vec<Vec<u32>> = results.iter().map(|c| c.tokens.clone()).collect();
            let logprobs: Vec<f32> = results
                .iter()
                .flat_map(|c| c.logprobs.iter().copied())
                .collect();
            let mean = (!logprobs.is_empty())
                .then(|| logprobs.iter().map(|&l| l as f64).sum::<f64>() / logprobs.len() as f64);
            (distinct_2(&sequences), mean, logprobs.len())
        })
    };
    let name = side.name.to_lowercase();
    view! {
        <div class="compare-side-results" data-testid=format!("compare-{name}")
            data-distinct2=move || summary().0
            data-mean-logprob=move || summary().1
            data-continuations=move || side.results.with(|r| r.len())
        >
            <h4>
                {format!("Side {}", side.name)}
                {move || side.ran.get().map(|s| format!(": {}", describe(&s)))}
            </h4>
            <p class="compare-figures">
                {move || {
                    let (d2, mean, tokens) = summary();
                    match (d2, mean) {
                        (_, None) => "No continuations yet.".to_string(),
                        (d2, Some(mean)) => format!(
                            "distinct-2 {} · mean log-probability {mean:.3} per token ({tokens} tokens)",
                            d2.map_or("–".into(), |d| format!("{d:.3}")),
                        ),
                    }
                }}
            </p>
            <ol class="continuations">
                {move || {
                    side.results.with(|results| {
                        results
                            .iter()
                            .map(|c| {
                                let mean = c.logprobs.iter().map(|&l| l as f64).sum::<f64>() / c.logprobs.len().max(1) as f64;
                                let end = if c.stop == StopReason::EndOfTurn { ", ended its answer" } else { "" };
                                view! {
                                    <li>
                                        <p class="continuation">{if c.text.is_empty() { visible("") } else { c.text.clone() }}</p>
                                        <small>{format!("seed {} · {} tokens{end} · mean log-probability {mean:.3}", c.seed, c.tokens.len())}</small>
                                    </li>
                                }
                            })
                            .collect_view()
                    })
                }}
            </ol>
        </div>
    }
}

/// "T 0.70, top-p 0.90": the settings that are on.
pub fn describe(s: &SamplerSettings) -> String {
    let mut parts = vec![format!("T {:.2}", s.temperature)];
    if s.top_k > 0 {
        parts.push(format!("top-k {}", s.top_k));
    }
    if s.top_p < 1.0 {
        parts.push(format!("top-p {:.2}", s.top_p));
    }
    if s.min_p > 0.0 {
        parts.push(format!("min-p {:.2}", s.min_p));
    }
    parts.join(", ")
}

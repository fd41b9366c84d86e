//! The learner's own run, labelled: the prefill panel's timeline, block by block, where the
//! learner says what each block was (prefill or decode step) and what it did with the
//! cache, and a Check compares the labels with the engine's own events for that run (the
//! tokens each pass computed, and at which positions). Then a decode step of the run,
//! picked by the learner, with the cached positions it read and the one it wrote.

use super::exercises::check::{Check, Outcome};
use super::lab::Lab;
use super::number::{mb, ms};
use crate::protocol::TokenCost;
use crate::ui::field::count_input;
use leptos::prelude::*;

const W: f64 = 480.0;
const H: f64 = 24.0;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Prefill,
    Decode,
}

/// What the learner says one block was.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Label {
    kind: Option<Kind>,
    writes: bool,
    reads: bool,
}

/// What the engine did in one block (one pass and its draw), from its cost record: it
/// computed `computed` tokens, written to the cache at the positions just before the one
/// it drew (1-based), after the positions cached by earlier passes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Event {
    kind: Kind,
    written: (usize, usize),
    /// Positions cached by earlier passes that this pass's attention read.
    read: usize,
}

fn event(index: usize, cost: &TokenCost) -> Event {
    let first = cost.position.saturating_sub(cost.computed);
    Event {
        kind: if index == 0 { Kind::Prefill } else { Kind::Decode },
        written: (first, cost.position - 1),
        read: first.saturating_sub(1),
    }
}

/// The blocks the learner labels: the first, the second and the last.
fn labelled(blocks: usize) -> Vec<usize> {
    let mut picks = vec![0, 1, blocks.saturating_sub(1)];
    picks.retain(|&b| b < blocks);
    picks.dedup();
    picks
}

fn describe(index: usize, e: &Event) -> String {
    let what = match e.kind {
        Kind::Prefill => "the prefill".to_string(),
        Kind::Decode => format!("decode step {index}"),
    };
    let (a, b) = e.written;
    let wrote = if a == b { format!("wrote position {a}") } else { format!("wrote positions {a} to {b}") };
    let read = match e.read {
        0 => "read nothing cached by an earlier pass".to_string(),
        n => format!("read the {n} positions cached before it"),
    };
    format!("Block {} was {what}: it {wrote} to the cache and {read}.", index + 1)
}

fn check(costs: &[TokenCost], labels: &[(usize, Label)]) -> Outcome {
    if costs.len() < 2 {
        return Err("Run a prompt in the prefill and decode panel above first, with at least 2 tokens to generate.".into());
    }
    let mut wrong = Vec::new();
    let mut right = Vec::new();
    for b in labelled(costs.len()) {
        let e = event(b, &costs[b]);
        let label = labels.iter().find(|(i, _)| *i == b).map(|(_, l)| *l).unwrap_or_default();
        let ok = label.kind == Some(e.kind) && label.writes && label.reads == (e.read > 0);
        if ok { &mut right } else { &mut wrong }.push(describe(b, &e));
    }
    if wrong.is_empty() {
        Ok(right.join(" "))
    } else {
        Err(format!("The engine's own events: {}", wrong.join(" ")))
    }
}

#[component]
pub fn TimelineLabels(lab: Lab) -> impl IntoView {
    let labels = RwSignal::new(Vec::<(usize, Label)>::new());
    let step = RwSignal::new(1usize);
    // A new run starts the labels again.
    Effect::new(move |_| {
        lab.timeline.with(|r| r.costs.len());
        labels.set(Vec::new());
    });
    let set_label = move |block: usize, change: Box<dyn Fn(&mut Label)>| {
        labels.update(|all| match all.iter().position(|(i, _)| *i == block) {
            Some(at) => change(&mut all[at].1),
            None => {
                let mut l = Label::default();
                change(&mut l);
                all.push((block, l));
            }
        })
    };
    let rows = move || {
        lab.timeline.with(|r| {
            let mut start = 0.0;
            let starts: Vec<f64> = r.costs.iter().map(|c| { let s = start; start += c.ms; s }).collect();
            labelled(r.costs.len()).into_iter().map(|b| {
                let (from, took) = (starts[b], r.costs[b].ms);
                let id = |what: &str| format!("label-{what}-{b}");
                view! {
                    <tr data-block=b>
                        <th scope="row">{format!("Block {}", b + 1)}</th>
                        <td>{format!("from {} to {}", ms(from), ms(from + took))}</td>
                        <td>
                            <label class="sr-only" for=id("kind")>{format!("What block {} was", b + 1)}</label>
                            <select id=id("kind") data-testid=id("kind") on:change=move |ev| {
                                let kind = match event_target_value(&ev).as_str() {
                                    "prefill" => Some(Kind::Prefill),
                                    "decode" => Some(Kind::Decode),
                                    _ => None,
                                };
                                set_label(b, Box::new(move |l| l.kind = kind));
                            }>
                                <option value="">"Choose…"</option>
                                <option value="prefill">"Prefill"</option>
                                <option value="decode">"Decode step"</option>
                            </select>
                        </td>
                        <td>
                            <input type="checkbox" id=id("writes") data-testid=id("writes")
                                on:change=move |ev| { let on = event_target_checked(&ev); set_label(b, Box::new(move |l| l.writes = on)) }/>
                            <label for=id("writes")>"Cache write"</label>
                        </td>
                        <td>
                            <input type="checkbox" id=id("reads") data-testid=id("reads")
                                on:change=move |ev| { let on = event_target_checked(&ev); set_label(b, Box::new(move |l| l.reads = on)) }/>
                            <label for=id("reads")>"Cache read"</label>
                        </td>
                    </tr>
                }
            }).collect_view()
        })
    };
    let decode_steps = move || lab.timeline.with(|r| r.costs.len().saturating_sub(1));
    let strip = move || {
        lab.timeline.with(|r| {
            let k = step.get().min(r.costs.len().saturating_sub(1));
            let cost = r.costs.get(k).filter(|_| k > 0)?;
            let e = event(k, cost);
            let end = r.costs.last()?.position;
            let cell = W / end as f64;
            let cells = (1..=end).map(|p| {
                let state = if p <= e.read { "read" } else if (e.written.0..=e.written.1).contains(&p) { "written" } else { "later" };
                view! { <rect x=(p - 1) as f64 * cell y="2" width=cell.max(0.5) height=H - 4.0 class=format!("kv-cell {state}") data-state=state/> }
            }).collect_view();
            let per_position = cost.kv_bytes as f64 / cost.position.saturating_sub(1).max(1) as f64;
            Some(view! {
                <figure class="chart kv-strip">
                    <svg viewBox=format!("0 0 {W} {H}") role="img" data-testid="reuse-strip"
                        aria-label=format!("Positions 1 to {end}: {} read from the cache, position {} written", e.read, e.written.1)>
                        {cells}
                    </svg>
                    <figcaption data-testid="reuse-caption">{format!(
                        "Decode step {k} computed position {} and read the keys and values of positions 1 to {} from the cache, every layer's: {} reused instead of recomputed. Later positions did not exist yet.",
                        e.written.1, e.read, mb(e.read as f64 * per_position)
                    )}</figcaption>
                </figure>
            })
        })
    };
    view! {
        <section class="lab-panel" aria-labelledby="timeline-labels-lab" data-testid="timeline-labels">
            <h3 id="timeline-labels-lab">"Try it: label your own run"</h3>
            {move || (lab.timeline.with(|r| r.costs.len()) < 2).then(|| view! {
                <p class="hint" data-testid="timeline-labels-waiting">"Run a prompt in the prefill and decode panel above: its blocks appear here to label."</p>
            })}
            <table class="numbers timeline-labels">
                <caption>"Say what each block of your run's timeline was, and what it did with the KV cache."</caption>
                <thead><tr><th scope="col">"Block"</th><th scope="col">"When"</th><th scope="col">"Stage"</th><th scope="col">"Writes"</th><th scope="col">"Reads cached positions"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <Check id="timeline-labels" check=move || lab.timeline.with(|r| labels.with(|l| check(&r.costs, l)))/>
            <h4>"Where cached attention state is reused"</h4>
            <div class="control-row">{move || (decode_steps() > 0).then(|| count_input("reuse-step", "Decode step", step, 1, decode_steps()))}</div>
            {strip}
        </section>
    }
}

//! What the KV cache holds after a turn: one row per cached position, with its token, the
//! bytes of its keys and values across all layers (as measured), the turn that wrote it,
//! and whether this turn read it from the cache or computed it.

use super::inside_run::Inspection;
use super::number::bytes;
use leptos::prelude::*;

#[component]
pub fn KvTable(#[prop(into)] inspection: Signal<Inspection>) -> impl IntoView {
    let rows = move || {
        inspection.with(|i| {
            let per = i.measured_bytes_per_position();
            let tokens = i.tokens();
            let stage = |p: usize| {
                if p < i.run.reused {
                    ("reused", "reused from the cache")
                } else if p < i.run.prompt.len() {
                    ("computed", "computed in the prefill")
                } else {
                    ("computed", "computed in a decode step")
                }
            };
            (0..i.cached())
                .map(|p| {
                    let (status, said) = stage(p);
                    view! {
                        <tr data-status=status data-position=p class=status>
                            <td>{p}</td>
                            <td><span class="tok">{tokens.get(p).map_or(String::new(), |t| t.replace('\n', "↵"))}</span></td>
                            <td>{per.map_or("–".to_string(), |b| bytes(b.round() as usize))}</td>
                            <td>{format!("turn {}", i.written_by.get(p).copied().unwrap_or(i.turn))}</td>
                            <td>{said}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let summary = move || {
        inspection.with(|i| {
            (i.cached() > 0).then(|| {
                let computed = i.cached() - i.run.reused.min(i.cached());
                format!(
                    "Turn {}: {} cached positions, {} read from the cache and {} computed in this turn.",
                    i.turn,
                    i.cached(),
                    i.run.reused,
                    computed
                )
            })
        })
    };
    view! {
        <p data-testid="kv-summary">{summary}</p>
        <div class="table-scroll kv-scroll">
            <table class="numbers kv" data-testid="kv-table">
                <caption>"The cached positions: each holds a key and a value per layer and key/value head"</caption>
                <thead><tr>
                    <th scope="col">"Position"</th><th scope="col">"Token"</th><th scope="col">"K + V bytes, all layers"</th>
                    <th scope="col">"Written by"</th><th scope="col">"This turn"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

//! The logit lens as a table: one row per layer, its five most likely next tokens when that
//! layer's hidden state goes straight to the final norm and the output head. The model's
//! final top-1 is marked wherever it appears, and the layer from which it stays on top.

use engine::probe::{settled_layer, LensLayer};
use leptos::prelude::*;

#[component]
pub fn LensTable(#[prop(into)] layers: Signal<Vec<LensLayer>>) -> impl IntoView {
    let summary = move || {
        layers.with(|ls| {
            let last = ls.last()?.top.first()?;
            let settled = settled_layer(ls)?;
            let first = ls.iter().find(|l| l.top.iter().any(|t| t.id == last.id))?.layer;
            Some(format!(
                "The model's next token, “{}”, enters a layer's top 5 at layer {first}, and is the top guess from layer {settled} to the last ({}).",
                last.token.replace('\n', "↵"),
                ls.len()
            ))
        })
    };
    let rows = move || {
        layers.with(|ls| {
            let Some(final_id) = ls.last().and_then(|l| l.top.first()).map(|t| t.id) else {
                return ().into_any();
            };
            let settled = settled_layer(ls).unwrap_or(usize::MAX);
            ls.iter()
                .map(|l| {
                    let cells = l
                        .top
                        .iter()
                        .map(|t| {
                            let class = if t.id == final_id { "final-top" } else { "" };
                            view! {
                                <td class=class data-id=t.id>
                                    <span class="tok">{t.token.replace('\n', "↵")}</span>
                                    " "{format!("{:.1}%", t.prob * 100.0)}
                                </td>
                            }
                        })
                        .collect_view();
                    let class = if l.layer >= settled { "settled" } else { "" };
                    view! { <tr class=class data-layer=l.layer><th scope="row">{l.layer}</th>{cells}</tr> }
                })
                .collect_view()
                .into_any()
        })
    };
    view! {
        <p data-testid="lens-summary">{summary}</p>
        <div class="table-scroll">
            <table class="numbers lens" data-testid="lens-table">
                <caption>"Each layer's guess for the next token (the logit lens), top 5 with probabilities"</caption>
                <thead><tr><th scope="col">"Layer"</th><th scope="col">"1st"</th><th scope="col">"2nd"</th><th scope="col">"3rd"</th><th scope="col">"4th"</th><th scope="col">"5th"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

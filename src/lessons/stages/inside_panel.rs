//! Lesson 2's look inside: a greedy generation whose passes copy out one layer's attention
//! weights, drawn as a heatmap for any of the 9 query heads; the KV cache's positions, with
//! a second chat turn marking which it reused; and the logit lens for the first new token.

use super::actions::Actions;
use super::attention_map::{AttentionMap, Map};
use super::inside_run::{inspect, Inspection};
use super::kv_table::KvTable;
use super::lab::Lab;
use super::lens_table::LensTable;
use super::prompt_field::PromptField;
use crate::protocol::CacheMode;
use engine::Message;
use leptos::prelude::*;

/// Tokens generated per turn: enough decode rows to watch them grow.
const MAX_TOKENS: usize = 12;
/// The example prompt and whether it is a chat message.
const EXAMPLE: (&str, bool) = ("What is the capital of France?", true);

#[component]
pub fn InsidePanel(lab: Lab) -> impl IntoView {
    let text = RwSignal::new(EXAMPLE.0.to_string());
    let chat = RwSignal::new(EXAMPLE.1);
    let follow_up = RwSignal::new("And of Italy?".to_string());
    // 0-based; the selectors show them from 1.
    let (layer, head) = (RwSignal::new(0usize), RwSignal::new(0usize));
    let cell = RwSignal::new(12.0);
    let inspection = lab.inside;
    let first_turn = move || {
        let mut first = Inspection::new(layer.get_untracked());
        let raw = if chat.get_untracked() {
            first.messages = vec![Message::user(&text.get_untracked())];
            None
        } else {
            Some(text.get_untracked())
        };
        inspect(
            lab.engine,
            "inside",
            raw,
            CacheMode::Cold,
            MAX_TOKENS,
            first,
            inspection,
        );
    };
    let next_turn = move || {
        if !inspection.with_untracked(Inspection::can_follow) {
            return;
        }
        let next = inspection
            .with_untracked(|i| i.next_turn(layer.get_untracked(), &follow_up.get_untracked()));
        inspect(
            lab.engine,
            "inside-turn2",
            None,
            CacheMode::Reuse,
            MAX_TOKENS,
            next,
            inspection,
        );
    };
    let can_follow = Signal::derive(move || inspection.with(Inspection::can_follow));
    let on_layer = move |ev| {
        if let Ok(l) = event_target_value(&ev).parse::<usize>() {
            layer.set(l.saturating_sub(1));
            // A layer's rows come from the passes themselves: the first turn runs again.
            if inspection.with_untracked(|i| !i.run.prompt.is_empty()) && lab.engine.can_run() {
                first_turn();
            }
        }
    };
    let on_head = move |ev| {
        if let Ok(h) = event_target_value(&ev).parse::<usize>() {
            head.set(h.saturating_sub(1));
        }
    };
    let on_zoom = move |ev| {
        if let Ok(c) = event_target_value(&ev).parse::<f64>() {
            cell.set(c);
        }
    };
    let config = move || lab.shape.get().map(|s| s.config);
    let heads = move || config().map_or(9, |c| c.heads);
    let kv_heads = move || config().map_or(3, |c| c.kv_heads);
    let layers = move || config().map_or(30, |c| c.layers);
    let group = move || heads() / kv_heads().max(1);
    let head_options = move || {
        (0..kv_heads())
            .map(|k| {
                let options = (k * group()..(k + 1) * group())
                    .map(|h| view! { <option value=h + 1 selected=move || head.get() == h>{format!("Query head {}", h + 1)}</option> })
                    .collect_view();
                view! { <optgroup label=format!("Key/value head {} (query heads {}–{})", k + 1, k * group() + 1, (k + 1) * group())>{options}</optgroup> }
            })
            .collect_view()
    };
    let gqa = move || {
        let (h, g) = (head.get(), group());
        (0..kv_heads())
            .map(|k| {
                let qs = (k * g..(k + 1) * g)
                    .map(|q| view! { <span class=if q == h { "q selected" } else { "q" }>{format!("Q{}", q + 1)}</span> })
                    .collect_view();
                view! { <span class=if h / g == k { "kv-group selected" } else { "kv-group" }>{qs}<span class="kv">{format!("KV{}", k + 1)}</span></span> }
            })
            .collect_view()
    };
    let map = Signal::derive(move || {
        inspection.with(|i| {
            let tokens = i.tokens();
            // Every computed position, up to the last token run through the model.
            let n = i
                .attention
                .rows
                .iter()
                .map(|r| r.position + 1)
                .max()
                .unwrap_or(0)
                .max(i.run.reused);
            Map {
                rows: i.attention.matrix(head.get(), n),
                tokens,
                prompt_len: i.run.prompt.len(),
                reused: i.run.reused,
            }
        })
    });
    let caption = Signal::derive(move || {
        let (l, h) = (inspection.with(|i| i.attention.layer) + 1, head.get());
        format!(
            "Attention of layer {l}, query head {} (reading key/value head {}): row i is position i's weights over positions 0 to i",
            h + 1,
            h / group().max(1) + 1
        )
    });
    view! {
        <section class="lab-panel" aria-labelledby="inside-lab">
            <h3 id="inside-lab">"Look inside: attention, the KV cache and the logit lens"</h3>
            <PromptField id="inside" text=text chat=chat example=EXAMPLE/>
            <Actions lab=lab panel="inside" label="Run and look inside" on_run=first_turn/>
            <div class="control-row">
                <label for="attention-layer">"Layer"</label>
                <select id="attention-layer" data-testid="attention-layer" on:change=on_layer>
                    {move || (1..=layers()).map(|l| view! { <option value=l selected=move || layer.get() + 1 == l>{l}</option> }).collect_view()}
                </select>
                <label for="attention-head">"Head"</label>
                <select id="attention-head" data-testid="attention-head" on:change=on_head>
                    {head_options}
                </select>
                <label for="attention-zoom">"Cells"</label>
                <select id="attention-zoom" on:change=on_zoom>
                    <option value="6">"small"</option>
                    <option value="12" selected>"medium"</option>
                    <option value="20">"large"</option>
                </select>
            </div>
            <p class="gqa" aria-label="Which query heads share a key/value head">{gqa}</p>
            {move || inspection.with(|i| i.run.error.clone()).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="output" data-testid="inside-output">{move || inspection.with(|i| i.run.text.clone())}</div>
            <AttentionMap map=map cell=cell caption=caption/>
            <h4>"What the KV cache holds"</h4>
            <label for="inside-follow-up">"The next chat turn"</label>
            <input id="inside-follow-up" data-testid="inside-follow-up" type="text" class="wide"
                prop:value=move || follow_up.get() on:input=move |ev| follow_up.set(event_target_value(&ev))/>
            <Actions lab=lab panel="inside-turn2" label="Send the next turn" on_run=next_turn enabled=can_follow/>
            <KvTable inspection=inspection/>
            <h4>"The logit lens"</h4>
            <LensTable layers=Signal::derive(move || inspection.with(|i| i.lens.clone()))/>
        </section>
    }
}

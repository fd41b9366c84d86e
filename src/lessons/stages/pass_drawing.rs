//! One forward pass, drawn: the path of one token through the model, part by part (the
//! embedding, the blocks' norms, projections, attention over the cache and MLP, the final
//! norm and the output head), each with its parameters, the bytes it read and its share of
//! a real pass's time on this device, for a prefill and for the decode step after it, side
//! by side. Every figure comes from `Model::forward_timed` in the worker.

use super::actions::Actions;
use super::lab::Lab;
use super::number::{mb, ms, percent};
use crate::protocol::{Request, Response};
use crate::digits::grouped;
use crate::ui::field::count_input;
use engine::probe::{Part, PassPart, PassParts};
use leptos::prelude::*;

const PANEL: &str = "pass-drawing";

fn name(part: Part) -> &'static str {
    match part {
        Part::Embedding => "Embedding look-up",
        Part::AttentionNorm => "Norm before attention",
        Part::QkvProjections => "Query, key and value projections",
        Part::PositionsAndCache => "Positions (RoPE) and cache write",
        Part::Scores => "Attention over the cache",
        Part::OutputProjection => "Attention's output projection",
        Part::MlpNorm => "Norm before the MLP",
        Part::Mlp => "MLP (gate, up, down)",
        Part::FinalNorm => "Final norm",
        Part::OutputHead => "Output head: logits",
    }
}

/// What a part reads, in words and bytes.
fn reads(p: &PassPart) -> String {
    let mut out = Vec::new();
    if p.weight_bytes > 0 {
        out.push(format!("{} of weights", mb(p.weight_bytes as f64)));
    }
    if p.cache_read > 0 {
        out.push(format!("{} of cache read", mb(p.cache_read as f64)));
    }
    if p.cache_written > 0 {
        out.push(format!("{} of cache written", mb(p.cache_written as f64)));
    }
    if out.is_empty() {
        "nothing stored".into()
    } else {
        out.join(", ")
    }
}

fn is_block_part(part: Part) -> bool {
    !matches!(part, Part::Embedding | Part::FinalNorm | Part::OutputHead)
}

/// One part's row: its name, parameters, what each pass read, and each pass's share.
fn part_row(prefill: &PassPart, share_prefill: f64, decode: &PassPart, share_decode: f64) -> impl IntoView {
    let bar = |class: &'static str, share: f64, pass: &'static str| {
        view! {
            <div class=format!("pass-bar {class}") title=format!("{pass}: {}", percent(share))>
                <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
                    <rect x="0" y="0" width=format!("{:.3}", share * 100.0) height="10"/>
                </svg>
                <small>{format!("{pass} {}", percent(share))}</small>
            </div>
        }
    };
    let params = if prefill.parameters == 0 {
        if prefill.part == Part::OutputHead { "no weights of its own (the embedding's, tied)".to_string() } else { "no weights".to_string() }
    } else {
        format!("{} parameters", grouped(prefill.parameters as usize))
    };
    view! {
        <li class="pass-part" data-part=format!("{:?}", prefill.part) data-params=prefill.parameters.to_string()
            data-prefill-share=share_prefill.to_string() data-decode-share=share_decode.to_string()
            data-prefill-ms=prefill.ms.to_string() data-decode-ms=decode.ms.to_string()>
            <strong>{name(prefill.part)}</strong>
            <span class="pass-facts">{params}</span>
            <span class="pass-facts">{format!("Prefill reads {}; decode, {}.", reads(prefill), reads(decode))}</span>
            {bar("prefill", share_prefill, "prefill")}
            {bar("decode", share_decode, "decode")}
        </li>
    }
}

fn drawing(prefill: &PassParts, decode: &PassParts, heads: Option<(usize, usize)>) -> impl IntoView {
    let (sp, sd) = (prefill.shares(), decode.shares());
    let rows: Vec<(&PassPart, &PassPart, f64, f64)> =
        prefill.parts.iter().zip(&decode.parts).zip(sp.iter().zip(&sd)).map(|((p, d), (a, b))| (p, d, *a, *b)).collect();
    let pick = |keep: fn(Part) -> bool| {
        rows.iter().filter(|r| keep(r.0.part)).map(|&(p, d, a, b)| part_row(p, a, d, b)).collect_view()
    };
    let before = pick(|part| part == Part::Embedding);
    let block = pick(is_block_part);
    let after = pick(|part| matches!(part, Part::FinalNorm | Part::OutputHead));
    let heads = heads.map_or(String::new(), |(q, kv)| format!(", attention with {q} query and {kv} key/value heads"));
    view! {
        <ol class="pass-path" aria-label="The path of one token through the model">
            {before}
            <li class="pass-blocks">
                <strong>{format!("× {} blocks{heads}: times summed over all {}", prefill.blocks, prefill.blocks)}</strong>
                <ol>{block}</ol>
            </li>
            {after}
        </ol>
    }
}

#[component]
pub fn PassDrawingPanel(lab: Lab) -> impl IntoView {
    let tokens = RwSignal::new(256usize);
    let passes = RwSignal::new(None::<(PassParts, PassParts)>);
    let error = RwSignal::new(None::<String>);
    let run = move || {
        if lab.engine.busy_untracked() {
            return;
        }
        error.set(None);
        let request = Request::StagePassParts { tokens: tokens.get_untracked() };
        lab.engine.send(PANEL, request, move |response| match response {
            Response::StagePassParts { prefill, decode } => {
                passes.try_set(Some((prefill, decode)));
            }
            Response::Error { message } => {
                error.try_set(Some(message));
            }
            other => {
                error.try_set(Some(format!("Unexpected answer from the engine: {other:?}")));
            }
        });
    };
    let heads = move || lab.shape.with(|s| s.as_ref().map(|s| (s.config.heads, s.config.kv_heads)));
    let summary = move || {
        passes.with(|p| {
            let (prefill, decode) = p.as_ref()?;
            let weights = |pass: &PassParts| pass.parts.iter().filter(|p| p.part != Part::Embedding).map(|p| p.weight_bytes).sum::<u64>();
            let cache = |pass: &PassParts| pass.parts.iter().map(|p| p.cache_read).sum::<u64>();
            Some(format!(
                "Prefill of {} tokens: {} in all. The decode step after it, one token at position {}: {}. Both read the same {} of weights: once per pass, whatever the tokens. The embedding reads one row per token (grows with the prompt); attention reads the cache, {} for the prefill and {} for the decode step (grows with the context).",
                prefill.tokens,
                ms(prefill.total_ms()),
                decode.start + 1,
                ms(decode.total_ms()),
                mb(weights(decode) as f64),
                mb(cache(prefill) as f64),
                mb(cache(decode) as f64),
            ))
        })
    };
    view! {
        <section class="lab-panel" aria-labelledby="pass-drawing-lab" data-testid="pass-drawing">
            <h3 id="pass-drawing-lab">"Measure it: one forward pass, drawn"</h3>
            <div class="control-row">{count_input("pass-drawing-tokens", "Prompt tokens", tokens, 1, 1024)}</div>
            <Actions lab=lab panel=PANEL label="Time one pass" on_run=run/>
            <p class="hint">"Times one prefill of the lesson's own text and the decode step after it, part by part, on this device. Each bar is that part's share of its pass's time."</p>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <p data-testid="pass-drawing-summary">{summary}</p>
            {move || passes.with(|p| p.as_ref().map(|(prefill, decode)| drawing(prefill, decode, heads())))}
        </section>
    }
}

//! "Defaults vary by system", for this prompt: the same logits under each system's documented
//! defaults and stage order (`engine::systems`), side by side: how many candidates each keeps,
//! its most likely ones, and the token the next Step's number (the learner's seed) falls on.
//! This engine's sampler stands in for each system's; the table says so, and cites each row.
//! llama.cpp's row takes the loaded file's own `general.sampling.*` keys, as llama.cpp does.

use super::live::Live;
use crate::bridge::ModelStatus;
use engine::gguf::sampling::FileSampling;
use crate::ui::format::{count, prob};
use crate::ui::token_text::visible;
use engine::sampler::{distribution, Rng};
use engine::systems::{Overrides, Preset, Setting, PRESETS};
use engine::SamplerSettings;
use leptos::prelude::*;

/// Candidates a row lists.
const LISTED: usize = 3;

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The system's preset, with the file's own settings where it applies them.
    pub preset: Preset,
    pub settings: SamplerSettings,
    pub kept: usize,
    pub top: Vec<(u32, f32)>,
    /// The token the draw number `u` falls on under this system's distribution.
    pub sample: u32,
}

/// Every preset's row for these logits; `u` is the next draw's number; `file`, the loaded
/// file's recommended sampling settings.
pub fn rows(logits: &[f32], context: &[u32], seed: u64, u: f64, file: Option<&FileSampling>) -> Vec<Row> {
    PRESETS
        .iter()
        .map(|p| p.with_file(file))
        .filter_map(|preset| {
            // A preset's own defaults always pass its checks (tests/systems.rs).
            let settings = preset.settings(&Overrides::default(), seed).ok()?;
            let d = distribution(logits, &settings, context);
            let top = d.candidates.iter().filter(|c| c.eligible()).take(LISTED).map(|c| (c.id, c.final_prob)).collect();
            Some(Row { preset, kept: d.eligible, top, sample: d.draw(u), settings })
        })
        .collect()
}

/// A preset's defaults as the table writes them.
pub fn defaults_text(p: &Preset, s: &SamplerSettings) -> String {
    if s.temperature == 0.0 {
        return "greedy (do_sample=False)".into();
    }
    let mut parts = vec![format!("T {}", s.temperature)];
    let cuts = [
        (Setting::TopK, s.top_k > 0, format!("top-k {}", s.top_k)),
        (Setting::TopP, s.top_p < 1.0, format!("top-p {}", s.top_p)),
        (Setting::MinP, s.min_p > 0.0, format!("min-p {}", s.min_p)),
    ];
    parts.extend(cuts.into_iter().filter(|(setting, on, _)| *on && p.has(*setting)).map(|c| c.2));
    if parts.len() == 1 {
        parts.push("no cut".into());
    }
    parts.join(", ")
}

#[component]
pub fn SystemsTable() -> impl IntoView {
    let lesson = expect_context::<Live>();
    let seed = Memo::new(move |_| lesson.settings.with(|s| s.seed));
    let file = Memo::new(move |_| match lesson.bridge().status().get() {
        ModelStatus::Ready(info) => info.sampling,
        _ => None,
    });
    let table = Memo::new(move |_| {
        let seed = seed.get();
        lesson.run.with(|r| {
            r.as_ref().map(|r| {
                let u = Rng::at(seed, (r.context.len() - r.prompt_len) as u64).next_f64();
                file.with(|f| rows(&r.logits, &r.context, seed, u, f.as_ref()))
            })
        })
    });
    let body = move || {
        table.with(|t| {
            t.as_ref().map(|rows| {
                rows.iter()
                    .map(|row| {
                        let p = &row.preset;
                        let file_note = (p.id == "llama.cpp")
                            .then(|| file.with(|f| f.as_ref().map(file_text)))
                            .flatten()
                            .map(|t| view! { <li data-testid="file-sampling">{t}</li> });
                        let order = match p.order {
                            Some(o) => o.map(|s| s.name()).join(" → "),
                            None => "not documented (temperature first here)".into(),
                        };
                        let top = row
                            .top
                            .iter()
                            .map(|&(id, q)| format!("‘{}’ {}", visible(&lesson.text(id)), prob(q as f64)))
                            .collect::<Vec<_>>()
                            .join(", ");
                        let sources = p
                            .sources
                            .iter()
                            .map(|s| view! { <li><a href=s.url rel="noopener">{s.title}</a>{format!(" ({})", s.version)}</li> })
                            .collect_view();
                        let notes = p.notes.iter().map(|n| view! { <li>{*n}</li> }).collect_view();
                        let settings = row.settings.clone();
                        view! {
                            <tr data-system=p.id data-kept=row.kept data-sample=row.sample>
                                <th scope="row">{p.name}<br/><small>{order}</small></th>
                                <td>{defaults_text(p, &row.settings)}</td>
                                <td class="num">{count(row.kept)}</td>
                                <td>{top}</td>
                                <td>{format!("‘{}’", visible(&lesson.text(row.sample)))}</td>
                                <td>
                                    <details>
                                        <summary>"Notes and sources"</summary>
                                        <ul>{notes}{file_note}</ul>
                                        <ul>{sources}</ul>
                                    </details>
                                    <button type="button" data-testid="use-system" on:click=move |_| lesson.settings.set(settings.clone())>
                                        "Use these settings"
                                    </button>
                                </td>
                            </tr>
                        }
                    })
                    .collect_view()
            })
        })
    };
    view! {
        <section class="systems" aria-labelledby="systems-title">
            <h3 id="systems-title">"The same prompt under each system's defaults"</h3>
            <p class="hint">
                "Each row runs this page's sampler on the model's logits with that system's documented defaults and stage order (read 2026-12-02, Ollama's on 2026-12-07; a model's own configuration can override them, and llama.cpp's row applies this file's general.sampling.* keys when it has some). The sample is the token the next Step's number (your seed) falls on. Not measured on those systems, which run other code and more stages."
            </p>
            <div class="table-scroll">
                <table data-testid="systems-table">
                    <thead>
                        <tr>
                            <th scope="col">"System and order"</th>
                            <th scope="col">"Defaults"</th>
                            <th scope="col">"Kept"</th>
                            <th scope="col">"Most likely kept"</th>
                            <th scope="col">"Sample"</th>
                            <th scope="col">"Source"</th>
                        </tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </section>
    }
}

/// What the loaded file asks llama.cpp for, as the row's note says it.
fn file_text(f: &FileSampling) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &f.sequence {
        parts.push(format!("sequence {s}"));
    }
    let numbers = [("top_k", f.top_k.map(|v| v.to_string())), ("top_p", f.top_p.map(|v| v.to_string())), ("min_p", f.min_p.map(|v| v.to_string())), ("temp", f.temp.map(|v| v.to_string()))];
    parts.extend(numbers.into_iter().filter_map(|(k, v)| v.map(|v| format!("{k} {v}"))));
    let ignored = if f.ignored.is_empty() { String::new() } else { format!(" Not applied here: {}.", f.ignored.join("; ")) };
    format!("This model's file sets general.sampling.* keys, which llama.cpp applies and this row uses: {}.{ignored}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn every_system_gets_a_row_from_the_same_logits() {
        let logits: Vec<f32> = (0..200).map(|i| -(i as f32) * 0.05).collect();
        let rows = rows(&logits, &[], 42, 0.5, None);
        assert_eq!(rows.len(), PRESETS.len());
        let kept = |id| rows.iter().find(|r| r.preset.id == id).unwrap().kept;
        // Greedy by default; no cut at T = 1; llama.cpp's and Ollama's top-k 40.
        assert_eq!((kept("hf"), kept("vllm"), kept("openai")), (1, 200, 200));
        assert!(kept("llama.cpp") <= 40 && kept("ollama") <= 40);
        for r in &rows {
            assert_eq!(r.top.len(), r.kept.min(LISTED));
            assert!(r.top.iter().any(|t| t.0 == r.sample) || r.kept > LISTED);
        }
        assert_eq!(defaults_text(&rows[0].preset, &rows[0].settings), "greedy (do_sample=False)");
        // A file's keys change llama.cpp's row only.
        let file = FileSampling { top_k: Some(2), ..FileSampling::default() };
        let with_file = super::rows(&logits, &[], 42, 0.5, Some(&file));
        let kept = |rows: &[Row], id| rows.iter().find(|r| r.preset.id == id).unwrap().kept;
        assert_eq!(kept(&with_file, "llama.cpp"), 2);
        assert_eq!(kept(&with_file, "ollama"), kept(&rows, "ollama"));
    }
}

//! The run's results as files: CSV (one row per task and strategy) and JSON (the settings,
//! the per-strategy summaries and every item), downloaded from a Blob URL of this origin.

use super::names;
use super::run::Run;
use crate::protocol::Experiment;
use engine::reasoning::strategy::{ItemResult, Summary};
use leptos::prelude::*;
use serde::Serialize;
use crate::ui::download::download;

#[derive(Serialize)]
struct Export<'a> {
    experiment: &'a Experiment,
    state: &'static str,
    summaries: Vec<Summary>,
    items: &'a [ItemResult],
}

#[component]
pub fn ExportButtons(run: Run) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let (csv_run, json_run) = (run.clone(), run);
    let save = move |name: &str, mime: &str, text: Result<String, String>| {
        problem.set(text.and_then(|t| download(name, mime, &t)).err());
    };
    view! {
        <div class="actions export">
            <button type="button" data-testid="export-csv" on:click=move |_| save("reasoning-results.csv", "text/csv", Ok(to_csv(&csv_run)))>
                "Download CSV"
            </button>
            <button type="button" data-testid="export-json" on:click=move |_| save("reasoning-results.json", "application/json", to_json(&json_run))>
                "Download JSON"
            </button>
        </div>
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{format!("The file could not be made: {p}")}</p> })}
    }
}

pub fn to_json(run: &Run) -> Result<String, String> {
    let export = Export {
        experiment: &run.experiment,
        state: run.state.name(),
        summaries: run.summaries(),
        items: run.complete_results(),
    };
    let value = export
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| e.to_string())?;
    js_sys::JSON::stringify_with_replacer_and_space(&value, &wasm_bindgen::JsValue::NULL, &2.into())
        .map(String::from)
        .map_err(|e| format!("{e:?}"))
}

pub fn to_csv(run: &Run) -> String {
    let mut out = String::from(
        "task_id,category,question,strategy,final_answer,correct,reasoning_tokens,answer_tokens,total_tokens,latency_ms,votes\n",
    );
    for r in run.complete_results() {
        let votes = r.votes.as_ref().map_or(String::new(), |v| {
            v.counts
                .iter()
                .map(|(a, n)| format!("{a}={n}"))
                .collect::<Vec<_>>()
                .join("; ")
        });
        let fields = [
            r.task_id.clone(),
            r.category.clone(),
            r.question.clone(),
            names::id(r.strategy).to_string(),
            r.final_answer.clone().unwrap_or_default(),
            r.correct.to_string(),
            r.reasoning_tokens.to_string(),
            r.answer_tokens.to_string(),
            r.total_tokens.to_string(),
            format!("{:.1}", r.latency_ms),
            votes,
        ];
        out += &fields.map(|f| csv_field(&f)).join(",");
        out.push('\n');
    }
    out
}

/// RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

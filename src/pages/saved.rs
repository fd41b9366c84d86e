//! `/saved`: the learner's saved work (`ui/store.rs`): every playground conversation,
//! Lesson 1 base and instruct comparison, Lesson 2 measurement and Lesson 3 run kept in this browser, with its date and model, to open or delete, and all
//! of it exported to or imported from one JSON file. An item this version cannot read
//! (saved by another version of the site) is listed as unreadable, with the reason.

use crate::lessons::generation::base_instruct_runs;
use crate::lessons::reasoning::saved_runs;
use crate::lessons::stages::saved_measurements;
use crate::playground::persist;
use crate::playground::saved::from_json;
use crate::routes::set_title;
use crate::ui::download::{chosen_file, download};
use crate::ui::store::{self, date_text, Entry, Record};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;
use leptos_router::NavigateOptions;
use serde::{Deserialize, Serialize};

const FORMAT: &str = "inference-playground-saved-work";
const VERSION: u32 = 1;

/// The export file: every readable item, as stored.
#[derive(Debug, Serialize, Deserialize)]
struct Export {
    format: String,
    version: u32,
    items: Vec<serde_json::Value>,
}

/// Whether this version can open `record`: its kind's own checks.
fn check(record: &Record) -> Result<(), String> {
    match record.kind.as_str() {
        persist::KIND => persist::read(record).map(|_| ()),
        saved_runs::KIND => saved_runs::read(record).map(|_| ()),
        saved_measurements::KIND => saved_measurements::read(record).map(|_| ()),
        base_instruct_runs::KIND => base_instruct_runs::read(record).map(|_| ()),
        other => Err(format!("Its kind “{other}” is not one this version knows.")),
    }
}

fn kind_name(kind: &str) -> &'static str {
    match kind {
        persist::KIND => "Playground conversation",
        saved_runs::KIND => "Lesson 3 run",
        saved_measurements::KIND => "Lesson 2 measurement",
        base_instruct_runs::KIND => "Lesson 1 base and instruct",
        _ => "Unknown kind",
    }
}

/// The records of an imported file: a saved-work export, or one conversation exported
/// from the playground (which becomes a new item). All must be readable, or none is taken.
fn imported(text: &str) -> Result<Vec<Record>, String> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("This file is not saved work from this site ({e})."))?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        // Perhaps one conversation, as the playground's Export writes it.
        let (setup, conversation) =
            from_json(text).map_err(|e| format!("{e} (Nor is it a saved-work export.)"))?;
        let id = store::new_id(persist::KIND);
        // Which model answered is not in the file.
        return Ok(vec![persist::record(&id, &setup, &conversation, None)]);
    }
    let export: Export = serde_json::from_value(value)
        .map_err(|e| format!("This saved-work file cannot be read ({e})."))?;
    if export.version != VERSION {
        return Err(format!(
            "This saved-work file is version {}; this version of the site reads version {VERSION}.",
            export.version
        ));
    }
    export
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let record = Record::from_text(&item.to_string())
                .map_err(|e| format!("Item {} of the file cannot be read: {e}", i + 1))?;
            check(&record).map_err(|e| {
                format!(
                    "Item {} of the file ({}) cannot be read: {e}",
                    i + 1,
                    record.title
                )
            })?;
            Ok(record)
        })
        .collect()
}

#[component]
pub fn Saved() -> impl IntoView {
    set_title("Saved work");
    let entries = RwSignal::new(None::<Vec<Entry>>);
    // (is it good news, the message)
    let message = RwSignal::new(None::<(bool, String)>);
    let reload = move || {
        wasm_bindgen_futures::spawn_local(async move {
            match store::list().await {
                Ok(list) => {
                    entries.try_set(Some(list));
                }
                Err(e) => {
                    entries.try_set(Some(Vec::new()));
                    message.try_set(Some((false, e)));
                }
            }
        })
    };
    reload();

    let export = move |_| {
        let list = entries.get_untracked().unwrap_or_default();
        let items: Vec<serde_json::Value> = list
            .iter()
            .filter_map(|e| e.record.as_ref().ok())
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect();
        let left_out = list.len() - items.len();
        let file = Export {
            format: FORMAT.into(),
            version: VERSION,
            items,
        };
        let json = serde_json::to_string_pretty(&file).unwrap_or_default();
        message.set(Some(
            match download(
                "inference-playground-saved-work.json",
                "application/json",
                &json,
            ) {
                Ok(()) if left_out > 0 => (
                    true,
                    format!(
                        "Exported {} items; {left_out} unreadable ones were left out.",
                        file.items.len()
                    ),
                ),
                Ok(()) => (true, format!("Exported {} items.", file.items.len())),
                Err(e) => (false, format!("The download failed: {e}")),
            },
        ));
    };
    let import = move |ev: web_sys::Event| {
        let Some((name, text)) = chosen_file(&ev) else {
            return;
        };
        wasm_bindgen_futures::spawn_local(async move {
            let records = text.await.and_then(|text| imported(&text));
            let result = match records {
                Ok(records) => store::put_all(&records).await.map(|()| records.len()),
                Err(e) => Err(e),
            };
            message.try_set(Some(match result {
                Ok(n) => (
                    true,
                    format!(
                        "Imported {n} {} from {}.",
                        if n == 1 { "item" } else { "items" },
                        name
                    ),
                ),
                Err(e) => (false, e),
            }));
            reload();
        });
    };

    view! {
        <article class="saved">
            <h1>"Saved work"</h1>
            <p class="lead">
                "Your playground conversations (every branch, with their settings), Lesson 1's base and instruct comparison, Lesson 2's measurements that take seconds (prefill and decode, threads, the prompt-length sweep) and Lesson 3's finished runs are kept in this browser, on this device only, as you work. Export them to a file to keep them elsewhere or move them to another browser; import such a file here."
            </p>
            <div class="save-load">
                <button type="button" data-testid="export-saved" on:click=export>"Export all (JSON)"</button>
                <label for="import-saved" class="button-like">"Import a file"</label>
                <input id="import-saved" data-testid="import-saved" type="file" accept=".json,application/json" on:change=import/>
            </div>
            {move || message.get().map(|(ok, text)| view! {
                <p class=if ok { "hint" } else { "error" } role=if ok { "status" } else { "alert" } data-testid="saved-message">{text}</p>
            })}
            <ul class="saved-list" data-testid="saved-list" aria-busy=move || entries.with(Option::is_none).to_string()>
                {move || entries.get().unwrap_or_default().into_iter().map(|e| item(e, message, reload)).collect_view()}
            </ul>
            <Show when=move || entries.with(|e| e.as_ref().is_some_and(Vec::is_empty))>
                <p data-testid="saved-empty">
                    "Nothing is saved yet. A conversation in the " <a href="playground">"playground"</a>
                    " is saved as you go, and so are the base and instruct runs of " <a href="learn/generation">"Lesson 1"</a> ", each finished measurement of " <a href="learn/stages">"Lesson 2"</a> " and run of " <a href="learn/reasoning">"Lesson 3"</a> " (a run you leave while it runs keeps the tasks it finished)."
                </p>
            </Show>
        </article>
    }
}

fn item(
    entry: Entry,
    message: RwSignal<Option<(bool, String)>>,
    reload: impl Fn() + Copy + 'static,
) -> impl IntoView {
    let navigate = use_navigate();
    let id = entry.id.clone();
    let delete = {
        let id = id.clone();
        move |_| {
            let id = id.clone();
            persist::forget();
            wasm_bindgen_futures::spawn_local(async move {
                if let Err(e) = store::delete(&id).await {
                    message.try_set(Some((false, e)));
                }
                reload();
            });
        }
    };
    let delete_button = view! {
        <button type="button" data-testid="delete-saved" on:click=delete>"Delete"</button>
    };
    match entry.record.and_then(|r| check(&r).map(|()| r)) {
        Ok(record) => {
            let open = {
                let (id, kind, opened) = (record.id.clone(), record.kind.clone(), record.clone());
                move |_| {
                    let (id, kind, navigate) = (id.clone(), kind.clone(), navigate.clone());
                    let record = opened.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let path = match kind.as_str() {
                            persist::KIND => {
                                // The playground opens the conversation its pointer names.
                                persist::forget();
                                store::set_pointer(persist::CURRENT, &id).await.map(|()| "/playground".to_string())
                            }
                            // Its lab shows the measurement its pointer names.
                            saved_measurements::KIND => saved_measurements::open(&record).await,
                            base_instruct_runs::KIND => base_instruct_runs::open(&record).await,
                            _ => Ok("/learn/reasoning".to_string()),
                        };
                        let path = match path {
                            Ok(path) => path,
                            Err(e) => {
                                message.try_set(Some((false, e)));
                                return;
                            }
                        };
                        // The router puts the site's base path in front.
                        navigate(&path, NavigateOptions::default());
                    });
                }
            };
            view! {
                <li class="saved-item" data-testid="saved-item" data-kind=record.kind.clone() data-id=id>
                    <h2>{if record.title.is_empty() { "(untitled)".to_string() } else { record.title.clone() }}</h2>
                    <p class="meta">
                        {kind_name(&record.kind)} " · saved " <time data-testid="saved-date">{date_text(record.saved)}</time>
                        " · model " <span data-testid="saved-model">{match record.made_by.model.as_str() {
                            // Saved before records named their model, or imported from a conversation file.
                            "" => "unknown".to_string(),
                            model => model.to_string(),
                        }}</span>
                        {record.made_by.integer_arithmetic.then(|| view! {
                            " · " <span data-testid="saved-arithmetic">"integer arithmetic"</span>
                        })}
                    </p>
                    <div class="row">
                        <button type="button" data-testid="open-saved" on:click=open>"Open"</button>
                        {delete_button}
                    </div>
                </li>
            }
            .into_any()
        }
        Err(why) => view! {
            <li class="saved-item unreadable" data-testid="saved-item" data-kind="unreadable" data-id=id.clone() data-unreadable="true">
                <h2>{format!("Unreadable item “{id}”")}</h2>
                <p class="meta" data-testid="saved-unreadable">{format!("This version of the site cannot open it. {why}")}</p>
                <div class="row">{delete_button}</div>
            </li>
        }
        .into_any(),
    }
}

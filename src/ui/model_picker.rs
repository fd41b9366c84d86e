//! The model picker, under the model status on every page: the built-in models, and a GGUF
//! file from the learner's device (a file input, or dropped on the picker). The file stays
//! on the device: the worker reads its header and shows what it holds and whether it fits
//! before anything is loaded, then loads it in slices where it lies. It is never uploaded.

use crate::bridge::{Bridge, ModelStatus};
use crate::model_choice::{self, Choice};
use crate::model_file::{megabytes, BUILT_INS};
use crate::protocol::{FileFacts, WASM32_BYTES};
use leptos::prelude::*;

/// A file the learner chose, and what its header says (or why it cannot be used).
#[derive(Clone)]
struct Chosen {
    file: web_sys::File,
    facts: Option<Result<FileFacts, String>>,
}

#[component]
pub fn ModelPicker() -> impl IntoView {
    let bridge = expect_context::<Bridge>();
    let status = bridge.status();
    let choice = bridge.choice();
    let chosen = RwSignal::new_local(None::<Chosen>);
    // Read once: a file loaded on an earlier visit, which this page cannot reopen.
    let forgotten = RwSignal::new(model_choice::forgotten_file());
    let loading = move || matches!(status.get(), ModelStatus::Loading { .. });

    let inspect = move |file: web_sys::File| {
        forgotten.set(None);
        chosen.set(Some(Chosen { file: file.clone(), facts: None }));
        let answered = file.clone();
        bridge.inspect_file(&file, move |facts| {
            // Only for the file still chosen: a later choice replaces an earlier answer.
            chosen.try_update(|c| {
                if let Some(c) = c.as_mut().filter(|c| c.file == answered) {
                    c.facts = Some(facts);
                }
            });
        });
    };
    let on_input = move |ev: web_sys::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let file = input.files().and_then(|files| files.get(0));
        // Choosing the same file again must be a change too.
        input.set_value("");
        if let Some(file) = file {
            inspect(file);
        }
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        if let Some(file) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
            inspect(file);
        }
    };
    let load = move |_| {
        if let Some(c) = chosen.get_untracked() {
            chosen.set(None);
            bridge.load_file(c.file);
        }
    };

    view! {
        <div class="model-picker" data-testid="model-picker"
            on:dragover=|ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
            <p class="model-name">
                "Model: "
                <strong data-testid="model-name">{move || choice.get().name()}</strong>
                {move || loading().then_some(" (loading)")}
            </p>
            {move || match status.get() {
                ModelStatus::Ready(info) if !info.chat_template => Some(view! {
                    <p class="notice" data-testid="base-model-notice">
                        {format!(
                            "{} is a base model: it has no chat template, so it does not chat. It continues the text it is given, as written: the playground uses raw text with it, and Lessons 1 and 2 give it their prompts as raw text. Compare it with an instruct model on the same text.",
                            choice.get().name()
                        )}
                    </p>
                }),
                _ => None,
            }}
            {move || forgotten.get().filter(|_| matches!(choice.get(), Choice::BuiltIn(_))).map(|file| view! {
                <p class="notice" data-testid="reopen-file">
                    {format!(
                        "Last time you used {file}, opened from this device. A page cannot open a file again without you: open it below to use it. Until then, {} is used.",
                        choice.get().name()
                    )}
                </p>
            })}
            <fieldset class="built-ins" disabled=loading>
                <legend>"Built-in models"</legend>
                {BUILT_INS.iter().map(|model| {
                    let current = move || choice.with(|c| matches!(c, Choice::BuiltIn(b) if b.id == model.id));
                    view! {
                        <button type="button" data-testid=format!("pick-{}", model.id)
                            aria-pressed=move || current().to_string()
                            on:click=move |_| {
                                forgotten.set(None);
                                if !current() || matches!(status.get_untracked(), ModelStatus::Idle | ModelStatus::Error(_)) {
                                    bridge.load_built_in(model);
                                }
                            }>
                            {format!(
                                "{} ({}, {})",
                                model.name,
                                megabytes(model.bytes),
                                if model.base { "base model" } else { "instruct model" }
                            )}
                        </button>
                    }
                }).collect_view()}
            </fieldset>
            <div class="open-file">
                <label for="open-gguf">"Or open a GGUF file from this device (or drop it here): "</label>
                <input id="open-gguf" data-testid="open-gguf" type="file" accept=".gguf"
                    aria-describedby="open-gguf-hint" disabled=loading on:change=on_input/>
                <small id="open-gguf-hint">
                    "The file stays on this device: this page reads it where it lies and never uploads it. What it holds is shown before it is loaded."
                </small>
            </div>
            {move || loading().then(|| view! {
                <button type="button" data-testid="cancel-load" on:click=move |_| bridge.cancel_load()>
                    "Cancel loading"
                </button>
            })}
            {move || chosen.get().map(|c| match c.facts {
                None => view! { <p class="hint" role="status">{format!("Reading the header of {}…", c.file.name())}</p> }.into_any(),
                Some(Err(message)) => refused(&c.file.name(), &message).into_any(),
                Some(Ok(facts)) => match facts.fits() {
                    Err(message) => view! { <FactsList file_name=c.file.name() facts=facts.clone()/> {refused(&c.file.name(), &message)} }.into_any(),
                    Ok(()) => view! {
                        <FactsList file_name=c.file.name() facts=facts.clone()/>
                        <p class="hint" data-testid="gguf-fits">
                            {format!(
                                "It fits: about {} for its weights and its KV cache at this page's context, of the {:.1} GB a browser's engine can address.",
                                megabytes(facts.needed_bytes),
                                WASM32_BYTES as f64 / 1e9
                            )}
                        </p>
                        <button type="button" data-testid="load-gguf" disabled=loading on:click=load>
                            {format!("Load {}", c.file.name())}
                        </button>
                    }.into_any(),
                },
            })}
        </div>
    }
}

fn refused(file_name: &str, message: &str) -> impl IntoView {
    view! {
        <p class="error" role="alert" data-testid="gguf-refused">
            {format!("{file_name} cannot be loaded. {message}")}
        </p>
    }
}

/// What the file's header says, before it is loaded.
#[component]
fn FactsList(file_name: String, facts: FileFacts) -> impl IntoView {
    let types = facts
        .tensor_types
        .iter()
        .map(|(t, n)| format!("{t} × {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let rows = [
        ("Name", facts.name.clone().unwrap_or_else(|| "(not given)".into())),
        ("Architecture", facts.architecture.clone()),
        ("File size", megabytes(facts.file_bytes)),
        ("Parameters", format!("{:.1} M", facts.parameters as f64 / 1e6)),
        ("Tensor types", types),
        ("Layers", facts.layers.to_string()),
        ("Attention heads", format!("{} ({} key/value)", facts.heads, facts.kv_heads)),
        ("Vocabulary", facts.vocab.to_string()),
        ("Context", format!("{} tokens", facts.context)),
        ("Chat template", if facts.chat_template { "yes".into() } else { "no: a base model, for raw text".into() }),
    ];
    let label = format!("What {file_name} holds");
    view! {
        <section class="gguf-info" data-testid="gguf-info" aria-label=label>
            <p><strong>{file_name}</strong>", as its header describes it:"</p>
            <dl>
                {rows.into_iter().map(|(k, v)| view! { <dt>{k}</dt><dd data-fact=k>{v}</dd> }).collect_view()}
            </dl>
        </section>
    }
}

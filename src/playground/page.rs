//! `/playground`: a conversation (or raw text) with every setting the engine has, each
//! token's probabilities and alternatives, branches, and the conversation saved as JSON.
//! The conversation reads top to bottom, the prompt box and Send under it, the settings
//! under those (folded away on a narrow screen). It is kept in the browser's store
//! (`persist.rs`); the settings and the prompt box also live in the link.

use super::chat::Chat;
use super::controls::SamplerControls;
use super::engine_arithmetic::EngineArithmetic;
use super::engine_kernels::EngineKernels;
use super::engine_threads::EngineThreads;
use super::follow::keep_newest_in_view;
use super::link::{from_link, to_link, Setup};
use super::persist::{self, keep_saved, new_conversation, open_imported, restore, undo_new_conversation};
use super::presets::playground_defaults;
use super::saved::{from_json, to_json};
use super::transcript::Transcript;
use crate::routes::{href, set_title, Lesson};
use crate::bridge::{Bridge, ModelStatus};
use crate::lessons::generation::base_instruct_runs::ANCHOR;
use crate::ui::address_bar;
use crate::ui::settings_query::to_query;
use crate::ui::download::{chosen_file, download};
use crate::ui::store;
use engine::chat::DEFAULT_SYSTEM_PROMPT;
use leptos::prelude::*;

const PATH: &str = "/playground";
/// Below this width (CSS pixels) the settings start folded away.
const NARROW: f64 = 700.0;

#[component]
pub fn Playground() -> impl IntoView {
    set_title("Playground");
    // This page runs the model: it loads now, if no earlier page loaded it.
    expect_context::<crate::bridge::Bridge>().need_model();
    let bridge = expect_context::<Bridge>();
    let query = window().location().search().unwrap_or_default();
    let (setup, link_notices) = from_link(&query, Setup::new(playground_defaults()));
    let notices = RwSignal::new(link_notices);
    let chat = Chat::new(bridge, setup, store::new_id(persist::KIND));
    provide_context(chat);
    restore(chat, query, notices);
    keep_saved(chat);
    keep_newest_in_view(chat);
    address_bar::keep(PATH.into(), move || to_link(&chat.setup()));
    on_cleanup(move || {
        if let Some(id) = chat.running.try_get_untracked().filter(|&id| id != 0) {
            bridge.cancel(id);
        }
    });
    // A base model has no chat template: the playground gives it raw text to continue (a
    // conversation already under way keeps its mode, and the engine refuses it a chat turn).
    let base = move || matches!(bridge.status().get(), ModelStatus::Ready(info) if !info.chat_template);
    Effect::new(move |_| {
        if chat.restored.get() && base() && chat.conversation.with_untracked(|c| c.exchanges.is_empty()) {
            chat.chat.set(false);
        }
    });
    let ready = move || chat.ready();
    let busy = move || chat.busy();
    let started = move || chat.conversation.with(|c| !c.exchanges.is_empty());
    let wide = window()
        .inner_width()
        .ok()
        .and_then(|w| w.as_f64())
        .is_some_and(|w| w >= NARROW);

    view! {
        <article class="playground">
            <h1>"Playground"</h1>
            <p class="lead">
                "Write a prompt, choose the settings, and watch the model answer one token at a time. Point at, focus or tap a token to see what else it could have been. Everything runs in this tab, and the conversation is kept in this browser (Saved work)."
            </p>
            {move || {
                let list = notices.get();
                (!list.is_empty()).then(|| view! {
                    <div class="url-notice" role="status" data-testid="url-notice">
                        <p>"This link's settings were adjusted:"</p>
                        <ul>{list.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                        <button type="button" on:click=move |_| notices.set(Vec::new())>"Dismiss"</button>
                    </div>
                })
            }}
            {move || chat.save_problem.get().map(|p| view! { <p class="error" role="alert" data-testid="save-error">{p}</p> })}
            <Show when=move || chat.put_away.with(Option::is_some)>
                <div class="put-away" role="status" data-testid="put-away">
                    <p>"A new conversation. The last one is kept in Saved work."</p>
                    <button type="button" data-testid="undo-new-conversation" disabled=busy
                        on:click=move |_| undo_new_conversation(chat)>"Undo: bring it back"</button>
                </div>
            </Show>
            <div class="view-options">
                <label>
                    <input type="checkbox" data-testid="colour-tokens" prop:checked=move || chat.colour.get()
                        on:change=move |ev| chat.colour.set(event_target_checked(&ev))/>
                    " Colour each token by the probability it was drawn with"
                </label>
                <span class="legend" aria-hidden="true">
                    <span class="ptok p0">"0–20%"</span><span class="ptok p1">"–40%"</span><span class="ptok p2">"–60%"</span><span class="ptok p3">"–80%"</span><span class="ptok p4">"–100%"</span>
                </span>
            </div>
            <Transcript/>
            <Show when=move || chat.full.get()>
                <div class="context-full" role="alert" data-testid="context-full">
                    <p>
                        {move || format!(
                            "This conversation has reached the page's context of {} tokens: the model cannot read more of it. Export it to keep it, then start a new conversation (below the prompt box).",
                            chat.context_cap().unwrap_or_default()
                        )}
                    </p>
                </div>
            </Show>
            <form
                class="generate-form"
                on:submit=move |ev| {
                    ev.prevent_default();
                    chat.send();
                }
            >
                <label for="prompt">{move || match (chat.chat.get(), started()) {
                    (true, false) => "Your message",
                    (true, true) => "Your next message",
                    (false, false) => "Text for the model to continue",
                    (false, true) => "Text to add (the model then continues)",
                }}</label>
                <textarea
                    id="prompt"
                    data-testid="prompt"
                    rows="3"
                    placeholder="What is the capital of France?"
                    aria-describedby="prompt-hint"
                    prop:value=move || chat.prompt.get()
                    on:input=move |ev| chat.prompt.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                            ev.prevent_default();
                            chat.send();
                        }
                    }
                ></textarea>
                <small id="prompt-hint">
                    {move || if chat.chat.get() {
                        "Send (Ctrl+Enter) adds your message to the conversation and the model answers it, reading everything above."
                    } else {
                        "Send (Ctrl+Enter) adds this text after the text so far, and the model continues it all."
                    }}
                </small>
                <div class="actions">
                    <button type="submit" data-testid="generate" disabled=move || !ready() || busy()>
                        "Send"
                    </button>
                    <button type="button" data-testid="stop" disabled=move || !busy() on:click=move |_| chat.stop_running()>
                        "Stop"
                    </button>
                    <button type="button" data-testid="new-conversation" disabled=move || busy() || !started()
                        on:click=move |_| new_conversation(chat)>"New conversation"</button>
                    <output data-testid="tokens-per-second" class="speed" aria-label="Generation speed">
                        {move || chat.speed.get().text()}
                    </output>
                </div>
                <Show when=move || !ready()>
                    <p class="hint">"Send is available once the model is ready (see above)."</p>
                </Show>
                {move || chat.problem.get().map(|p| view! { <p class="error" role="alert" data-testid="playground-error">{p}</p> })}
                <details class="settings" data-testid="settings" open=wide>
                    <summary>"Settings: mode, system prompt, sampling, length, threads"</summary>
                    <fieldset class="mode">
                        <legend>"The prompt is"</legend>
                        <label>
                            <input type="radio" name="mode" data-testid="mode-chat" disabled=move || busy() || started() || base() aria-describedby="mode-hint"
                                prop:checked=move || chat.chat.get() on:change=move |_| chat.chat.set(true)/>
                            " a chat message: the model answers as an assistant"
                        </label>
                        <label>
                            <input type="radio" name="mode" data-testid="mode-raw" disabled=move || busy() || started() aria-describedby="mode-hint"
                                prop:checked=move || !chat.chat.get() on:change=move |_| chat.chat.set(false)/>
                            " raw text: the model continues it. Written-out control tokens such as <|im_start|> count as such, so you can write the chat template yourself."
                        </label>
                        <small id="mode-hint">
                            {move || if base() {
                                Some("The loaded model is a base model (no chat template): it only continues raw text.")
                            } else {
                                started().then_some("A conversation keeps its mode: start a new conversation to change it.")
                            }}
                        </small>
                        <Show when=move || base() || !chat.chat.get()>
                            <a data-testid="base-instruct-link" href=move || base_instruct_link(chat)>
                                "Compare a base and an instruct model on this prompt, as a chat message and as raw text (Lesson 1)"
                            </a>
                        </Show>
                    </fieldset>
                    <Show when=move || chat.chat.get()>
                        <div class="system">
                            <label for="system-prompt">"System prompt"</label>
                            <textarea
                                id="system-prompt"
                                data-testid="system-prompt"
                                rows="2"
                                aria-describedby="system-prompt-hint"
                                prop:value=move || chat.system.get()
                                on:input=move |ev| chat.system.set(event_target_value(&ev))
                            ></textarea>
                            <small id="system-prompt-hint">
                                {move || if chat.system.with(String::is_empty) {
                                    "Empty: the template is given an empty system message, so it writes an empty system turn instead of its default."
                                } else if chat.system.with(|s| s == DEFAULT_SYSTEM_PROMPT) {
                                    "The model's default, which its chat template adds when a conversation has none."
                                } else {
                                    "Your own: it replaces the model's default."
                                }}
                            </small>
                            <div class="row">
                                <button type="button" data-testid="system-default" on:click=move |_| chat.system.set(DEFAULT_SYSTEM_PROMPT.into())>"Model default"</button>
                                <button type="button" data-testid="system-none" on:click=move |_| chat.system.set(String::new())>"None"</button>
                            </div>
                        </div>
                    </Show>
                    <SamplerControls settings=chat.settings max_tokens=chat.max_tokens stop=chat.stop/>
                    <EngineThreads/>
                    <EngineArithmetic/>
                    <EngineKernels/>
                </details>
            </form>
            <SaveLoad/>
        </article>
    }
}

/// Export the conversation with its settings as JSON; Import loads such a file back.
#[component]
fn SaveLoad() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let message = RwSignal::new(None::<(bool, String)>);
    let export = move |_| {
        let json = to_json(&chat.setup(), &chat.conversation.get_untracked());
        message.set(
            match download("playground-conversation.json", "application/json", &json) {
                Ok(()) => None,
                Err(e) => Some((false, format!("The download failed: {e}"))),
            },
        );
    };
    let import = move |ev: web_sys::Event| {
        let Some((name, text)) = chosen_file(&ev) else {
            return;
        };
        wasm_bindgen_futures::spawn_local(async move {
            match text.await.and_then(|text| from_json(&text)) {
                Ok((setup, conversation)) => {
                    open_imported(chat, setup, conversation);
                    message.try_set(Some((true, format!("Loaded {name}."))));
                }
                Err(e) => {
                    message.try_set(Some((false, e)));
                }
            }
        });
    };
    view! {
        <section class="save-load" aria-label="Save and load">
            <button type="button" data-testid="export" on:click=export>"Export conversation (JSON)"</button>
            <label for="import" class="button-like">"Import a conversation"</label>
            <input id="import" data-testid="import" type="file" accept=".json,application/json"
                disabled=move || chat.busy() on:change=import/>
            {move || message.get().map(|(ok, text)| view! {
                <p class=if ok { "hint" } else { "error" } role=if ok { "status" } else { "alert" } data-testid="import-message">{text}</p>
            })}
        </section>
    }
}

/// Lesson 1's "Base and instruct" panel with the playground's settings and prompt: the prompt
/// box, or when it is empty the last text sent.
fn base_instruct_link(chat: Chat) -> String {
    let prompt = match chat.prompt.get() {
        p if !p.trim().is_empty() => p,
        _ => chat.conversation.with(|c| c.exchanges.last().map(|e| e.user.clone()).unwrap_or_default()),
    };
    href(&format!("{}?{}#{ANCHOR}", Lesson::Generation.path(), to_query(&chat.settings.get(), &prompt)))
}

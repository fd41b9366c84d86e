//! A prompt box, and whether it is a chat message (through the chat template, with its
//! system prompt) or raw text that the model continues.

use crate::protocol::StagePrompt;
use crate::ui::lab::LabEngine;
use engine::Message;
use leptos::prelude::*;

#[component]
pub fn PromptField(
    /// Prefix of the fields' ids and test ids.
    id: &'static str,
    text: RwSignal<String>,
    chat: RwSignal<bool>,
    /// The panel's own prompt and mode, which "Back to the example" restores after edits.
    example: (&'static str, bool),
) -> impl IntoView {
    let edited = move || text.with(|t| t != example.0) || chat.get() != example.1;
    view! {
        <label for=format!("{id}-prompt")>"Prompt"</label>
        <textarea
            id=format!("{id}-prompt")
            data-testid=format!("{id}-prompt")
            rows="3"
            prop:value=move || text.get()
            on:input=move |ev| text.set(event_target_value(&ev))
        ></textarea>
        <button type="button" data-testid=format!("{id}-example") hidden=move || !edited()
            on:click=move |_| {
                text.set(example.0.into());
                chat.set(example.1);
            }>
            "Back to the example prompt"
        </button>
        <fieldset class="mode">
            <legend>"The prompt is"</legend>
            <label>
                <input type="radio" name=format!("{id}-mode") data-testid=format!("{id}-chat") prop:checked=move || chat.get() on:change=move |_| chat.set(true)/>
                " a chat message (with the chat template and its system prompt)"
            </label>
            <label>
                <input type="radio" name=format!("{id}-mode") data-testid=format!("{id}-raw") prop:checked=move || !chat.get() on:change=move |_| chat.set(false)/>
                " raw text, continued"
            </label>
        </fieldset>
    }
}

/// The prompt for the learner's text: a chat message when they chose chat and the loaded
/// model has a chat template, else raw text.
pub fn stage_prompt(engine: LabEngine, text: String, chat: bool) -> StagePrompt {
    if chat {
        chat_prompt(engine, vec![Message::user(&text)])
    } else {
        StagePrompt::Raw(text)
    }
}

/// `messages` through the chat template; for a base model, which has none, their texts one
/// after another as raw text for it to continue.
pub fn chat_prompt(engine: LabEngine, messages: Vec<Message>) -> StagePrompt {
    if engine.chat_model() {
        StagePrompt::Chat(messages)
    } else {
        StagePrompt::Raw(messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n"))
    }
}

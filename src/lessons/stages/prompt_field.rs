//! A prompt box, and whether it is a chat message (through the chat template, with its
//! system prompt) or raw text that the model continues.

use crate::protocol::StagePrompt;
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

pub fn stage_prompt(text: String, chat: bool) -> StagePrompt {
    if chat {
        StagePrompt::Chat(vec![Message::user(&text)])
    } else {
        StagePrompt::Raw(text)
    }
}

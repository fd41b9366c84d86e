//! The conversation on screen: each user message (with Edit) and its answer (its tokens,
//! "1 of 2" arrows when it has several, Regenerate, Continue on the last one, and a footer
//! with what the request measured). The last answer is the page's `output`.

use super::chat::Chat;
use super::conversation::Footer;
use super::tokens::{alternatives, answer_tokens, token_help};
use crate::digits::grouped;
use engine::StopReason;
use leptos::prelude::*;

#[component]
pub fn Transcript() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let count = move || chat.conversation.with(|c| c.exchanges.len());
    view! {
        <section class="transcript" aria-label="Conversation">
            <h2>"Conversation"</h2>
            {token_help()}
            <For each=move || 0..count() key=|j| *j children=move |j| exchange(chat, j)/>
            <Show when=move || count() == 0>
                <div class="output" data-testid="output"></div>
            </Show>
        </section>
    }
}

fn exchange(chat: Chat, j: usize) -> impl IntoView {
    let last = move || chat.conversation.with(|c| c.exchanges.len()) == j + 1;
    let user = move || {
        chat.conversation.with(|c| {
            c.exchanges
                .get(j)
                .map(|e| e.user.clone())
                .unwrap_or_default()
        })
    };
    let editing = RwSignal::new(None::<String>);
    let role = move || if chat.chat.get() { "user" } else { "text" };
    let answer_busy = move || chat.answering.get() == Some(j);
    view! {
        <div class="chat-turn user" data-testid="chat-turn" data-role=role>
            <h3 class="who">{move || if chat.chat.get() { "You" } else { "Text to continue" }}</h3>
            {move || match editing.get() {
                None => view! {
                    <p class="said">{user}</p>
                    <button type="button" data-testid="edit" disabled=move || chat.busy() on:click=move |_| editing.set(Some(user()))>
                        "Edit"
                    </button>
                }.into_any(),
                Some(text) => view! {
                    <label class="sr-only" for=format!("edit-{j}")>"Edit the message"</label>
                    <textarea id=format!("edit-{j}") data-testid="edit-text" rows="3" prop:value=text
                        on:input=move |ev| editing.set(Some(event_target_value(&ev)))></textarea>
                    <button type="button" data-testid="edit-save" disabled=move || chat.busy()
                        on:click=move |_| {
                            if let Some(text) = editing.get_untracked() {
                                editing.set(None);
                                chat.edit(j, text);
                            }
                        }>"Save and answer (drops what followed)"</button>
                    <button type="button" on:click=move |_| editing.set(None)>"Cancel"</button>
                }.into_any(),
            }}
        </div>
        <div class="chat-turn assistant" data-testid="chat-turn" data-role="assistant">
            <h3 class="who">{move || if chat.chat.get() { "Model" } else { "Continuation" }}</h3>
            {move || branch_switch(chat, j)}
            <div class="output" data-testid=move || if last() { "output" } else { "answer" }
                aria-busy=move || answer_busy().to_string()>
                {answer_tokens(chat, j)}
            </div>
            {alternatives(chat, j)}
            {move || {
                let footer = chat.conversation.with(|c| c.exchanges.get(j).and_then(|e| e.answer().footer.clone()));
                footer.map(|f| footer_view(chat, f, last()))
            }}
            <div class="turn-actions">
                <button type="button" data-testid="regenerate" disabled=move || chat.busy() || !chat.ready()
                    on:click=move |_| chat.regenerate(j)>"Regenerate"</button>
                <Show when=last>
                    <button type="button" data-testid="continue" disabled=move || chat.busy() || !chat.ready()
                        on:click=move |_| chat.go_on(j)>"Continue"</button>
                </Show>
            </div>
        </div>
    }
}

/// "‹ 1 of 2 ›" when exchange `j` has several answers.
fn branch_switch(chat: Chat, j: usize) -> Option<impl IntoView> {
    let (shown, total) = chat
        .conversation
        .with(|c| c.exchanges.get(j).map(|e| (e.shown, e.answers.len())))?;
    (total > 1).then(|| {
        view! {
            <div class="branch-switch" data-testid="branch-switch" role="group" aria-label="Answers to this message">
                <button type="button" aria-label="Previous answer" disabled=move || shown == 0 || chat.busy()
                    on:click=move |_| chat.switch(j, shown - 1)>"‹"</button>
                <span data-testid="branch-position">{format!("{} of {total}", shown + 1)}</span>
                <button type="button" aria-label="Next answer" disabled=move || shown + 1 == total || chat.busy()
                    on:click=move |_| chat.switch(j, shown + 1)>"›"</button>
            </div>
        }
    })
}

fn footer_view(chat: Chat, f: Footer, last: bool) -> impl IntoView {
    let cap = chat
        .context_cap()
        .map_or(String::new(), |cap| format!(" of {}", grouped(cap)));
    view! {
        <div class="turn-footer">
            <p class="summary" data-testid=if last { "summary" } else { "turn-summary" } role=last.then_some("status")>{summarise(&f)}</p>
            <p class="summary" data-testid="reuse" data-reused=f.reused data-computed=f.computed>
                {format!(
                    "Context: {} tokens reused from the KV cache, {} computed; {} in use{cap}.",
                    grouped(f.reused),
                    grouped(f.computed),
                    grouped(f.context)
                )}
            </p>
        </div>
    }
}

fn summarise(f: &Footer) -> String {
    let tokens = f.tokens;
    let why = match f.stop {
        StopReason::EndOfTurn => "the model ended its answer",
        StopReason::MaxTokens => "the maximum number of tokens was reached",
        StopReason::Cancelled => "stopped by you",
        StopReason::ContextFull => "the context is full",
        StopReason::StopSequence => "a stop sequence appeared",
    };
    if f.ttft_ms > 0.0 {
        format!(
            "{tokens} tokens; {why}. First token after {:.0} ms; prompt read at {:.0} tokens/s; answer written at {:.1} tokens/s.",
            f.ttft_ms, f.prefill_tps, f.decode_tps
        )
    } else {
        format!("{tokens} tokens; {why}.")
    }
}

//! An answer as its tokens, each coloured (an option) by the probability it had when drawn,
//! and the open token's alternatives: the ten most likely candidates with their final
//! probabilities and the stage that cut each. Choosing one branches the answer there.
//! Tokens take focus (Tab), and the alternatives' region is announced as it changes.

use super::chat::Chat;
use super::conversation::Token;
use crate::ui::format::prob;
use crate::ui::token_text::visible;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Five colour bands, one per fifth of probability.
fn band(p: f32) -> usize {
    ((p * 5.0).floor() as usize).min(4)
}

/// The tokens of exchange `j`'s answer.
pub fn answer_tokens(chat: Chat, j: usize) -> impl IntoView {
    let tokens = move || {
        chat.conversation.with(|c| {
            c.exchanges
                .get(j)
                .map(|e| {
                    e.answer()
                        .tokens
                        .iter()
                        .cloned()
                        .enumerate()
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };
    view! {
        <For
            each=tokens
            key=|(i, t)| (*i, t.id, t.prob.to_bits())
            children=move |(i, t): (usize, Token)| token(chat, j, i, t)
        />
    }
}

fn token(chat: Chat, j: usize, i: usize, t: Token) -> impl IntoView {
    let open = move || chat.open.get() == Some((j, i));
    let class = move || {
        let mut class = String::from("ptok");
        if chat.colour.get() {
            class += &format!(" p{}", band(t.prob));
        }
        if t.forced {
            class += " forced";
        }
        if open() {
            class += " open";
        }
        class
    };
    let show = move || chat.open.set(Some((j, i)));
    view! {
        <span
            class=class
            id=token_id(j, i)
            data-testid="token"
            data-token-id=t.id
            data-prob=t.prob
            tabindex="0"
            role="button"
            aria-expanded=move || open().to_string()
            aria-controls=format!("alternatives-{j}")
            aria-describedby="token-help"
            on:focus=move |_| show()
            on:mouseenter=move |_| show()
            on:click=move |_| show()
            on:keydown=move |ev| match ev.key().as_str() {
                "Escape" => chat.open.set(None),
                "Enter" | "ArrowDown" => {
                    ev.prevent_default();
                    focus_first_alternative(j);
                }
                _ => {}
            }
        >
            {t.piece}
        </span>
    }
}

/// The element id of answer `j`'s token `i`, so that closing its alternatives can return there.
fn token_id(j: usize, i: usize) -> String {
    format!("token-{j}-{i}")
}

/// Closes the open alternatives and puts the keyboard back on the token they belong to.
fn close_to_token(chat: Chat) {
    let Some((j, i)) = chat.open.get_untracked() else {
        return;
    };
    if let Some(token) = document()
        .get_element_by_id(&token_id(j, i))
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = token.focus();
    }
    // After the focus, which opens a token's alternatives (as it does when tabbing onto it).
    chat.open.set(None);
}

/// Moves the keyboard into exchange `j`'s alternatives: Tab from a token goes to the next
/// token, which would open its own.
fn focus_first_alternative(j: usize) {
    let first = document()
        .get_element_by_id(&format!("alternatives-{j}"))
        .and_then(|region| {
            region
                .query_selector("button:not([disabled])")
                .ok()
                .flatten()
        })
        .and_then(|button| button.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(button) = first {
        let _ = button.focus();
    }
}

/// How to use the tokens from the keyboard, read with each of them.
pub fn token_help() -> impl IntoView {
    view! {
        <p id="token-help" class="sr-only">
            "Each token of an answer shows its alternatives when focused; Enter moves to them, Escape closes them."
        </p>
    }
}

/// The open token's alternatives, if it is in exchange `j`'s answer. The region is always
/// there, so that screen readers announce what appears in it.
pub fn alternatives(chat: Chat, j: usize) -> impl IntoView {
    let opened = move || {
        let (oj, i) = chat.open.get()?;
        if oj != j {
            return None;
        }
        chat.conversation
            .with(|c| c.exchanges.get(j)?.answer().tokens.get(i).cloned())
            .map(|t| (i, t))
    };
    view! {
        <div class="alternatives" id=format!("alternatives-{j}") role="region" aria-live="polite" aria-label="The chosen token's alternatives"
            on:keydown=move |ev| if ev.key() == "Escape" {
                ev.prevent_default();
                close_to_token(chat);
            }
        >
            {move || opened().map(|(i, t)| {
                let drawn = t.id;
                let how = if t.forced { "placed by you" } else { "drawn" };
                view! {
                    <p>
                        {format!("“{}” was {how} with probability {}. ", visible(&t.piece), prob(t.prob as f64))}
                        "The most likely candidates, with their final probabilities (0 once a stage cut them). Choose one to branch the answer there:"
                    </p>
                    <ol data-testid="alternatives">
                        {t.alternatives.into_iter().map(|a| {
                            let cut = match a.cut_by {
                                Some(stage) => format!("cut by {}", stage.name()),
                                None if a.token == drawn => how.to_string(),
                                None => "kept".to_string(),
                            };
                            let label = format!("{} · {} · {}", visible(&a.text), prob(a.final_prob as f64), cut);
                            view! {
                                <li>
                                    <button
                                        type="button"
                                        data-testid="alternative"
                                        data-token-id=a.token
                                        data-prob=a.final_prob
                                        disabled=move || a.token == drawn || chat.busy()
                                        on:click=move |_| chat.choose(j, i, a.token)
                                    >
                                        {label}
                                    </button>
                                </li>
                            }
                        }).collect_view()}
                    </ol>
                    <button type="button" class="link" on:click=move |_| close_to_token(chat)>"Close"</button>
                }
            })}
        </div>
    }
}

//! The newest token stays in view while an answer is written: when a request starts, the
//! page scrolls so that the answer's end is on screen, and after each token it scrolls
//! again if the end was near the bottom of the screen. A learner who scrolls away (the end
//! more than `NEAR` below the screen) is left where they are; scrolling back follows again.

use super::chat::Chat;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// How far below the screen's bottom the answer's end may be and still be followed: a
/// few lines, more than one token adds.
const NEAR: f64 = 160.0;
/// Room left under the answer's end.
const MARGIN: f64 = 16.0;

pub fn keep_newest_in_view(chat: Chat) {
    Effect::new(move |was: Option<Option<usize>>| {
        let answering = chat.answering.get();
        chat.conversation.track();
        if let Some(j) = answering {
            let starting = was.flatten() != Some(j);
            // After the page has drawn the token.
            request_animation_frame(move || follow(j, starting));
        }
        answering
    });
}

fn follow(j: usize, starting: bool) {
    let Some(answer) = document()
        .query_selector_all(".transcript .chat-turn.assistant .output")
        .ok()
        .and_then(|list| list.item(j as u32))
        .and_then(|node| node.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Some(height) = window().inner_height().ok().and_then(|h| h.as_f64()) else {
        return;
    };
    let below = answer.get_bounding_client_rect().bottom() + MARGIN - height;
    if below > 0.0 && (starting || below < NEAR) {
        window().scroll_by_with_x_and_y(0.0, below);
    }
}

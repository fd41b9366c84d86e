//! The conversation kept in the browser's store (`ui/store.rs`): restored when the page
//! opens (the link's settings, if the address has any, go over the saved ones), saved a
//! moment after every change (and at once when the page is left), and New conversation,
//! which puts the conversation away (it stays in Saved work) and can be undone.
//! The saved body is the export file's JSON, read back through `saved.rs`'s checks.
//! Within one visit the page also remembers what it left in memory, so that coming back
//! (a glossary link, then Back) shows it at once, before anything can be typed.

use super::chat::{Chat, PutAway};
use super::conversation::Conversation;
use super::link::{from_link, Setup};
use super::saved::{from_json, to_json};
use crate::ui::store::{self, MadeBy, Record};
use leptos::prelude::*;
use std::cell::RefCell;
use std::time::Duration;

thread_local! {
    /// What the playground showed when it was left in this visit: item id, setup, conversation.
    static LEFT: RefCell<Option<(String, Setup, Conversation)>> = const { RefCell::new(None) };
}

/// Forgets what the page left in memory, so that the next visit reads the store: Saved
/// work's Open (another conversation) and Delete (this one may be gone).
pub fn forget() {
    LEFT.with(|l| l.borrow_mut().take());
}

pub const KIND: &str = "conversation";
/// The store's pointer to the conversation the playground shows.
pub const CURRENT: &str = "playground-conversation";
/// Saves of the settings and the prompt box wait this long, so that typing or a slider's
/// drag is saved once.
const SETTLE: Duration = Duration::from_millis(300);

/// The conversation's record: its export JSON as the body, its first message as the title,
/// and `made_by`, the model that answered and its arithmetic (none known for an imported file).
pub fn record(id: &str, setup: &Setup, conversation: &Conversation, made_by: Option<MadeBy>) -> Record {
    let body = serde_json::from_str(&to_json(setup, conversation)).unwrap_or_default();
    let title = conversation
        .exchanges
        .first()
        .map(|e| e.user.chars().take(80).collect::<String>())
        .unwrap_or_default();
    Record::new(id, KIND, &title, made_by, body)
}

/// A stored conversation's setup and exchanges, checked as an imported file is.
pub fn read(record: &Record) -> Result<(Setup, Conversation), String> {
    from_json(&record.body.to_string())
}

/// Reads the conversation the playground showed last, then lays the address's `query`
/// over its settings; its notices go to `notices`. Until this ends, nothing is sent or saved.
pub fn restore(chat: Chat, query: String, notices: RwSignal<Vec<String>>) {
    if let Some((id, setup, conversation)) = LEFT.with(|l| l.borrow_mut().take()) {
        show(chat, &query, notices, id, setup, conversation);
        chat.restored.set(true);
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let stored = match store::pointer(CURRENT).await {
            Ok(Some(id)) => store::get(&id)
                .await
                .map(|entry| entry.map(|e| (id, e.record))),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        let found = match stored {
            Ok(Some((id, Ok(record)))) => match read(&record) {
                Ok(saved) => Some((id, saved)),
                Err(e) => {
                    chat.save_problem.try_set(Some(unreadable(&e)));
                    None
                }
            },
            Ok(Some((_, Err(e)))) => {
                chat.save_problem.try_set(Some(unreadable(&e)));
                None
            }
            Ok(None) => None,
            Err(e) => {
                chat.save_problem.try_set(Some(e));
                None
            }
        };
        if let Some((id, (setup, conversation))) = found {
            show(chat, &query, notices, id, setup, conversation);
        }
        chat.restored.try_set(true);
    });
}

fn show(
    chat: Chat,
    query: &str,
    notices: RwSignal<Vec<String>>,
    id: String,
    setup: Setup,
    conversation: Conversation,
) {
    let (setup, link_notices) = match query.trim_start_matches('?').is_empty() {
        true => (setup, Vec::new()),
        false => from_link(query, setup),
    };
    chat.id.try_set_value(id);
    chat.load(setup, conversation);
    notices.try_set(link_notices);
}

fn unreadable(why: &str) -> String {
    format!("The conversation you had here last cannot be opened: {why} It is listed in Saved work; this is a new one.")
}

/// Saves the conversation when it changes while nothing runs (at once: an answer that
/// just ended is saved before a reload can come), and a moment after a change of the
/// settings or the prompt box (typing, a slider's drag, saved once). A running answer is
/// saved when it ends, or when the page is left. An empty conversation is not an item.
pub fn keep_saved(chat: Chat) {
    let pending = StoredValue::new(None::<TimeoutHandle>);
    // What was last saved or restored: the same again is not saved (its date would change).
    let last = StoredValue::new(None::<Record>);
    let idle = move || chat.restored.get() && chat.running.get() == 0;
    let clear = move || {
        if let Some(handle) = pending.try_get_value().flatten() {
            handle.clear();
        }
    };
    Effect::new(move |_| {
        chat.conversation.track();
        if !idle() {
            return;
        }
        if last.with_value(Option::is_none) {
            if let (Some(setup), Some(id)) = (chat.setup_untracked(), chat.id.try_get_value()) {
                last.set_value(Some(record(
                    &id,
                    &setup,
                    &chat.conversation.get_untracked(),
                    chat.made_by(),
                )));
            }
            return;
        }
        clear();
        save(chat, last);
    });
    Effect::new(move |_| {
        let _ = chat.setup();
        if !idle() {
            return;
        }
        clear();
        let later = move || {
            // A request that started meanwhile is saved when it ends.
            if chat.running.try_get_untracked() == Some(0) {
                save(chat, last);
            }
        };
        pending.set_value(set_timeout_with_handle(later, SETTLE).ok());
    });
    // Leaving the page: whatever is on it now, a running answer's tokens included.
    on_cleanup(move || {
        clear();
        if chat.restored.try_get_untracked() != Some(true) {
            return;
        }
        if let (Some(id), Some(setup), Some(conversation)) = (
            chat.id.try_get_value(),
            chat.setup_untracked(),
            chat.conversation.try_get_untracked(),
        ) {
            LEFT.with(|l| *l.borrow_mut() = Some((id, setup, conversation)));
        }
        save(chat, last);
    });
}

fn save(chat: Chat, last: StoredValue<Option<Record>>) {
    let (Some(conversation), Some(setup), Some(id)) = (
        chat.conversation.try_get_untracked(),
        chat.setup_untracked(),
        chat.id.try_get_value(),
    ) else {
        return;
    };
    if conversation.exchanges.is_empty() {
        return;
    }
    let record = record(&id, &setup, &conversation, chat.made_by());
    // The same body as last time (a restored conversation, a setting set back): its date stays.
    if last
        .try_with_value(|l| {
            l.as_ref()
                .is_some_and(|l| l.id == record.id && l.body == record.body)
        })
        .unwrap_or(false)
    {
        return;
    }
    let problem = chat.save_problem;
    wasm_bindgen_futures::spawn_local(async move {
        match store::put_and_point(&record, CURRENT).await {
            Ok(()) => {
                last.try_set_value(Some(record));
                problem.try_set(None);
            }
            Err(e) => {
                problem.try_set(Some(e));
            }
        }
    });
}

/// Puts the conversation away (it stays saved) and starts an empty one with the same
/// settings; `undo_new_conversation` brings it back while the new one is still empty.
pub fn new_conversation(chat: Chat) {
    if let Some(setup) = chat.setup_untracked() {
        replace(chat, setup, Conversation::default());
    }
}

/// Shows an imported conversation as a new item; the one it replaces is put away as by
/// New conversation, and Undo brings it back.
pub fn open_imported(chat: Chat, setup: Setup, conversation: Conversation) {
    replace(chat, setup, conversation);
}

fn replace(chat: Chat, setup: Setup, conversation: Conversation) {
    if chat.running.get_untracked() != 0 {
        return;
    }
    let current = chat.conversation.get_untracked();
    let put_away = (!current.exchanges.is_empty()).then(|| PutAway {
        id: chat.id.get_value(),
        setup: chat.setup_untracked().unwrap_or_else(|| setup.clone()),
        conversation: current,
    });
    let id = store::new_id(KIND);
    chat.id.set_value(id.clone());
    chat.load(setup, conversation);
    if put_away.is_some() {
        chat.put_away.set(put_away);
    }
    point_at(chat, id);
}

pub fn undo_new_conversation(chat: Chat) {
    if chat.running.get_untracked() != 0 {
        return;
    }
    let Some(PutAway {
        id,
        setup,
        conversation,
    }) = chat.put_away.get_untracked()
    else {
        return;
    };
    chat.put_away.set(None);
    chat.id.set_value(id.clone());
    chat.load(setup, conversation);
    point_at(chat, id);
}

/// The store's pointer follows the conversation on screen, so that a reload shows it.
fn point_at(chat: Chat, id: String) {
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = store::set_pointer(CURRENT, &id).await {
            chat.save_problem.try_set(Some(e));
        }
    });
}

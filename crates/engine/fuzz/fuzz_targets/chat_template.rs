//! Any text as a file's chat template, with any messages, on the tiny model's byte-level
//! BPE tokenizer (ChatML control tokens): `chat_tokens` returns ids or an error, never
//! panics, hangs or grows without bound (chat.rs's fuel and output limits), and what a
//! message holds never becomes a control token: the control ids of the result are the same,
//! in the same order, as with every message's text replaced by "x" (the template sees only
//! markers, never the text, so only its own writing can make a control token).
//!
//! Input: the template, then a NUL byte, then the messages' text (split at further NULs
//! into up to four messages, alternating user and assistant), all as lossy UTF-8.
#![no_main]

use engine::testing::TinyModel;
use engine::tokenizer::Tokenizer;
use engine::{chat_tokens, Message, Model, SystemPrompt};
use libfuzzer_sys::fuzz_target;
use std::sync::Mutex;

fn tokenizer() -> &'static Mutex<Tokenizer> {
    static T: std::sync::OnceLock<Mutex<Tokenizer>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let tiny = TinyModel { layers: 1, heads: 2, kv_heads: 1, embedding: 32, ffn: 64, context: 64, ..TinyModel::default() };
        Mutex::new(Model::from_gguf_bytes(&tiny.to_gguf()).expect("the tiny model loads").tokenizer)
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\0');
    let template = parts.next().unwrap_or_default();
    let messages: Vec<Message> = parts
        .take(4)
        .enumerate()
        .map(|(i, s)| if i % 2 == 0 { Message::user(s) } else { Message::assistant(s) })
        .collect();
    let mut tok = tokenizer().lock().unwrap();
    tok.chat_template = Some(template.to_string());
    let result = chat_tokens(&tok, &messages, SystemPrompt::Default);
    if let Ok(ids) = &result {
        assert!(ids.iter().all(|&i| (i as usize) < tok.vocab_size()), "an id outside the vocabulary");
    }
    // The marker character depends on the texts only when they hold private-use characters.
    if messages.iter().any(|m| m.content.chars().any(|c| ('\u{E000}'..='\u{F8FF}').contains(&c))) {
        return;
    }
    let plain: Vec<Message> = messages.iter().map(|m| Message { role: m.role.clone(), content: "x".into() }).collect();
    let controls = |r: &engine::Result<Vec<u32>>| {
        r.as_ref().map(|ids| ids.iter().copied().filter(|&i| tok.is_control(i)).collect::<Vec<_>>()).ok()
    };
    assert_eq!(controls(&result), controls(&chat_tokens(&tok, &plain, SystemPrompt::Default)), "a message became a control token");
});

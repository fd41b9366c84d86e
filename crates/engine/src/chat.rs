//! The ChatML template stored in the GGUF, applied as token ids: the template's own
//! markers are control tokens, while what a person wrote is always encoded as plain text.

use crate::error::{EngineError, Result};
use crate::tokenizer::Tokenizer;
use serde::{Deserialize, Serialize};

/// The system prompt the GGUF's template inserts when a chat has none.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn user(content: &str) -> Self {
        Self { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: &str) -> Self {
        Self { role: Role::Assistant, content: content.into() }
    }
}

/// What to do when the chat has no system message.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum SystemPrompt {
    /// As the template does: insert `DEFAULT_SYSTEM_PROMPT`.
    Default,
    /// Leave it out.
    Off,
}

/// `<|im_start|>{role}\n{content}<|im_end|>\n` for each message, then
/// `<|im_start|>assistant\n` so that the model answers.
pub fn chat_tokens(tok: &Tokenizer, messages: &[Message], system: SystemPrompt) -> Result<Vec<u32>> {
    let marker = |t: &str| {
        tok.control_id(t).ok_or_else(|| EngineError::InvalidModel(format!("the vocabulary has no {t} token")))
    };
    let (start, end) = (marker("<|im_start|>")?, marker("<|im_end|>")?);
    let mut ids = Vec::new();
    let turn = |ids: &mut Vec<u32>, role: &str, content: Option<&str>| -> Result<()> {
        ids.push(start);
        ids.extend(tok.encode(&format!("{role}\n{}", content.unwrap_or("")), false)?);
        if content.is_some() {
            ids.push(end);
            ids.extend(tok.encode("\n", false)?);
        }
        Ok(())
    };
    if system == SystemPrompt::Default && messages.first().is_none_or(|m| m.role != Role::System) {
        turn(&mut ids, "system", Some(DEFAULT_SYSTEM_PROMPT))?;
    }
    for m in messages {
        let role = match m.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        turn(&mut ids, role, Some(&m.content))?;
    }
    turn(&mut ids, "assistant", None)?;
    Ok(ids)
}

/// One finished exchange of a conversation: what the user wrote, and the answer's tokens as
/// they were generated (not re-encoded from its text, which may split differently), so that
/// the next turn's context starts with exactly the tokens already in the KV cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub user: String,
    pub answer: Vec<u32>,
}

/// A conversation's context for the next answer: the system turn (none when `system` is
/// empty), the earlier exchanges, the new user message, then `<|im_start|>assistant\n`.
/// With `earlier` empty and `system` the default, this is `chat_tokens` of one message.
pub fn conversation_tokens(tok: &Tokenizer, system: &str, earlier: &[Exchange], user: &str) -> Result<Vec<u32>> {
    if user.trim().is_empty() {
        return Err(EngineError::InvalidPrompt("the prompt is empty".into()));
    }
    let mut messages = Vec::new();
    if !system.is_empty() {
        messages.push(Message { role: Role::System, content: system.into() });
    }
    let mut ids = Vec::new();
    for e in earlier {
        messages.push(Message::user(&e.user));
        // The template up to the answer, then the answer's own tokens and the turn's end.
        ids.extend(chat_tokens(tok, &messages, SystemPrompt::Off)?);
        ids.extend(&e.answer);
        ids.push(
            tok.control_id("<|im_end|>")
                .ok_or_else(|| EngineError::InvalidModel("the vocabulary has no <|im_end|> token".into()))?,
        );
        ids.extend(tok.encode("\n", false)?);
        messages.clear();
    }
    messages.push(Message::user(user));
    ids.extend(chat_tokens(tok, &messages, SystemPrompt::Off)?);
    Ok(ids)
}

/// A prompt as the model sees it: a user message through the chat template, or with `raw`
/// the text as it is, where written-out control tokens (`<|im_start|>`) count as such,
/// after the BOS token when the file asks for one (`Tokenizer::add_bos`, Gemma) and the
/// text does not already start with it.
pub fn prompt_tokens(tok: &Tokenizer, prompt: &str, raw: bool, system: SystemPrompt) -> Result<Vec<u32>> {
    if prompt.trim().is_empty() {
        return Err(EngineError::InvalidPrompt("the prompt is empty".into()));
    }
    if raw {
        let mut ids = tok.encode(prompt, true)?;
        if let Some(bos) = tok.bos.filter(|&b| tok.add_bos && ids.first() != Some(&b)) {
            ids.insert(0, bos);
        }
        Ok(ids)
    } else {
        chat_tokens(tok, &[Message::user(prompt)], system)
    }
}

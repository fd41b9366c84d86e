//! A prompt as token ids, for the worker's requests: the engine's own rule, with its
//! message as the page shows it.

use crate::protocol::Turn;
use engine::{conversation_tokens, prompt_tokens, Model, SystemPrompt};

pub fn prompt_ids(model: &Model, prompt: &str, chat: bool) -> Result<Vec<u32>, String> {
    prompt_tokens(&model.tokenizer, prompt, !chat, SystemPrompt::Default).map_err(|e| e.to_string())
}

/// The context of a prompt inside a conversation: the system turn and earlier exchanges
/// (in chat, through the template; in raw text, each added text followed by the tokens
/// that continued it), the prompt, then the answer's first tokens.
pub fn turn_ids(model: &Model, prompt: &str, chat: bool, turn: &Turn) -> Result<Vec<u32>, String> {
    let mut ids = if chat {
        conversation_tokens(&model.tokenizer, turn.system.as_deref(), &turn.earlier, prompt)
            .map_err(|e| e.to_string())?
    } else if turn.system.is_some() {
        return Err("Raw text has no system prompt.".into());
    } else {
        let mut ids = Vec::new();
        for e in &turn.earlier {
            ids.extend(prompt_ids(model, &e.user, false)?);
            ids.extend(&e.answer);
        }
        ids.extend(prompt_ids(model, prompt, false)?);
        ids
    };
    ids.extend(&turn.answer);
    Ok(ids)
}

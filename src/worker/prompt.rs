//! A prompt as token ids, for the worker's requests: the engine's own rule, with its
//! message as the page shows it.

use engine::{prompt_tokens, Model, SystemPrompt};

pub fn prompt_ids(model: &Model, prompt: &str, chat: bool) -> Result<Vec<u32>, String> {
    prompt_tokens(&model.tokenizer, prompt, !chat, SystemPrompt::Default).map_err(|e| e.to_string())
}

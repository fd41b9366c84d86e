//! A prompt as token ids: a user message through the model's chat template, or raw text.

use engine::{chat_tokens, Message, Model, SystemPrompt};

pub fn prompt_ids(model: &Model, prompt: &str, chat: bool) -> Result<Vec<u32>, String> {
    if prompt.trim().is_empty() {
        return Err("The prompt is empty.".into());
    }
    let ids = if chat {
        chat_tokens(
            &model.tokenizer,
            &[Message::user(prompt)],
            SystemPrompt::Default,
        )
    } else {
        // As the CLI's --raw: control tokens written out (<|im_start|>) count as such.
        model.tokenizer.encode(prompt, true)
    };
    ids.map_err(|e| e.to_string())
}

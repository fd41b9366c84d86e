//! What the command groups share: reading the model file (whole, or open for `info`), a
//! session on the wall clock, and a prompt's tokens as `--system`, `--raw` and
//! `--no-system-prompt` ask (a base model's only with `--raw`).

use crate::cli::Prompt;
use engine::{conversation_tokens, prompt_tokens, Model, Session, SystemPrompt};
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

pub fn model_bytes(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| unreadable(path, e))
}

/// The model file, open for reading in parts (`info` reads only its header).
pub fn model_file(path: &Path) -> Result<BufReader<File>, String> {
    File::open(path).map(BufReader::new).map_err(|e| unreadable(path, e))
}

fn unreadable(path: &Path, e: std::io::Error) -> String {
    format!("cannot read the model file {}: {e} (scripts/fetch-model.sh fetches it)", path.display())
}

pub fn load_model(path: &Path) -> Result<Arc<Model>, String> {
    Model::from_gguf_bytes(&model_bytes(path)?).map(Arc::new).map_err(|e| e.to_string())
}

pub fn session(model: Arc<Model>) -> Session {
    let origin = Instant::now();
    Session::new(model, Box::new(move || origin.elapsed().as_secs_f64() * 1000.0))
}

/// The prompt's tokens: through the chat template (with `--system`'s text as its system
/// turn), or as-is with `--raw`.
pub fn prompt_ids(model: &Model, p: &Prompt) -> Result<Vec<u32>, String> {
    needs_raw(model, p.raw)?;
    match &p.system {
        Some(system) => conversation_tokens(&model.tokenizer, Some(system), &[], &p.prompt),
        None => prompt_tokens(&model.tokenizer, &p.prompt, p.raw, system_prompt(p)),
    }
    .map_err(|e| e.to_string())
}

pub fn system_prompt(p: &Prompt) -> SystemPrompt {
    if p.no_system_prompt {
        SystemPrompt::Off
    } else {
        SystemPrompt::Default
    }
}

/// A base model (no `tokenizer.chat_template`, such as Gemma 3 270M) continues text; it
/// was never taught a chat format, so a chat prompt is refused rather than made up.
pub fn needs_raw(model: &Model, raw: bool) -> Result<(), String> {
    match raw || model.has_chat_template() {
        true => Ok(()),
        false => Err("this model has no chat template (a base model, which continues text): add --raw".into()),
    }
}

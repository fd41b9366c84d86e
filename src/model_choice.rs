//! Which model the page runs: a built-in one or a file from the learner's device, and what
//! the browser remembers of it for the next visit. A built-in model is remembered by its id
//! and loaded again; a file from the device cannot be: a page may not reopen a file without
//! the learner, so only its name is kept, for the page to say so.

use crate::model_file::{built_in, default_built_in, BuiltIn};

#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    BuiltIn(&'static BuiltIn),
    /// A GGUF file opened from the device, by its file name.
    Device { file_name: String },
}

impl Choice {
    /// The name the page shows: the built-in's, or the file's.
    pub fn name(&self) -> String {
        match self {
            Choice::BuiltIn(b) => b.name.into(),
            Choice::Device { file_name } => file_name.clone(),
        }
    }

    /// Its file's name without `.gguf`, which names the weights as well as the model:
    /// "SmolLM2-135M-Instruct.Q4_1", "gemma-3-270m.Q4_K_M". Saved work and the lessons'
    /// "Measured on" say this.
    pub fn file_stem(&self) -> String {
        let file = match self {
            Choice::BuiltIn(b) => b.url.rsplit('/').next().unwrap_or(b.url),
            Choice::Device { file_name } => file_name,
        };
        match file.len().checked_sub(".gguf".len()) {
            Some(cut) if file.is_char_boundary(cut) && file[cut..].eq_ignore_ascii_case(".gguf") => file[..cut].to_string(),
            _ => file.to_string(),
        }
    }
}

const BUILT_IN_KEY: &str = "inference-playground.model";
const DEVICE_KEY: &str = "inference-playground.model-file";

/// The built-in model to load: the last one the learner used, else the default.
pub fn last_built_in() -> &'static BuiltIn {
    storage()
        .and_then(|s| s.get_item(BUILT_IN_KEY).ok().flatten())
        .and_then(|id| built_in(&id))
        .unwrap_or_else(default_built_in)
}

/// The file from the device that was loaded last, when it was the last model used.
pub fn forgotten_file() -> Option<String> {
    storage().and_then(|s| s.get_item(DEVICE_KEY).ok().flatten())
}

/// Keeps `choice`, just loaded, for the next visit.
pub fn remember(choice: &Choice) {
    let Some(s) = storage() else { return };
    let _ = match choice {
        Choice::BuiltIn(b) => s.set_item(BUILT_IN_KEY, b.id).and_then(|()| s.remove_item(DEVICE_KEY)),
        Choice::Device { file_name } => s.set_item(DEVICE_KEY, file_name),
    };
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

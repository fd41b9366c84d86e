//! `info`: what a GGUF file holds, from its header and tensor directory alone
//! (`engine::gguf::info`), so a file can be described before it is loaded.

use crate::model::model_file;
use serde_json::Value;
use std::path::Path;

pub fn info(path: &Path) -> Result<Value, String> {
    let info = engine::gguf::info::info(&mut model_file(path)?).map_err(|e| e.to_string())?;
    serde_json::to_value(info).map_err(|e| e.to_string())
}

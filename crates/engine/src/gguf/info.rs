//! What a GGUF file holds, read from its header alone: the architecture and its
//! hyper-parameters, the parameter count, the mix of tensor types, whether it carries a chat
//! template. No weight is read, so a host can describe a file (the CLI's `info`, a model
//! picker) before deciding to load it. The same checks as loading apply: the header through
//! `read_gguf`, the hyper-parameters through `Config::from_gguf`, and every tensor must lie
//! inside the file, so a truncated or lying file is refused here too.

use super::config::{Config, SlidingWindow};
use super::read_gguf;
use super::sampling::FileSampling;
use super::tensors::extent;
use crate::error::{EngineError, Result};
use candle_core::quantized::gguf_file::Value;
use candle_core::quantized::GgmlDType;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Info {
    /// `general.name`, when the file has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub architecture: &'static str,
    /// Elements across every tensor, as llama.cpp counts a model's parameters.
    pub parameters: u64,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub embedding: usize,
    pub vocab: usize,
    pub context: usize,
    /// Gemma 3's local layers (window, every `pattern`-th layer global, their RoPE base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sliding_window: Option<SlidingWindow>,
    /// How many tensors have each type, by ggml's name for it ("Q4_K", "F32", …).
    pub tensor_types: BTreeMap<&'static str, usize>,
    /// Whether `tokenizer.chat_template` is set: without it the model is a base model.
    pub chat_template: bool,
    pub file_bytes: u64,
    /// The file's recommended sampling settings (`general.sampling.*`), when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<FileSampling>,
}

/// Describes the GGUF file in `r` from its header and tensor directory.
pub fn info<R: Read + Seek>(r: &mut R) -> Result<Info> {
    let content = read_gguf(r)?;
    let file_bytes =
        r.seek(SeekFrom::End(0)).map_err(|e| EngineError::InvalidModel(format!("could not read the file: {e}")))?;
    let config = Config::from_gguf(&content)?;
    let mut parameters = 0u64;
    let mut tensor_types = BTreeMap::new();
    // In the file's order, so that a truncated file's error names the first tensor cut.
    let mut tensors: Vec<_> = content.tensor_infos.iter().collect();
    tensors.sort_by_key(|&(name, t)| (t.offset, name));
    for (name, t) in tensors {
        extent(&content, name, t, file_bytes)?;
        // Bounded by the file: each tensor's bytes lie inside it (checked just above), and
        // no type packs more than 4 elements into a byte.
        parameters += t.shape.dims().iter().map(|&d| d as u64).product::<u64>();
        *tensor_types.entry(type_name(t.ggml_dtype)).or_insert(0) += 1;
    }
    let name = match content.metadata.get("general.name") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let Config { architecture, layers, heads, kv_heads, head_dim, embedding, vocab, context, sliding_window, .. } =
        config;
    Ok(Info {
        name,
        architecture: architecture.name(),
        parameters,
        layers,
        heads,
        kv_heads,
        head_dim,
        embedding,
        vocab,
        context,
        sliding_window,
        tensor_types,
        chat_template: matches!(content.metadata.get("tokenizer.chat_template"), Some(Value::String(_))),
        file_bytes,
        sampling: FileSampling::from_gguf(&content),
    })
}

/// ggml's name for a type (candle's `Debug` writes the K-quants as `Q4K`).
fn type_name(t: GgmlDType) -> &'static str {
    match t {
        GgmlDType::F32 => "F32",
        GgmlDType::F16 => "F16",
        GgmlDType::BF16 => "BF16",
        GgmlDType::Q4_0 => "Q4_0",
        GgmlDType::Q4_1 => "Q4_1",
        GgmlDType::Q5_0 => "Q5_0",
        GgmlDType::Q5_1 => "Q5_1",
        GgmlDType::Q8_0 => "Q8_0",
        GgmlDType::Q8_1 => "Q8_1",
        GgmlDType::Q2K => "Q2_K",
        GgmlDType::Q3K => "Q3_K",
        GgmlDType::Q4K => "Q4_K",
        GgmlDType::Q5K => "Q5_K",
        GgmlDType::Q6K => "Q6_K",
        GgmlDType::Q8K => "Q8_K",
    }
}

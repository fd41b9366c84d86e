//! Gemma 3 (text): Qwen3's per-head Q/K norms, plus an RMSNorm after attention and after
//! the MLP (before each joins the residual stream), a GeGLU MLP with GELU's tanh form,
//! embeddings scaled by √embedding, and local sliding-window layers with their own RoPE
//! base between the global ones (`Config::window`). The norms' weights are used as
//! stored: llama.cpp's converter already added Gemma's `1 +` (convert_hf_to_gguf.py,
//! `Gemma3Model.modify_tensors`). Soft-capping applies when the file's metadata asks.

use super::layers::{Activation, Layer, Recipe, RopeStyle};
use super::qwen3;
use crate::error::Result;
use crate::gguf::config::Config;
use crate::gguf::TensorReader;
use std::io::{Read, Seek};

pub(crate) const RECIPE: Recipe =
    Recipe { rope: RopeStyle::Halves, activation: Activation::GeluTanh, scale_embeddings: true };

pub(crate) fn layer<R: Read + Seek>(t: &mut TensorReader<'_, R>, c: &Config, i: usize) -> Result<Layer> {
    let mut layer = qwen3::layer(t, c, i)?;
    let p = |s: &str| format!("blk.{i}.{s}.weight");
    layer.post_norms =
        Some([t.vector(&p("post_attention_norm"), c.embedding)?, t.vector(&p("post_ffw_norm"), c.embedding)?]);
    Ok(layer)
}

//! Qwen3: llama's block with an RMSNorm on each query and key head before RoPE (no Q/K/V
//! biases), RoPE on GPT-NeoX's half-split pairs, and a head size of its own
//! (`qwen3.attention.key_length`, not embedding / heads).

use super::layers::{Activation, Layer, Recipe, RopeStyle};
use super::llama;
use crate::error::Result;
use crate::gguf::config::Config;
use crate::gguf::TensorReader;
use std::io::{Read, Seek};

pub(crate) const RECIPE: Recipe =
    Recipe { rope: RopeStyle::Halves, activation: Activation::Silu, scale_embeddings: false };

pub(crate) fn layer<R: Read + Seek>(t: &mut TensorReader<'_, R>, c: &Config, i: usize) -> Result<Layer> {
    let mut layer = llama::layer(t, c, i)?;
    let p = |s: &str| format!("blk.{i}.{s}.weight");
    layer.qk_norm = Some([t.vector(&p("attn_q_norm"), c.head_dim)?, t.vector(&p("attn_k_norm"), c.head_dim)?]);
    Ok(layer)
}

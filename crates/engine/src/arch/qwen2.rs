//! Qwen2 and Qwen2.5: llama's block with biases on the Q, K and V projections, and RoPE
//! on GPT-NeoX's half-split pairs.

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
    let p = |s: &str| format!("blk.{i}.{s}.bias");
    layer.qkv_bias = Some([
        t.vector(&p("attn_q"), c.q_dim())?,
        t.vector(&p("attn_k"), c.kv_dim())?,
        t.vector(&p("attn_v"), c.kv_dim())?,
    ]);
    Ok(layer)
}

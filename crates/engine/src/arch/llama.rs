//! Llama (SmolLM2 is one): the core every architecture here starts from. Pre-norm blocks,
//! grouped-query attention with RoPE on adjacent pairs (GGUF's llama Q and K rows are
//! permuted for it), a SwiGLU MLP.

use super::layers::{Activation, Layer, Recipe, RopeStyle};
use crate::error::Result;
use crate::gguf::config::Config;
use crate::gguf::TensorReader;
use std::io::{Read, Seek};

pub(crate) const RECIPE: Recipe =
    Recipe { rope: RopeStyle::Interleaved, activation: Activation::Silu, scale_embeddings: false };

/// Layer `i`'s llama weights, shapes checked against `c`; the other architectures add to it.
pub(crate) fn layer<R: Read + Seek>(t: &mut TensorReader<'_, R>, c: &Config, i: usize) -> Result<Layer> {
    let p = |s: &str| format!("blk.{i}.{s}.weight");
    Ok(Layer {
        attn_norm: t.vector(&p("attn_norm"), c.embedding)?,
        wq: t.matrix(&p("attn_q"), c.q_dim(), c.embedding)?,
        wk: t.matrix(&p("attn_k"), c.kv_dim(), c.embedding)?,
        wv: t.matrix(&p("attn_v"), c.kv_dim(), c.embedding)?,
        wo: t.matrix(&p("attn_output"), c.embedding, c.q_dim())?,
        qkv_bias: None,
        qk_norm: None,
        post_norms: None,
        ffn_norm: t.vector(&p("ffn_norm"), c.embedding)?,
        gate: t.matrix(&p("ffn_gate"), c.ffn, c.embedding)?,
        up: t.matrix(&p("ffn_up"), c.ffn, c.embedding)?,
        down: t.matrix(&p("ffn_down"), c.embedding, c.ffn)?,
    })
}

//! The model's hyper-parameters, read from GGUF metadata and checked before anything is
//! allocated from them, so that a file that lies gets an error instead of an abort.

use crate::error::{EngineError, Result};
use candle_core::quantized::gguf_file::{Content, Value};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub embedding: usize,
    pub ffn: usize,
    pub vocab: usize,
    /// The context the model was trained for (`llama.context_length`).
    pub context: usize,
    pub rope_base: f32,
    pub rms_eps: f32,
}

impl Config {
    pub fn kv_dim(&self) -> usize {
        self.kv_heads * self.head_dim
    }

    /// Bytes of K and V for one position across all layers, at f32:
    /// 2 × layers × kv_heads × head_dim × 4.
    pub fn kv_bytes_per_position(&self) -> usize {
        2 * self.layers * self.kv_dim() * std::mem::size_of::<f32>()
    }

    pub fn from_gguf(content: &Content) -> Result<Self> {
        let md = &content.metadata;
        let arch = match md.get("general.architecture") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(invalid("general.architecture is not a string")),
            None => return Err(invalid("the file has no general.architecture")),
        };
        if arch != "llama" {
            return Err(invalid(&format!("architecture is '{arch}'; this engine runs 'llama' models")));
        }
        let int = |key: &str| -> Result<usize> {
            let v = md.get(key).ok_or_else(|| invalid(&format!("metadata {key} is missing")))?;
            let n = v.to_u64().or_else(|_| v.to_u32().map(u64::from)).or_else(|_| v.to_i32().map(|i| i.max(0) as u64));
            n.map(|n| n as usize).map_err(|_| invalid(&format!("metadata {key} is not an integer")))
        };
        let float = |key: &str, default: f32| -> Result<f32> {
            match md.get(key) {
                None => Ok(default),
                Some(v) => v.to_f32().map_err(|_| invalid(&format!("metadata {key} is not a float"))),
            }
        };
        let heads = int("llama.attention.head_count")?;
        let embedding = int("llama.embedding_length")?;
        let vocab = content
            .tensor_infos
            .get("token_embd.weight")
            .map(|t| t.shape.dims().first().copied().unwrap_or(0))
            .ok_or_else(|| invalid("tensor token_embd.weight is missing"))?;
        let head_dim = match md.get("llama.rope.dimension_count") {
            Some(_) => int("llama.rope.dimension_count")?,
            None if heads > 0 => embedding / heads,
            None => 0,
        };
        let cfg = Self {
            layers: int("llama.block_count")?,
            heads,
            kv_heads: match md.get("llama.attention.head_count_kv") {
                Some(_) => int("llama.attention.head_count_kv")?,
                None => heads,
            },
            head_dim,
            embedding,
            ffn: int("llama.feed_forward_length")?,
            vocab,
            context: int("llama.context_length")?,
            rope_base: float("llama.rope.freq_base", 10_000.0)?,
            rms_eps: float("llama.attention.layer_norm_rms_epsilon", 1e-5)?,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    fn validate(&self) -> Result<()> {
        let in_range = |name: &str, v: usize, max: usize| {
            if v == 0 || v > max {
                Err(invalid(&format!("{name} = {v} is outside 1..={max}")))
            } else {
                Ok(())
            }
        };
        in_range("layers", self.layers, 512)?;
        in_range("heads", self.heads, 1024)?;
        in_range("kv_heads", self.kv_heads, 1024)?;
        in_range("embedding", self.embedding, 65_536)?;
        in_range("ffn", self.ffn, 262_144)?;
        in_range("vocab", self.vocab, 1 << 20)?;
        in_range("context", self.context, 1 << 20)?;
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(invalid(&format!("{} heads cannot share {} KV heads evenly", self.heads, self.kv_heads)));
        }
        if self.head_dim * self.heads != self.embedding || !self.head_dim.is_multiple_of(2) {
            return Err(invalid(&format!(
                "head_dim {} × {} heads does not make the embedding {} (or head_dim is odd)",
                self.head_dim, self.heads, self.embedding
            )));
        }
        if !(self.rope_base.is_finite() && self.rope_base > 1.0 && self.rms_eps.is_finite() && self.rms_eps > 0.0) {
            return Err(invalid("rope base or RMS epsilon is not a positive finite number"));
        }
        Ok(())
    }
}

fn invalid(m: &str) -> EngineError {
    EngineError::InvalidModel(m.to_string())
}

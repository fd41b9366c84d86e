//! The model's hyper-parameters, read from GGUF metadata and checked before anything is
//! allocated from them, so that a file that lies gets an error instead of an abort.
//! Keys are llama.cpp's (`{arch}.block_count`, `{arch}.attention.sliding_window`, …, as
//! `gguf-py/gguf/constants.py` names them), under the file's `general.architecture`.

use crate::error::{EngineError, Result};
use candle_core::quantized::gguf_file::{Content, Value};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The architectures the engine runs (`arch/`, one file each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Architecture {
    Llama,
    Qwen2,
    Qwen3,
    Gemma3,
}

impl Architecture {
    pub const ALL: [Architecture; 4] = [Self::Llama, Self::Qwen2, Self::Qwen3, Self::Gemma3];

    /// The name GGUF gives it in `general.architecture`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Llama => "llama",
            Self::Qwen2 => "qwen2",
            Self::Qwen3 => "qwen3",
            Self::Gemma3 => "gemma3",
        }
    }
}

/// Gemma 3's local layers: each attends to the last `size` positions only (itself
/// included), with a RoPE base of its own; every `pattern`-th layer is global.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SlidingWindow {
    pub size: usize,
    pub pattern: usize,
    pub rope_base: f32,
}

/// llama.cpp (src/llama-model.cpp, `LLM_ARCH_GEMMA3`, b6000 and later) hard-codes these for
/// Gemma 3 files, which carry neither key: five local layers to a global one, local RoPE
/// base 10 000 (Gemma 3's `rope_local_base_freq`). A file that sets the keys wins.
const GEMMA3_PATTERN: usize = 6;
const GEMMA3_LOCAL_ROPE_BASE: f32 = 10_000.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    pub architecture: Architecture,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    /// Per head; `heads × head_dim` need not be the embedding (Gemma 3, Qwen3).
    pub head_dim: usize,
    pub embedding: usize,
    pub ffn: usize,
    pub vocab: usize,
    /// The context the model was trained for (`{arch}.context_length`).
    pub context: usize,
    /// The global layers' RoPE base.
    pub rope_base: f32,
    pub rms_eps: f32,
    /// Gemma 3's local layers; `None`: every layer sees the whole context.
    pub sliding_window: Option<SlidingWindow>,
    /// `cap · tanh(score / cap)` on attention scores, when the file asks for it.
    pub attn_softcap: Option<f32>,
    /// The same on the output logits.
    pub final_softcap: Option<f32>,
}

impl Config {
    pub fn kv_dim(&self) -> usize {
        self.kv_heads * self.head_dim
    }

    /// The width of the queries and of attention's output: heads × head_dim.
    pub fn q_dim(&self) -> usize {
        self.heads * self.head_dim
    }

    /// How many positions layer `layer` attends to, when it is a local (sliding-window) layer.
    pub fn window(&self, layer: usize) -> Option<usize> {
        self.sliding_window.filter(|w| !(layer + 1).is_multiple_of(w.pattern)).map(|w| w.size)
    }

    /// Layer `layer`'s RoPE base: local layers have their own.
    pub fn rope_base_of(&self, layer: usize) -> f32 {
        match (self.window(layer), self.sliding_window) {
            (Some(_), Some(w)) => w.rope_base,
            _ => self.rope_base,
        }
    }

    /// Bytes of K and V for one position across all layers, at f32:
    /// 2 × layers × kv_heads × head_dim × 4.
    pub fn kv_bytes_per_position(&self) -> usize {
        2 * self.layers * self.kv_dim() * std::mem::size_of::<f32>()
    }

    pub fn from_gguf(content: &Content) -> Result<Self> {
        let md = Metadata(&content.metadata);
        let name = match content.metadata.get("general.architecture") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(invalid("general.architecture is not a string")),
            None => return Err(invalid("the file has no general.architecture")),
        };
        let architecture = Architecture::ALL.into_iter().find(|a| a.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Architecture::ALL.iter().map(|a| a.name()).collect();
            invalid(&format!("architecture is '{name}'; this engine runs {}", known.join(", ")))
        })?;
        let key = |k: &str| format!("{name}.{k}");
        let heads = md.int(&key("attention.head_count"))?;
        let embedding = md.int(&key("embedding_length"))?;
        let vocab = content
            .tensor_infos
            .get("token_embd.weight")
            .map(|t| t.shape.dims().first().copied().unwrap_or(0))
            .ok_or_else(|| invalid("tensor token_embd.weight is missing"))?;
        // llama.cpp's default head size is embedding / heads; key_length overrides it.
        let head_dim = match md.optional_int(&key("attention.key_length"))? {
            Some(d) => d,
            None if heads > 0 => embedding / heads,
            None => 0,
        };
        for k in ["attention.value_length", "rope.dimension_count"] {
            if let Some(d) = md.optional_int(&key(k))?.filter(|&d| d != head_dim) {
                return Err(invalid(&format!(
                    "metadata {} = {d} differs from the head size {head_dim}; this engine needs them equal \
                     (values as wide as keys, RoPE over the whole head)",
                    key(k)
                )));
            }
        }
        // Only llama files written before the key was common may leave RoPE's base out.
        let rope_base = match (architecture, md.optional_float(&key("rope.freq_base"))?) {
            (_, Some(b)) => b,
            (Architecture::Llama, None) => 10_000.0,
            (_, None) => return Err(invalid(&format!("metadata {} is missing", key("rope.freq_base")))),
        };
        let sliding_window = match architecture {
            Architecture::Gemma3 => Some(SlidingWindow {
                size: md.int(&key("attention.sliding_window"))?,
                pattern: md.optional_int(&key("attention.sliding_window_pattern"))?.unwrap_or(GEMMA3_PATTERN),
                rope_base: md.optional_float(&key("rope.freq_base_swa"))?.unwrap_or(GEMMA3_LOCAL_ROPE_BASE),
            }),
            _ => None,
        };
        let cfg = Self {
            architecture,
            layers: md.int(&key("block_count"))?,
            heads,
            kv_heads: md.optional_int(&key("attention.head_count_kv"))?.unwrap_or(heads),
            head_dim,
            embedding,
            ffn: md.int(&key("feed_forward_length"))?,
            vocab,
            context: md.int(&key("context_length"))?,
            rope_base,
            // Required: Gemma and Qwen use 1e-6, llama 1e-5, and a wrong guess moves every norm.
            rms_eps: md.float(&key("attention.layer_norm_rms_epsilon"))?,
            sliding_window,
            attn_softcap: md.optional_float(&key("attn_logit_softcapping"))?,
            final_softcap: md.optional_float(&key("final_logit_softcapping"))?,
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
        in_range("head_dim", self.head_dim, 1024)?;
        in_range("ffn", self.ffn, 262_144)?;
        in_range("vocab", self.vocab, 1 << 20)?;
        in_range("context", self.context, 1 << 20)?;
        if !self.heads.is_multiple_of(self.kv_heads) {
            return Err(invalid(&format!("{} heads cannot share {} KV heads evenly", self.heads, self.kv_heads)));
        }
        if !self.head_dim.is_multiple_of(2) {
            return Err(invalid(&format!("head_dim {} is odd; RoPE rotates pairs", self.head_dim)));
        }
        if self.q_dim() > 65_536 {
            return Err(invalid(&format!("{} heads × head_dim {} is more than 65536", self.heads, self.head_dim)));
        }
        if !(self.rope_base.is_finite() && self.rope_base > 1.0 && self.rms_eps.is_finite() && self.rms_eps > 0.0) {
            return Err(invalid("rope base or RMS epsilon is not a positive finite number"));
        }
        if let Some(w) = self.sliding_window {
            in_range("attention.sliding_window", w.size, 1 << 20)?;
            in_range("attention.sliding_window_pattern", w.pattern, 512)?;
            if !(w.rope_base.is_finite() && w.rope_base > 1.0) {
                return Err(invalid("the local layers' rope base is not a finite number above 1"));
            }
        }
        for (name, cap) in
            [("attn_logit_softcapping", self.attn_softcap), ("final_logit_softcapping", self.final_softcap)]
        {
            if cap.is_some_and(|c| !(c.is_finite() && c > 0.0)) {
                return Err(invalid(&format!("{name} is not a positive finite number")));
            }
        }
        Ok(())
    }
}

/// Typed reads of the metadata, each naming its key when the value is wrong.
struct Metadata<'a>(&'a HashMap<String, Value>);

impl Metadata<'_> {
    fn int(&self, key: &str) -> Result<usize> {
        self.optional_int(key)?.ok_or_else(|| invalid(&format!("metadata {key} is missing")))
    }

    fn optional_int(&self, key: &str) -> Result<Option<usize>> {
        let Some(v) = self.0.get(key) else { return Ok(None) };
        let n = v.to_u64().or_else(|_| v.to_u32().map(u64::from)).or_else(|_| v.to_i32().map(|i| i.max(0) as u64));
        n.map(|n| Some(n as usize)).map_err(|_| invalid(&format!("metadata {key} is not an integer")))
    }

    fn float(&self, key: &str) -> Result<f32> {
        self.optional_float(key)?.ok_or_else(|| invalid(&format!("metadata {key} is missing")))
    }

    fn optional_float(&self, key: &str) -> Result<Option<f32>> {
        let Some(v) = self.0.get(key) else { return Ok(None) };
        v.to_f32().map(Some).map_err(|_| invalid(&format!("metadata {key} is not a float")))
    }
}

fn invalid(m: &str) -> EngineError {
    EngineError::InvalidModel(m.to_string())
}

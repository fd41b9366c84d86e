//! A slow, plain-f32 llama built from candle's own operations: every weight dequantised to
//! f32, activations in f32, the whole sequence at once with a causal mask and no cache.
//! It is written independently of `arch/` so that it checks the engine rather than
//! repeating it; the CLI's `reference` command and the real-model tests measure the
//! engine's logit error against it.

use crate::arch::ROPE_FACTORS;
use crate::error::Result;
use crate::gguf::config::{Architecture, Config};
use crate::gguf::read_gguf;
use candle_core::{DType, Device, Tensor};
use candle_nn::ops::{rms_norm, softmax_last_dim};
use candle_nn::rotary_emb::rope_i;
use candle_transformers::utils::repeat_kv;

struct Layer {
    attn_norm: Tensor,
    wq: Tensor,
    wk: Tensor,
    wv: Tensor,
    wo: Tensor,
    ffn_norm: Tensor,
    gate: Tensor,
    up: Tensor,
    down: Tensor,
}

pub struct Reference {
    config: Config,
    embed: Tensor,
    layers: Vec<Layer>,
    out_norm: Tensor,
    lm_head: Tensor,
    /// Llama 3's `rope_freqs.weight`, when the file has it.
    rope_factors: Option<Vec<f32>>,
}

impl Reference {
    pub fn from_gguf_bytes(bytes: &[u8]) -> Result<Self> {
        let content = read_gguf(&mut std::io::Cursor::new(bytes))?;
        let config = Config::from_gguf(&content)?;
        if config.architecture != Architecture::Llama {
            return Err(crate::EngineError::InvalidModel(format!(
                "the f32 reference is a llama; this file is {} (tests/architectures.rs checks the others \
                 against candle-transformers)",
                config.architecture.name()
            )));
        }
        let dev = Device::Cpu;
        let load = |name: &str| -> Result<Tensor> {
            let mut cursor = std::io::Cursor::new(bytes);
            Ok(content.tensor(&mut cursor, name, &dev)?.dequantize(&dev)?)
        };
        let layers = (0..config.layers)
            .map(|i| {
                let p = |s: &str| load(&format!("blk.{i}.{s}.weight"));
                Ok(Layer {
                    attn_norm: p("attn_norm")?,
                    wq: p("attn_q")?,
                    wk: p("attn_k")?,
                    wv: p("attn_v")?,
                    wo: p("attn_output")?,
                    ffn_norm: p("ffn_norm")?,
                    gate: p("ffn_gate")?,
                    up: p("ffn_up")?,
                    down: p("ffn_down")?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let embed = load("token_embd.weight")?;
        let lm_head = match content.tensor_infos.contains_key("output.weight") {
            true => load("output.weight")?,
            false => embed.clone(),
        };
        let rope_factors = match content.tensor_infos.contains_key(ROPE_FACTORS) {
            true => Some(load(ROPE_FACTORS)?.to_vec1::<f32>()?),
            false => None,
        };
        Ok(Self { embed, layers, out_norm: load("output_norm.weight")?, lm_head, rope_factors, config })
    }

    /// Next-token logits after `tokens`.
    pub fn logits(&self, tokens: &[u32]) -> Result<Vec<f32>> {
        let c = &self.config;
        let x = self.run(tokens, |_, _, _| Ok(()))?;
        let last = x.narrow(0, tokens.len() - 1, 1)?;
        let out = rms_norm(&last, &self.out_norm, c.rms_eps)?.matmul(&self.lm_head.t()?)?;
        Ok(out.squeeze(0)?.to_vec1::<f32>()?)
    }

    /// Layer `layer`'s (0-based) attention weights after `tokens`, per query head: row i is
    /// position i's softmax over all positions, zero above the diagonal.
    pub fn attention(&self, tokens: &[u32], layer: usize) -> Result<Vec<Vec<Vec<f32>>>> {
        let mut weights = Vec::new();
        self.run(tokens, |li, att, _| {
            if li == layer {
                weights = att.squeeze(0)?.to_vec3::<f32>()?;
            }
            Ok(())
        })?;
        Ok(weights)
    }

    /// The logit lens at `positions` (0-based) of `tokens`: per position and layer, that
    /// position's hidden state through the final norm and the output head (the reference of
    /// the depth check, tests/depth.rs), `[position][layer]`.
    pub fn lens_logits(&self, tokens: &[u32], positions: std::ops::Range<usize>) -> Result<Vec<Vec<Vec<f32>>>> {
        let c = &self.config;
        let mut out = vec![Vec::new(); positions.len()];
        self.run(tokens, |_, _, x| {
            let rows = x.narrow(0, positions.start, positions.len())?;
            let logits = rms_norm(&rows, &self.out_norm, c.rms_eps)?.matmul(&self.lm_head.t()?)?;
            for (p, row) in out.iter_mut().zip(logits.to_vec2::<f32>()?) {
                p.push(row);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The hidden states after every layer; `on_layer(layer, softmax, x)` sees each layer's
    /// (1, heads, t, t) attention weights and its output (t, embedding).
    fn run(
        &self,
        tokens: &[u32],
        mut on_layer: impl FnMut(usize, &Tensor, &Tensor) -> candle_core::Result<()>,
    ) -> candle_core::Result<Tensor> {
        let c = &self.config;
        let dev = Device::Cpu;
        let t = tokens.len();
        let (hd, nh, nkv) = (c.head_dim, c.heads, c.kv_heads);
        let ids = Tensor::new(tokens, &dev)?;
        let mut x = self.embed.index_select(&ids, 0)?; // (t, e)
        // Llama 3's RoPE factors divide each pair's frequency, as llama.cpp's `freq_factors` do.
        let inv: Vec<f32> = (0..hd / 2)
            .map(|i| 1.0 / c.rope_base.powf(2.0 * i as f32 / hd as f32) / self.rope_factors.as_ref().map_or(1.0, |f| f[i]))
            .collect();
        let inv = Tensor::new(inv, &dev)?.reshape((1, hd / 2))?;
        let pos = Tensor::arange(0u32, t as u32, &dev)?.to_dtype(DType::F32)?.reshape((t, 1))?;
        let angles = pos.matmul(&inv)?;
        let (cos, sin) = (angles.cos()?, angles.sin()?);
        let mask: Vec<f32> =
            (0..t).flat_map(|i| (0..t).map(move |j| if j > i { f32::NEG_INFINITY } else { 0.0 })).collect();
        let mask = Tensor::from_vec(mask, (t, t), &dev)?;
        let linear = |x: &Tensor, w: &Tensor| x.matmul(&w.t()?);
        for (li, l) in self.layers.iter().enumerate() {
            let h = rms_norm(&x, &l.attn_norm, c.rms_eps)?;
            let heads = |y: Tensor, n: usize| y.reshape((1, t, n, hd))?.transpose(1, 2)?.contiguous();
            let q = rope_i(&heads(linear(&h, &l.wq)?, nh)?, &cos, &sin)?;
            let k = rope_i(&heads(linear(&h, &l.wk)?, nkv)?, &cos, &sin)?;
            let v = heads(linear(&h, &l.wv)?, nkv)?;
            let (k, v) = (repeat_kv(k, nh / nkv)?.contiguous()?, repeat_kv(v, nh / nkv)?.contiguous()?);
            let scores = (q.matmul(&k.t()?)? / (hd as f64).sqrt())?.broadcast_add(&mask)?;
            let weights = softmax_last_dim(&scores)?;
            let att = weights.matmul(&v)?; // (1, nh, t, hd)
            let att = att.transpose(1, 2)?.reshape((t, nh * hd))?;
            x = (x + linear(&att, &l.wo)?)?;
            let h = rms_norm(&x, &l.ffn_norm, c.rms_eps)?;
            let gated = (candle_nn::ops::silu(&linear(&h, &l.gate)?)? * linear(&h, &l.up)?)?;
            x = (x + linear(&gated, &l.down)?)?;
            on_layer(li, &weights, &x)?;
        }
        Ok(x)
    }
}

/// Prompts for the accuracy check: questions, instructions, code, numbers, other scripts.
pub const CHECK_PROMPTS: &[&str] = &[
    "What is the capital of France?",
    "Write a haiku about the sea.",
    "What is 17 + 25?",
    "Explain what a KV cache is in one sentence.",
    "List three primary colors.",
    "Translate 'good morning' into Spanish.",
    "def fibonacci(n):",
    "Is 91 a prime number? Answer yes or no.",
    "Give me a synonym for 'happy'.",
    "How many legs does a spider have?",
    "Summarise the plot of Romeo and Juliet in two sentences.",
    "What does HTTP stand for?",
    "Name a mammal that can fly.",
    "Which is larger, 48 or 84?",
    "Write the number one thousand two hundred in digits.",
    "¿Cuál es la capital de España?",
    "What color is the sky on a clear day?",
    "Continue the sequence: 2, 4, 8, 16,",
    "Tell me a fun fact about octopuses.",
    "What is the boiling point of water in Celsius?",
    "Convert 3 meters to centimeters.",
    "Who wrote 'Pride and Prejudice'?",
];

/// How far the engine's logits are from the plain-f32 reference, over the reference's
/// `top` most likely next tokens after each prompt, and over the whole vocabulary.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LogitError {
    pub prompts: usize,
    pub top: usize,
    pub mean_abs: f64,
    pub max_abs: f64,
    /// Mean |Δ| over every logit of the vocabulary.
    pub mean_abs_vocab: f64,
    /// Prompts whose greedy next token differs between the two.
    pub argmax_disagreements: usize,
}

pub fn logit_error(model: &crate::Model, reference: &Reference, prompts: &[&str], top: usize) -> Result<LogitError> {
    use crate::arch::Logits;
    use crate::kv_cache::KvCache;
    let (mut sum, mut max, mut count, mut disagree) = (0.0f64, 0.0f64, 0usize, 0usize);
    let (mut sum_vocab, mut count_vocab) = (0.0f64, 0usize);
    let argmax = |v: &[f32]| (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap_or(0);
    for p in prompts {
        let ids = crate::chat_tokens(&model.tokenizer, &[crate::Message::user(p)], crate::SystemPrompt::Default)?;
        let ours = model.forward(&ids, 0, &mut KvCache::new(&model.config), model.config.layers, Logits::Last)?;
        let want = reference.logits(&ids)?;
        let mut order: Vec<usize> = (0..want.len()).collect();
        order.sort_by(|&a, &b| want[b].total_cmp(&want[a]));
        for &i in &order[..top.min(order.len())] {
            let d = (ours[i] - want[i]).abs() as f64;
            sum += d;
            max = max.max(d);
            count += 1;
        }
        disagree += usize::from(argmax(&ours) != argmax(&want));
        sum_vocab += ours.iter().zip(&want).map(|(a, b)| (a - b).abs() as f64).sum::<f64>();
        count_vocab += want.len();
    }
    Ok(LogitError {
        prompts: prompts.len(),
        top,
        mean_abs: if count > 0 { sum / count as f64 } else { 0.0 },
        max_abs: max,
        mean_abs_vocab: if count_vocab > 0 { sum_vocab / count_vocab as f64 } else { 0.0 },
        argmax_disagreements: disagree,
    })
}

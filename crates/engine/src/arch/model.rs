//! The llama forward pass, written out so that every step the lessons need is reachable:
//! logits for every position of a chunk (draft verification), only the first L layers
//! (early-exit drafts), an explicit KV cache that can be truncated, and RoPE computed per
//! position for the whole trained context.

use super::hooks::Probe;
use super::layers::{add_in_place, rms_norm, rope, Attention, Logits, MatMul, Rotation};
use crate::error::{EngineError, Result};
use crate::gguf::config::Config;
use crate::gguf::{read_gguf, TensorReader};
use crate::kv_cache::KvCache;
use crate::memory;
use crate::parallel;
use crate::quant::QMatrix;
use crate::tokenizer::Tokenizer;
use std::io::{Cursor, Read, Seek, SeekFrom};

struct Layer {
    attn_norm: Vec<f32>,
    wq: QMatrix,
    wk: QMatrix,
    wv: QMatrix,
    wo: QMatrix,
    ffn_norm: Vec<f32>,
    gate: QMatrix,
    up: QMatrix,
    down: QMatrix,
}

pub struct Model {
    pub config: Config,
    pub tokenizer: Tokenizer,
    embed: QMatrix,
    layers: Vec<Layer>,
    out_norm: Vec<f32>,
    /// `None` when the LM head is tied to the token embedding, as in SmolLM2.
    lm_head: Option<QMatrix>,
    /// Per rotary pair i: base^(-2i / head_dim).
    inv_freq: Vec<f64>,
}

impl Model {
    /// Loads a llama GGUF from memory (wasm has no filesystem).
    pub fn from_gguf_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_gguf_reader(&mut Cursor::new(bytes))
    }

    /// Loads a llama GGUF from any seekable source, one tensor at a time (the worker reads
    /// from the file's JavaScript buffer, so the whole file never enters wasm memory).
    /// Weights keep their quantised form; only norms become f32.
    pub fn from_gguf_reader<R: Read + Seek>(source: &mut R) -> Result<Self> {
        let content = read_gguf(source)?;
        let config = Config::from_gguf(&content)?;
        let tokenizer = Tokenizer::from_gguf(&content, config.vocab)?;
        let c = &config;
        let size = source
            .seek(SeekFrom::End(0))
            .map_err(|e| EngineError::InvalidModel(format!("could not read the file: {e}")))?;
        let mut t = TensorReader { content: &content, source, size, buf: Vec::new() };
        let layers = (0..c.layers)
            .map(|i| {
                let p = |s: &str| format!("blk.{i}.{s}.weight");
                Ok(Layer {
                    attn_norm: t.vector(&p("attn_norm"), c.embedding)?,
                    wq: t.matrix(&p("attn_q"), c.embedding, c.embedding)?,
                    wk: t.matrix(&p("attn_k"), c.kv_dim(), c.embedding)?,
                    wv: t.matrix(&p("attn_v"), c.kv_dim(), c.embedding)?,
                    wo: t.matrix(&p("attn_output"), c.embedding, c.embedding)?,
                    ffn_norm: t.vector(&p("ffn_norm"), c.embedding)?,
                    gate: t.matrix(&p("ffn_gate"), c.ffn, c.embedding)?,
                    up: t.matrix(&p("ffn_up"), c.ffn, c.embedding)?,
                    down: t.matrix(&p("ffn_down"), c.embedding, c.ffn)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let lm_head = match content.tensor_infos.contains_key("output.weight") {
            true => Some(t.matrix("output.weight", c.vocab, c.embedding)?),
            false => None,
        };
        let half = c.head_dim / 2;
        let inv_freq = (0..half).map(|i| (c.rope_base as f64).powf(-((2 * i) as f64) / c.head_dim as f64)).collect();
        Ok(Self {
            embed: t.matrix("token_embd.weight", c.vocab, c.embedding)?,
            out_norm: t.vector("output_norm.weight", c.embedding)?,
            layers,
            lm_head,
            inv_freq,
            tokenizer,
            config,
        })
    }

    /// Bytes held by the weights in memory.
    pub fn weight_bytes(&self) -> usize {
        let l: usize = self
            .layers
            .iter()
            .map(|l| {
                [&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down].iter().map(|m| m.bytes()).sum::<usize>()
                    + 4 * (l.attn_norm.len() + l.ffn_norm.len())
            })
            .sum();
        l + self.embed.bytes() + self.lm_head.as_ref().map_or(0, |m| m.bytes()) + 4 * self.out_norm.len()
    }

    /// Runs `tokens` at positions `start..start + n` through the first `layers` layers,
    /// appending their keys and values to `cache` (each layer is first cut back to
    /// `start`). Returns `vocab` logits per requested position, row after row.
    pub fn forward(
        &self,
        tokens: &[u32],
        start: usize,
        cache: &mut KvCache,
        layers: usize,
        logits: Logits,
    ) -> Result<Vec<f32>> {
        self.forward_probed(tokens, start, cache, layers, logits, &mut Probe::default())
    }

    /// `forward`, copying out what `probe` asks for: one layer's attention weights, and the
    /// last position's hidden state after every layer (for the logit lens, which replaces
    /// what an earlier pass left there). Each hook is checked once per layer.
    pub fn forward_probed(
        &self,
        tokens: &[u32],
        start: usize,
        cache: &mut KvCache,
        layers: usize,
        logits: Logits,
        probe: &mut Probe,
    ) -> Result<Vec<f32>> {
        let c = &self.config;
        let n = tokens.len();
        if n == 0 {
            return Err(EngineError::InvalidState("forward needs at least one token".into()));
        }
        if layers == 0 || layers > c.layers {
            return Err(EngineError::InvalidState(format!("layers must be 1..={}, got {layers}", c.layers)));
        }
        if start + n > c.context {
            return Err(EngineError::InvalidPrompt(format!(
                "{} tokens do not fit the model's {}-token context",
                start + n,
                c.context
            )));
        }
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= c.vocab) {
            return Err(EngineError::InvalidState(format!("token id {bad} is outside the vocabulary")));
        }
        if let Some(i) = (0..layers).find(|&i| cache.layers[i].len < start) {
            return Err(EngineError::InvalidState(format!(
                "layer {i} caches {} positions, cannot continue at {start}",
                cache.layers[i].len
            )));
        }
        let (e, kvd) = (c.embedding, c.kv_dim());
        let mut a = Activations::new(self, tokens)?;
        if let Some(hidden) = probe.hidden.as_mut() {
            hidden.clear();
        }
        let angles: Vec<Rotation> = (start..start + n).map(|pos| self.rotation(pos)).collect();
        for (li, layer) in self.layers[..layers].iter().enumerate() {
            a.qkv(self, layer, QMatrix::matmul);
            for (i, r) in angles.iter().enumerate() {
                rope(&mut a.q[i * e..(i + 1) * e], r);
                rope(&mut a.k[i * kvd..(i + 1) * kvd], r);
            }
            let lc = &mut cache.layers[li];
            lc.write(start, &a.k, &a.v, kvd)?;
            let attention = Attention { q: &a.q, k: &lc.k, v: &lc.v, start, c, scale: a.scale };
            // The captured layer's attention runs on one thread, in order, for the capture.
            match probe.attention.as_mut().filter(|p| p.layer == li) {
                Some(capture) => attention.run_probed(&mut a.attn, |i, h, w| capture.record(start + i, h, w)),
                None => attention.run(&mut a.attn),
            }
            a.output_and_mlp(self, layer, QMatrix::matmul);
            if let Some(hidden) = probe.hidden.as_mut() {
                hidden.push(a.x[(n - 1) * e..].to_vec());
            }
        }
        let rows = match logits {
            Logits::All => 0..n,
            Logits::Last => n - 1..n,
        };
        self.head_with(&a.x[rows.start * e..rows.end * e], QMatrix::matmul)
    }

    /// One decode step of several independent sequences: `tokens[s]` is appended to
    /// `caches[s]`, at that cache's own length. The matmuls take the sequences as the rows
    /// of one batch (`QMatrix::matmul_batch`: per row, the arithmetic of a one-token pass,
    /// so every sequence's logits are bit-identical to `forward` of its token alone);
    /// attention runs per sequence over its own cache. Returns `vocab` logits per sequence.
    pub fn forward_batch(&self, tokens: &[u32], caches: &mut [&mut KvCache]) -> Result<Vec<f32>> {
        let c = &self.config;
        if tokens.is_empty() || tokens.len() != caches.len() {
            return Err(EngineError::InvalidState(format!(
                "a batch needs one cache per token and at least one token, got {} tokens and {} caches",
                tokens.len(),
                caches.len()
            )));
        }
        if let Some(&bad) = tokens.iter().find(|&&t| t as usize >= c.vocab) {
            return Err(EngineError::InvalidState(format!("token id {bad} is outside the vocabulary")));
        }
        let starts: Vec<usize> = caches.iter().map(|cache| cache.len()).collect();
        if let Some(&full) = starts.iter().find(|&&s| s >= c.context) {
            return Err(EngineError::InvalidPrompt(format!(
                "{} tokens do not fit the model's {}-token context",
                full + 1,
                c.context
            )));
        }
        let (e, kvd) = (c.embedding, c.kv_dim());
        let mut a = Activations::new(self, tokens)?;
        let angles: Vec<Rotation> = starts.iter().map(|&pos| self.rotation(pos)).collect();
        for (li, layer) in self.layers.iter().enumerate() {
            a.qkv(self, layer, QMatrix::matmul_batch);
            for (i, (cache, &start)) in caches.iter_mut().zip(&starts).enumerate() {
                let (q, k, v) =
                    (&mut a.q[i * e..(i + 1) * e], &mut a.k[i * kvd..(i + 1) * kvd], &a.v[i * kvd..(i + 1) * kvd]);
                rope(q, &angles[i]);
                rope(k, &angles[i]);
                let lc = &mut cache.layers[li];
                lc.write(start, k, v, kvd)?;
                let attention = Attention { q, k: &lc.k, v: &lc.v, start, c, scale: a.scale };
                attention.run(&mut a.attn[i * e..(i + 1) * e]);
            }
            a.output_and_mlp(self, layer, QMatrix::matmul_batch);
        }
        self.head_with(&a.x, QMatrix::matmul_batch)
    }

    /// The final norm and the output head: `vocab` logits for each row of hidden states.
    /// The logit lens applies it to every layer's output.
    pub fn head(&self, x: &[f32]) -> Result<Vec<f32>> {
        self.head_with(x, QMatrix::matmul)
    }

    fn head_with(&self, x: &[f32], matmul: MatMul) -> Result<Vec<f32>> {
        let c = &self.config;
        let m = x.len() / c.embedding;
        let mut normed = memory::zeros(m * c.embedding, "the forward pass's activations")?;
        rms_norm(x, &self.out_norm, c.rms_eps, &mut normed);
        let mut out = memory::zeros(m * c.vocab, "the logits")?;
        matmul(self.lm_head.as_ref().unwrap_or(&self.embed), &normed, m, &mut out);
        Ok(out)
    }

    /// The (sin, cos) of each pair's rotation at `pos`: pos · base^(-2i/d) for pair i,
    /// computed in f64 once per position and pass, then used by every head of every layer.
    fn rotation(&self, pos: usize) -> Rotation {
        self.inv_freq
            .iter()
            .map(|&f| {
                let (sin, cos) = (pos as f64 * f).sin_cos();
                (sin as f32, cos as f32)
            })
            .collect()
    }
}

/// The activations of one pass over `n` rows (tokens of one sequence, or one token of each
/// sequence in a batch), and the steps of a layer that treat every row alike.
struct Activations {
    n: usize,
    /// The residual stream, `n × embedding`.
    x: Vec<f32>,
    h: Vec<f32>,
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    attn: Vec<f32>,
    proj: Vec<f32>,
    g: Vec<f32>,
    u: Vec<f32>,
    /// 1 / √head_dim, the attention scores' scale.
    scale: f32,
}

impl Activations {
    /// The embeddings of `tokens` (already checked against the vocabulary), and room for the rest.
    fn new(model: &Model, tokens: &[u32]) -> Result<Self> {
        let c = &model.config;
        let (n, e, kvd) = (tokens.len(), c.embedding, c.kv_dim());
        let scratch = |len| memory::zeros::<f32>(len, "the forward pass's activations");
        let mut x = scratch(n * e)?;
        for (i, &t) in tokens.iter().enumerate() {
            model.embed.row_into(t as usize, &mut x[i * e..(i + 1) * e]);
        }
        Ok(Self {
            n,
            x,
            h: scratch(n * e)?,
            q: scratch(n * e)?,
            k: scratch(n * kvd)?,
            v: scratch(n * kvd)?,
            attn: scratch(n * e)?,
            proj: scratch(n * e)?,
            g: scratch(n * c.ffn)?,
            u: scratch(n * c.ffn)?,
            scale: 1.0 / (c.head_dim as f32).sqrt(),
        })
    }

    /// The attention norm, then queries, keys and values (before RoPE).
    fn qkv(&mut self, model: &Model, layer: &Layer, matmul: MatMul) {
        rms_norm(&self.x, &layer.attn_norm, model.config.rms_eps, &mut self.h);
        matmul(&layer.wq, &self.h, self.n, &mut self.q);
        matmul(&layer.wk, &self.h, self.n, &mut self.k);
        matmul(&layer.wv, &self.h, self.n, &mut self.v);
    }

    /// After attention has filled `attn`: the output projection and the SwiGLU MLP, each
    /// added to the residual stream.
    fn output_and_mlp(&mut self, model: &Model, layer: &Layer, matmul: MatMul) {
        matmul(&layer.wo, &self.attn, self.n, &mut self.proj);
        add_in_place(&mut self.x, &self.proj);
        rms_norm(&self.x, &layer.ffn_norm, model.config.rms_eps, &mut self.h);
        matmul(&layer.gate, &self.h, self.n, &mut self.g);
        matmul(&layer.up, &self.h, self.n, &mut self.u);
        // SwiGLU, element by element, split over threads (an `exp` costs about 20 multiply-adds).
        let u = &self.u;
        parallel::items(&mut self.g, u.len(), u.len() * 20, |range, g| {
            for (gi, ui) in g.iter_mut().zip(&u[range]) {
                *gi = *gi / (1.0 + (-*gi).exp()) * ui;
            }
        });
        matmul(&layer.down, &self.g, self.n, &mut self.proj);
        add_in_place(&mut self.x, &self.proj);
    }
}

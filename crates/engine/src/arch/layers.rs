//! What every architecture's forward pass shares: a layer's weights (`Layer`, with the
//! pieces only some architectures have), the LM head's choice of positions, RMS norm,
//! rotary embeddings in both layouts, the MLP's gates, the residual add, causal
//! grouped-query attention (optionally windowed and soft-capped), and reading a layer's
//! weights by name.

use crate::error::Result;
use crate::gguf::config::Config;
use crate::gguf::TensorReader;
use crate::memory;
use crate::parallel;
use crate::quant::simd::{dots, weighted_sum};
use crate::quant::QMatrix;
use candle_core::quantized::GgmlDType;
use std::io::{Read, Seek};

/// One transformer block's weights. Every architecture has the llama core; the options
/// are what the others add, and the pass applies each one that is present.
pub(crate) struct Layer {
    pub(crate) attn_norm: Vec<f32>,
    pub(crate) wq: QMatrix,
    pub(crate) wk: QMatrix,
    pub(crate) wv: QMatrix,
    pub(crate) wo: QMatrix,
    /// Qwen2: biases added to Q, K and V.
    pub(crate) qkv_bias: Option<[Vec<f32>; 3]>,
    /// Qwen3, Gemma 3: an RMSNorm of each query head and each key head (weights of
    /// head_dim), before RoPE.
    pub(crate) qk_norm: Option<[Vec<f32>; 2]>,
    /// Gemma 3: RMSNorms of attention's output and of the MLP's, before each joins the
    /// residual stream.
    pub(crate) post_norms: Option<[Vec<f32>; 2]>,
    pub(crate) ffn_norm: Vec<f32>,
    pub(crate) gate: QMatrix,
    pub(crate) up: QMatrix,
    pub(crate) down: QMatrix,
}

impl Layer {
    /// The layer's seven weight matrices.
    pub(crate) fn matrices(&self) -> [&QMatrix; 7] {
        [&self.wq, &self.wk, &self.wv, &self.wo, &self.gate, &self.up, &self.down]
    }

    /// Bytes the layer's weights hold in memory.
    pub(crate) fn bytes(&self) -> usize {
        let matrices: usize = self.matrices().iter().map(|m| m.bytes()).sum();
        let vectors = [&self.attn_norm, &self.ffn_norm]
            .into_iter()
            .chain(self.qkv_bias.iter().flatten())
            .chain(self.qk_norm.iter().flatten())
            .chain(self.post_norms.iter().flatten());
        matrices + vectors.map(|v| 4 * v.len()).sum::<usize>()
    }
}

/// How an architecture lays out the pairs RoPE rotates in each head.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum RopeStyle {
    /// Adjacent pairs (x[2i], x[2i+1]): llama, whose GGUF Q and K rows are permuted for it.
    Interleaved,
    /// Pair i is (x[i], x[i + d/2]): GPT-NeoX's layout, used by Qwen and Gemma.
    Halves,
}

/// The MLP's gate: `act(gate) · up`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Activation {
    /// SwiGLU (llama, Qwen): x · sigmoid(x).
    Silu,
    /// GeGLU with GELU's tanh approximation (Gemma).
    GeluTanh,
}

/// What an architecture changes in the shared pass, beside the pieces its `Layer`s hold.
pub(crate) struct Recipe {
    pub(crate) rope: RopeStyle,
    pub(crate) activation: Activation,
    /// Gemma multiplies the token embeddings by √embedding.
    pub(crate) scale_embeddings: bool,
}

/// Which positions of a chunk get logits. The LM head is a fifth of the model's work,
/// so prefill asks only for the last position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Logits {
    Last,
    All,
}

/// Each pair's (sin, cos) at one position (`Model::rotation`).
pub(crate) type Rotation = Vec<(f32, f32)>;

/// Rotates each pair of every head by its angle in `r`, the pairs laid out as `style` says.
pub(crate) fn rope(x: &mut [f32], r: &[(f32, f32)], style: RopeStyle) {
    let half = r.len();
    for head in x.chunks_exact_mut(2 * half) {
        for (i, &(sin, cos)) in r.iter().enumerate() {
            let (ia, ib) = match style {
                RopeStyle::Interleaved => (2 * i, 2 * i + 1),
                RopeStyle::Halves => (i, i + half),
            };
            let (a, b) = (head[ia], head[ib]);
            head[ia] = a * cos - b * sin;
            head[ib] = a * sin + b * cos;
        }
    }
}

/// `g = act(g) · u` element by element, split over threads (an `exp` or a `tanh` costs
/// about 20 multiply-adds).
pub(crate) fn gated(g: &mut [f32], u: &[f32], act: Activation) {
    parallel::items(g, u.len(), u.len() * 20, |range, g| {
        for (gi, ui) in g.iter_mut().zip(&u[range]) {
            let x = *gi;
            *gi = match act {
                Activation::Silu => x / (1.0 + (-x).exp()),
                // √(2/π) = 0.797 884 56
                Activation::GeluTanh => 0.5 * x * (1.0 + (0.797_884_6 * (x + 0.044_715 * x * x * x)).tanh()),
            } * ui;
        }
    });
}

/// `cap · tanh(x / cap)` on each value: Gemma's soft-capping of scores or logits.
pub(crate) fn soft_cap(x: &mut [f32], cap: f32) {
    for v in x {
        *v = cap * (*v / cap).tanh();
    }
}

/// A matrix product over `n` activation rows: `QMatrix::matmul` for the tokens of one
/// sequence, `QMatrix::matmul_batch` for one token of each of several sequences.
pub(crate) type MatMul = fn(&QMatrix, &[f32], usize, &mut [f32]);

/// `out[row] = x[row] / rms(x[row]) * w` for each row of `w.len()` values of `x` (a
/// position, or one head of a position).
pub(crate) fn rms_norm(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    out.copy_from_slice(x);
    rms_norm_in_place(out, w, eps);
}

pub(crate) fn rms_norm_in_place(x: &mut [f32], w: &[f32], eps: f32) {
    let e = w.len();
    for xr in x.chunks_exact_mut(e) {
        let ms = xr.iter().map(|v| v * v).sum::<f32>() / e as f32;
        let inv = 1.0 / (ms + eps).sqrt();
        for (xv, &wv) in xr.iter_mut().zip(w) {
            *xv = *xv * inv * wv;
        }
    }
}

/// `x[row] += b` for each row of `b.len()` values.
pub(crate) fn add_bias(x: &mut [f32], b: &[f32]) {
    for row in x.chunks_exact_mut(b.len()) {
        add_in_place(row, b);
    }
}

pub(crate) fn add_in_place(x: &mut [f32], y: &[f32]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

/// One layer's attention: the queries of `n = q.len() / q_dim` new positions starting
/// at `start`; `k` and `v` hold the cached positions from `held_from` on, the new ones
/// included. A local layer (`window`) sees only the last `window` positions, itself included
/// (its cache holds at least those: `KvCache`).
#[derive(Clone, Copy)]
pub(crate) struct Attention<'a> {
    pub(crate) q: &'a [f32],
    pub(crate) k: &'a [f32],
    pub(crate) v: &'a [f32],
    pub(crate) start: usize,
    /// The position of `k`'s and `v`'s first entry.
    pub(crate) held_from: usize,
    pub(crate) c: &'a Config,
    pub(crate) scale: f32,
    pub(crate) window: Option<usize>,
}

impl Attention<'_> {
    /// Causal grouped-query attention into `out`. The (position, head) pairs are split
    /// over `parallel::threads()`: each writes its own slice of `out`.
    pub(crate) fn run(&self, out: &mut [f32]) {
        let (c, hd) = (self.c, self.c.head_dim);
        let n = self.q.len() / c.q_dim();
        let work = n * c.heads * (self.start + n) * hd * 2;
        parallel::items(out, n * c.heads, work, |pairs, out| {
            let mut scores = vec![0f32; self.start + n];
            for (j, oh) in pairs.zip(out.chunks_exact_mut(hd)) {
                self.attend(j / c.heads, j % c.heads, &mut scores, oh);
            }
        })
    }

    /// `run` on this thread, showing each softmax row to `on_row(i, head, weights)`: new
    /// position i's weights over positions `0..=start + i`.
    pub(crate) fn run_probed(&self, out: &mut [f32], mut on_row: impl FnMut(usize, usize, &[f32])) {
        let c = self.c;
        let mut scores = vec![0f32; self.start + self.q.len() / c.q_dim()];
        for (j, oh) in out.chunks_exact_mut(c.head_dim).enumerate() {
            let (i, h) = (j / c.heads, j % c.heads);
            self.attend(i, h, &mut scores, oh);
            on_row(i, h, &scores[..self.start + i + 1]);
        }
    }

    /// New position `i`'s query head `h`: its softmax over positions `0..=start + i` (zero
    /// outside a local layer's window), left in `scores`, and the weighted sum of their
    /// values in `oh`.
    #[inline(always)]
    fn attend(&self, i: usize, h: usize, scores: &mut [f32], oh: &mut [f32]) {
        let Attention { q, k, v, start, held_from, c, scale, window } = *self;
        let (qd, kvd, hd) = (c.q_dim(), c.kv_dim(), c.head_dim);
        let kvh = h / (c.heads / c.kv_heads);
        let visible = start + i + 1;
        let first = window.map_or(0, |w| visible.saturating_sub(w));
        let qh = &q[i * qd + h * hd..][..hd];
        scores[..first].fill(0.0);
        let seen = &mut scores[first..visible];
        let at = (first - held_from) * kvd + kvh * hd;
        dots(qh, &k[at..], kvd, seen);
        for s in seen.iter_mut() {
            *s *= scale;
        }
        if let Some(cap) = c.attn_softcap {
            soft_cap(seen, cap);
        }
        let max = seen.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s));
        let mut sum = 0f32;
        for s in seen.iter_mut() {
            *s = (*s - max).exp();
            sum += *s;
        }
        for s in seen.iter_mut() {
            *s /= sum;
        }
        weighted_sum(seen, &v[at..], kvd, oh);
    }
}

/// Reading a layer's weights by name: a matrix keeps its quantised form, a vector (a norm's
/// weights) becomes f32. Here rather than in `gguf`, which reads bytes and knows no block types.
impl<R: Read + Seek> TensorReader<'_, R> {
    pub(crate) fn matrix(&mut self, name: &str, rows: usize, cols: usize) -> Result<QMatrix> {
        let dtype = self.read(name, &[rows, cols])?;
        QMatrix::from_ggml(name, dtype, rows, cols, &self.buf)
    }

    pub(crate) fn vector(&mut self, name: &str, len: usize) -> Result<Vec<f32>> {
        let dtype = self.read(name, &[len])?;
        // F32 as it lies, whatever its length: Llama 3's RoPE factors (head size / 2, so 8 to
        // 64) need not fill the 32-value blocks a matrix row must.
        if dtype == GgmlDType::F32 && self.buf.len() == 4 * len {
            return Ok(self.buf.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect());
        }
        let mut out = memory::zeros(len, name)?;
        QMatrix::from_ggml(name, dtype, 1, len, &self.buf)?.row_into(0, &mut out);
        Ok(out)
    }
}

//! What every architecture's forward pass shares: the LM head's choice of positions,
//! RMS norm, rotary embeddings, the residual add, causal grouped-query attention, and
//! reading a layer's weights by name.

use crate::error::Result;
use crate::gguf::config::Config;
use crate::gguf::TensorReader;
use crate::memory;
use crate::parallel;
use crate::quant::simd::{axpy, dot};
use crate::quant::QMatrix;
use std::io::{Read, Seek};

/// Which positions of a chunk get logits. The LM head is a fifth of the model's work,
/// so prefill asks only for the last position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Logits {
    Last,
    All,
}

/// Each pair's (sin, cos) at one position (`Model::rotation`).
pub(crate) type Rotation = Vec<(f32, f32)>;

/// Rotates each adjacent pair (x[2i], x[2i+1]) of every head by its angle in `r`: GGUF
/// llama weights are permuted for this interleaved form.
pub(crate) fn rope(x: &mut [f32], r: &[(f32, f32)]) {
    for head in x.chunks_exact_mut(2 * r.len()) {
        for (pair, &(sin, cos)) in head.chunks_exact_mut(2).zip(r) {
            let (a, b) = (pair[0], pair[1]);
            pair[0] = a * cos - b * sin;
            pair[1] = a * sin + b * cos;
        }
    }
}

/// A matrix product over `n` activation rows: `QMatrix::matmul` for the tokens of one
/// sequence, `QMatrix::matmul_batch` for one token of each of several sequences.
pub(crate) type MatMul = fn(&QMatrix, &[f32], usize, &mut [f32]);

/// `out[row] = x[row] / rms(x[row]) * w` for each row of `x`.
pub(crate) fn rms_norm(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    let e = w.len();
    for (xr, or) in x.chunks_exact(e).zip(out.chunks_exact_mut(e)) {
        let ms = xr.iter().map(|v| v * v).sum::<f32>() / e as f32;
        let inv = 1.0 / (ms + eps).sqrt();
        for ((o, &xv), &wv) in or.iter_mut().zip(xr).zip(w) {
            *o = xv * inv * wv;
        }
    }
}

pub(crate) fn add_in_place(x: &mut [f32], y: &[f32]) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

/// One layer's attention: the queries of `n = q.len() / embedding` new positions starting
/// at `start`; `k` and `v` hold every cached position, the new ones included.
#[derive(Clone, Copy)]
pub(crate) struct Attention<'a> {
    pub(crate) q: &'a [f32],
    pub(crate) k: &'a [f32],
    pub(crate) v: &'a [f32],
    pub(crate) start: usize,
    pub(crate) c: &'a Config,
    pub(crate) scale: f32,
}

impl Attention<'_> {
    /// Causal grouped-query attention into `out`. The (position, head) pairs are split
    /// over `parallel::threads()`: each writes its own slice of `out`.
    pub(crate) fn run(&self, out: &mut [f32]) {
        let (c, hd) = (self.c, self.c.head_dim);
        let n = self.q.len() / c.embedding;
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
        let mut scores = vec![0f32; self.start + self.q.len() / c.embedding];
        for (j, oh) in out.chunks_exact_mut(c.head_dim).enumerate() {
            let (i, h) = (j / c.heads, j % c.heads);
            self.attend(i, h, &mut scores, oh);
            on_row(i, h, &scores[..self.start + i + 1]);
        }
    }

    /// New position `i`'s query head `h`: its softmax over positions `0..=start + i`, left
    /// in `scores`, and the weighted sum of their values in `oh`.
    #[inline(always)]
    fn attend(&self, i: usize, h: usize, scores: &mut [f32], oh: &mut [f32]) {
        let Attention { q, k, v, start, c, scale } = *self;
        let (e, kvd, hd) = (c.embedding, c.kv_dim(), c.head_dim);
        let kvh = h / (c.heads / c.kv_heads);
        let visible = start + i + 1;
        let qh = &q[i * e + h * hd..][..hd];
        let mut max = f32::NEG_INFINITY;
        for (p, s) in scores[..visible].iter_mut().enumerate() {
            let kp = &k[p * kvd + kvh * hd..][..hd];
            *s = dot(qh, kp) * scale;
            max = max.max(*s);
        }
        let mut sum = 0f32;
        for s in &mut scores[..visible] {
            *s = (*s - max).exp();
            sum += *s;
        }
        for s in &mut scores[..visible] {
            *s /= sum;
        }
        oh.fill(0.0);
        for (p, &w) in scores[..visible].iter().enumerate() {
            axpy(w, &v[p * kvd + kvh * hd..][..hd], oh);
        }
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
        let mut out = memory::zeros(len, name)?;
        QMatrix::from_ggml(name, dtype, 1, len, &self.buf)?.row_into(0, &mut out);
        Ok(out)
    }
}

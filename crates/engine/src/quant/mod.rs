//! Weight matrices as they come in the GGUF (Q4_1, Q8_0, F32/F16) and the one matmul the
//! model uses: f32 activations times quantised weights.
//!
//! Why not candle's `QMatMul`: it quantises the *activations* to 8 bits before the dot
//! product. On this model that moved the first logits by about 0.4 and flipped a greedy
//! answer, and a teaching tool shows probabilities as truth. Here each block of weights is
//! dequantised with exactly ggml's arithmetic (`q * d + m`) and multiplied in f32, so the
//! only difference from a plain-f32 forward is the order of the additions. The weights stay
//! in their 4- or 8-bit form in memory: one copy of the model, no re-quantisation.
//!
//! One file per block family holds how its blocks are read from the file and unpacked
//! (`q4.rs`, `q8.rs`, `float.rs` for F32 and F16); `kernels.rs` holds the matrix
//! kernels, generic over the unpacking; `simd.rs` the 4- and 8-lane vectors they run on.
//! A new block type needs its own file (a `load` from GGUF bytes, a `block` unpacker and
//! the `raw` values with their scale and offset), a variant of `Weights`, and an arm in
//! `QMatrix::from_ggml`, `QMatrix::bytes`, `QMatrix::matvec`, `with_blocks!` and
//! `with_scaled_blocks!`; the quantiser test at the end then checks it against candle.

mod float;
mod kernels;
mod q4;
mod q8;
pub(crate) mod simd;

use crate::error::{EngineError, Result};
use crate::parallel;
use candle_core::quantized::GgmlDType;
#[cfg(target_arch = "x86_64")]
use kernels::matvec_scaled_pairs;
use kernels::{dot_block, matvec_scaled, matvec_scaled_batch, micro, widen, Scaled, BATCH_TILE, TOKEN_TILE};
use simd::F4;

const BLOCK: usize = 32;
/// Weight rows dequantised at once for a matrix-matrix product.
const ROW_TILE: usize = 2;

enum Weights {
    /// Per block of 32: value = d * q + m, q in 0..16, two nibbles per byte (low nibble =
    /// element j, high nibble = element j + 16), as in ggml's `block_q4_1`.
    Q4_1 {
        d: Vec<f32>,
        m: Vec<f32>,
        qs: Vec<u8>,
    },
    /// Per block of 32: value = d * q, q an i8, as in ggml's `block_q8_0`.
    Q8_0 {
        d: Vec<f32>,
        qs: Vec<i8>,
    },
    F32(Vec<f32>),
}

/// Runs `$body` with `$block(r, b)` giving block `b` of row `r` in `$m`'s format. The
/// body is compiled once per format, so the hot loops never branch on it.
macro_rules! with_blocks {
    ($m:expr, |$block:ident| $body:expr) => {{
        let per_row = $m.cols / BLOCK;
        match &$m.w {
            Weights::Q4_1 { d, m, qs } => {
                let $block = |r: usize, b: usize| q4::block(d, m, qs, r * per_row + b);
                $body
            }
            Weights::Q8_0 { d, qs } => {
                let $block = |r: usize, b: usize| q8::block(d, qs, r * per_row + b);
                $body
            }
            Weights::F32(w) => {
                let $block = |r: usize, b: usize| float::block(w, r * per_row + b);
                $body
            }
        }
    }};
}

/// Runs `$body` with `$blocks`, the `Scaled` view of `$m` for the activation rows `$x`,
/// compiled once per format.
macro_rules! with_scaled_blocks {
    ($m:expr, $x:expr, |$blocks:ident| $body:expr) => {{
        let per_row = $m.cols / BLOCK;
        match &$m.w {
            Weights::Q4_1 { d, m, qs } => {
                let xsum: Vec<f32> = $x.chunks_exact(BLOCK).map(|c| c.iter().sum()).collect();
                let $blocks = Scaled {
                    q: |i: usize| q4::raw(qs, i),
                    scale: |i: usize| d[i],
                    offset: |i: usize, b: usize, t: usize| m[i] * xsum[t * per_row + b],
                };
                $body
            }
            Weights::Q8_0 { d, qs } => {
                let $blocks = Scaled {
                    q: |i: usize| q8::raw(qs, i),
                    scale: |i: usize| d[i],
                    offset: |_: usize, _: usize, _: usize| 0.0,
                };
                $body
            }
            Weights::F32(w) => {
                let $blocks = Scaled {
                    q: |i: usize| float::block(w, i),
                    scale: |_: usize| 1.0,
                    offset: |_: usize, _: usize, _: usize| 0.0,
                };
                $body
            }
        }
    }};
}

/// A `rows × cols` row-major weight matrix: `rows` outputs, `cols` inputs.
pub struct QMatrix {
    pub rows: usize,
    pub cols: usize,
    w: Weights,
}

impl QMatrix {
    /// Reads the raw GGUF bytes of one tensor. `name` is only for error messages.
    pub fn from_ggml(name: &str, dtype: GgmlDType, rows: usize, cols: usize, bytes: &[u8]) -> Result<Self> {
        let elems =
            rows.checked_mul(cols).ok_or_else(|| EngineError::InvalidModel(format!("tensor {name} is too large")))?;
        let expected = elems / dtype.block_size() * dtype.type_size();
        // Every llama matrix width is a multiple of 32; the kernels rely on it.
        if !cols.is_multiple_of(BLOCK) {
            return Err(EngineError::InvalidModel(format!(
                "tensor {name} has {cols} columns, not a multiple of the {BLOCK}-element block"
            )));
        }
        if bytes.len() != expected {
            return Err(EngineError::InvalidModel(format!(
                "tensor {name} ({dtype:?}, {rows}×{cols}) needs {expected} bytes, the file has {}",
                bytes.len()
            )));
        }
        let w = match dtype {
            GgmlDType::Q4_1 => q4::load(name, elems, bytes)?,
            GgmlDType::Q8_0 => q8::load(name, elems, bytes)?,
            GgmlDType::F32 => float::load_f32(name, elems, bytes)?,
            GgmlDType::F16 => float::load_f16(name, elems, bytes)?,
            other => {
                return Err(EngineError::InvalidModel(format!(
                    "tensor {name} has type {other:?}; this engine runs F32, F16, Q4_1 and Q8_0"
                )))
            }
        };
        Ok(Self { rows, cols, w })
    }

    /// Bytes this matrix holds in memory.
    pub fn bytes(&self) -> usize {
        match &self.w {
            Weights::Q4_1 { d, m, qs } => (d.len() + m.len()) * 4 + qs.len(),
            Weights::Q8_0 { d, qs } => d.len() * 4 + qs.len(),
            Weights::F32(v) => v.len() * 4,
        }
    }

    /// Writes row `r`, dequantised, into `out` (`cols` values).
    pub fn row_into(&self, r: usize, out: &mut [f32]) {
        with_blocks!(self, |block| {
            for (b, chunk) in out[..self.cols].chunks_exact_mut(BLOCK).enumerate() {
                for (k, v) in block(r, b).iter().enumerate() {
                    v.store(&mut chunk[4 * k..]);
                }
            }
        })
    }

    /// `out[t * rows + r] = Σ_c W[r, c] · x[t * cols + c]` for the `n` activation rows in `x`,
    /// the rows split over `parallel::threads()` (each output value's arithmetic is the same
    /// whichever thread computes it).
    pub fn matmul(&self, x: &[f32], n: usize, out: &mut [f32]) {
        assert_eq!(x.len(), n * self.cols, "matmul: activation shape");
        assert_eq!(out.len(), n * self.rows, "matmul: output shape");
        parallel::columns(out, n, ROW_TILE, n * self.rows * self.cols, |rows, part| self.matmul_rows(x, n, rows, part))
    }

    /// As `matmul`, for the output rows in `rows` only, on this thread: `out` holds `n` rows
    /// of `rows.len()` values.
    pub fn matmul_rows(&self, x: &[f32], n: usize, rows: std::ops::Range<usize>, out: &mut [f32]) {
        assert_eq!(out.len(), n * rows.len(), "matmul: output shape");
        match n {
            1 => self.matvec(x, rows, out),
            // All of them in one pass, so that each block is unpacked once (tiling them by
            // 4 unpacked the whole matrix again for a fifth token: verification ran 21 %
            // slower at the default draft length of 4).
            2 => self.matvec_few::<2>(x, rows, out),
            3 => self.matvec_few::<3>(x, rows, out),
            4 => self.matvec_few::<4>(x, rows, out),
            5 => self.matvec_few::<5>(x, rows, out),
            6 => self.matvec_few::<6>(x, rows, out),
            7 => self.matvec_few::<7>(x, rows, out),
            8 => self.matvec_few::<8>(x, rows, out),
            _ => self.matmat(x, n, rows, out),
        }
    }

    /// `n` independent decode rows (sequences decoding together, `batch.rs`): each row gets
    /// exactly `matmul(row, 1)`'s arithmetic (`matvec`'s scaled block dot products, summed in
    /// the same order), so its result is bit-identical to a single-token pass, while each
    /// weight block is unpacked once for up to 8 rows. `matvec_few` would unpack once too,
    /// but dequantises first and so rounds differently: sampled tokens could then differ
    /// from unbatched sampling with the same seed.
    pub fn matmul_batch(&self, x: &[f32], n: usize, out: &mut [f32]) {
        assert_eq!(x.len(), n * self.cols, "matmul_batch: activation shape");
        assert_eq!(out.len(), n * self.rows, "matmul_batch: output shape");
        parallel::columns(out, n, 1, n * self.rows * self.cols, |rows, part| {
            let width = rows.len();
            let (xs, outs) = (x.chunks(BATCH_TILE * self.cols), part.chunks_mut(BATCH_TILE * width));
            for (x, out) in xs.zip(outs) {
                #[cfg(target_arch = "x86_64")]
                if simd::has_avx() && x.len() / self.cols > 1 {
                    self.matvec_pairs(x, rows.clone(), out);
                    continue;
                }
                self.matvec_tile(x, rows.clone(), out);
            }
        })
    }

    /// `matmul_batch` for up to `BATCH_TILE` rows, in `F4`s.
    fn matvec_tile(&self, x: &[f32], rows: std::ops::Range<usize>, out: &mut [f32]) {
        match x.len() / self.cols {
            1 => self.matvec(x, rows, out),
            2 => self.matvec_batch::<2>(x, rows, out),
            3 => self.matvec_batch::<3>(x, rows, out),
            4 => self.matvec_batch::<4>(x, rows, out),
            5 => self.matvec_batch::<5>(x, rows, out),
            6 => self.matvec_batch::<6>(x, rows, out),
            7 => self.matvec_batch::<7>(x, rows, out),
            _ => self.matvec_batch::<8>(x, rows, out),
        }
    }

    /// `matmul_batch` for up to 8 rows with AVX: rows go in pairs, one per half of a
    /// 256-bit register, each lane doing `matvec_scaled`'s arithmetic (bit-identical, twice
    /// the width); an odd last row goes alone through `matvec`.
    #[cfg(target_arch = "x86_64")]
    fn matvec_pairs(&self, x: &[f32], rows: std::ops::Range<usize>, out: &mut [f32]) {
        let (cols, n) = (self.cols, x.len() / self.cols);
        let pairs = n / 2;
        // Pair p's block b as 8 loads of [4 lanes of row 2p | the same 4 of row 2p + 1].
        let mut x2 = vec![0f32; pairs * 2 * cols];
        for p in 0..pairs {
            for (c, dst) in x2[p * 2 * cols..(p + 1) * 2 * cols].chunks_exact_mut(8).enumerate() {
                dst[..4].copy_from_slice(&x[2 * p * cols + 4 * c..][..4]);
                dst[4..].copy_from_slice(&x[(2 * p + 1) * cols + 4 * c..][..4]);
            }
        }
        // SAFETY: `matmul_batch` checked `has_avx`.
        with_scaled_blocks!(self, x, |blocks| unsafe {
            matvec_scaled_pairs(&x2, pairs, cols / BLOCK, rows.clone(), out, &blocks)
        });
        if n % 2 == 1 {
            let width = rows.len();
            self.matvec(&x[(n - 1) * cols..], rows, &mut out[(n - 1) * width..]);
        }
    }

    /// `matvec` for `T` activation rows at once (see `matmul_batch`).
    fn matvec_batch<const T: usize>(&self, x: &[f32], rows: std::ops::Range<usize>, out: &mut [f32]) {
        with_scaled_blocks!(self, x, |blocks| matvec_scaled_batch::<T, _, _, _>(
            x,
            self.cols / BLOCK,
            rows.clone(),
            out,
            &blocks
        ))
    }

    /// 2 to 8 tokens (verifying a speculative draft): as in `matvec`, each block is
    /// dequantised into registers and used at once, here for all `T` tokens. `matmat`'s
    /// dequantised-row buffer pays off only over many tokens. Unlike `matvec`, the block is
    /// dequantised before the dot products: applying the scale to each token's dot product
    /// instead measured 10 % slower at T = 5.
    fn matvec_few<const T: usize>(&self, x: &[f32], rows: std::ops::Range<usize>, out: &mut [f32]) {
        let (blocks, cols) = (self.cols / BLOCK, self.cols);
        with_blocks!(self, |block| {
            for r in rows.clone() {
                let mut acc = [F4::zero(); T];
                for b in 0..blocks {
                    let w = block(r, b);
                    for (i, a) in acc.iter_mut().enumerate() {
                        let xs = &x[i * cols + b * BLOCK..];
                        let xb: [F4; 8] = std::array::from_fn(|k| F4::load(&xs[4 * k..]));
                        *a = a.add(dot_block(w, &xb));
                    }
                }
                for (i, a) in acc.iter().enumerate() {
                    out[i * rows.len() + r - rows.start] = a.sum();
                }
            }
        })
    }

    /// Decode: each weight is used once, so blocks are unpacked straight into registers and
    /// never stored; two rows share each load of the activations. A block's scale and
    /// offset are applied to its dot product once, not to each weight:
    /// Σ (q·d + m)·x = d·Σ q·x + m·Σ x, with Σ x per block computed once for all rows.
    fn matvec(&self, x: &[f32], rows: std::ops::Range<usize>, out: &mut [f32]) {
        let per_row = self.cols / BLOCK;
        match &self.w {
            Weights::Q4_1 { d, m, qs } => {
                let xsum: Vec<f32> = x.chunks_exact(BLOCK).map(|c| c.iter().sum()).collect();
                let q = |i: usize| q4::raw(qs, i);
                matvec_scaled(x, per_row, rows, out, q, |i| d[i], |i, b| m[i] * xsum[b])
            }
            Weights::Q8_0 { d, qs } => {
                let q = |i: usize| q8::raw(qs, i);
                matvec_scaled(x, per_row, rows, out, q, |i| d[i], |_, _| 0.0)
            }
            Weights::F32(w) => {
                let q = |i: usize| float::block(w, i);
                matvec_scaled(x, per_row, rows, out, q, |_| 1.0, |_, _| 0.0)
            }
        }
    }

    /// Prefill and verification: rows are dequantised once into a buffer, then a 2-row ×
    /// 4-token tile of accumulators stays in registers while the columns stream past.
    fn matmat(&self, x: &[f32], n: usize, rows: std::ops::Range<usize>, out: &mut [f32]) {
        let cols = self.cols;
        let mut buf = vec![0f32; ROW_TILE * cols];
        let mut r = rows.start;
        while r < rows.end {
            let nr = ROW_TILE.min(rows.end - r);
            for i in 0..nr {
                self.row_into(r + i, &mut buf[i * cols..(i + 1) * cols]);
            }
            let w = &buf[..nr * cols];
            let mut t = 0;
            while t < n {
                let nt = TOKEN_TILE.min(n - t);
                let xs = &x[t * cols..(t + nt) * cols];
                let tile = match (nr, nt) {
                    (2, 4) => widen(micro::<2, 4>(w, xs, cols)),
                    (2, 3) => widen(micro::<2, 3>(w, xs, cols)),
                    (2, 2) => widen(micro::<2, 2>(w, xs, cols)),
                    (2, _) => widen(micro::<2, 1>(w, xs, cols)),
                    (_, 4) => widen(micro::<1, 4>(w, xs, cols)),
                    (_, 3) => widen(micro::<1, 3>(w, xs, cols)),
                    (_, 2) => widen(micro::<1, 2>(w, xs, cols)),
                    _ => widen(micro::<1, 1>(w, xs, cols)),
                };
                for i in 0..nr {
                    for j in 0..nt {
                        out[(t + j) * rows.len() + r - rows.start + i] = tile[i][j];
                    }
                }
                t += nt;
            }
            r += nr;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{quantized::QTensor, Device, Tensor};

    /// Our dequantisation and matmul against candle's own dequantiser plus a plain loop.
    fn check(dtype: GgmlDType) {
        let (rows, cols) = (7, 96);
        let dev = Device::Cpu;
        let data: Vec<f32> = (0..rows * cols).map(|i| ((i * 37 % 101) as f32 - 50.0) / 13.0).collect();
        let t = Tensor::from_vec(data, (rows, cols), &dev).unwrap();
        let q = QTensor::quantize(&t, dtype).unwrap();
        let reference = q.dequantize(&dev).unwrap().to_vec2::<f32>().unwrap();
        let m = QMatrix::from_ggml("w", dtype, rows, cols, &q.data().unwrap()).unwrap();
        let mut row = vec![0f32; cols];
        for (r, want) in reference.iter().enumerate() {
            m.row_into(r, &mut row);
            assert_eq!(&row, want, "row {r} of {dtype:?} differs from candle's dequantisation");
        }
        // One token (decode), a few (draft verification) and many (prefill) take different kernels.
        for n in [1, 3, 6, 8, 13, 17] {
            let x: Vec<f32> = (0..n * cols).map(|i| ((i * 17 % 23) as f32 - 11.0) / 7.0).collect();
            let mut out = vec![0f32; n * rows];
            m.matmul(&x, n, &mut out);
            for t in 0..n {
                for r in 0..rows {
                    let want: f32 = (0..cols).map(|c| reference[r][c] * x[t * cols + c]).sum();
                    assert!(
                        (out[t * rows + r] - want).abs() < 1e-4 * (1.0 + want.abs()),
                        "{dtype:?} n={n} t={t} r={r}"
                    );
                }
            }
            // A batch of decode rows: each bit-identical to its own single-token pass.
            let mut batch = vec![0f32; n * rows];
            m.matmul_batch(&x, n, &mut batch);
            for t in 0..n {
                let mut one = vec![0f32; rows];
                m.matmul(&x[t * cols..(t + 1) * cols], 1, &mut one);
                assert_eq!(&batch[t * rows..(t + 1) * rows], &one[..], "{dtype:?} batch n={n} row {t}");
            }
            // The F4 kernel too, which x86_64 with AVX (the usual test machine) passes by.
            if n <= BATCH_TILE {
                let mut tile = vec![0f32; n * rows];
                m.matvec_tile(&x, 0..m.rows, &mut tile);
                assert_eq!(tile, batch, "{dtype:?} F4 batch n={n}");
            }
        }
    }

    #[test]
    fn q4_1_matches_candle() {
        check(GgmlDType::Q4_1)
    }

    #[test]
    fn q8_0_matches_candle() {
        check(GgmlDType::Q8_0)
    }

    #[test]
    fn f32_matches_plain_loop() {
        check(GgmlDType::F32)
    }

    #[test]
    fn wrong_byte_count_is_an_error() {
        let err = QMatrix::from_ggml("blk.0.attn_q.weight", GgmlDType::Q4_1, 4, 64, &[0u8; 10]).err().unwrap();
        assert!(err.to_string().contains("needs 160 bytes, the file has 10"), "{err}");
    }
}

//! Weight matrices as they come in the GGUF (Q4_1, Q8_0, F32/F16) and the one matmul the
//! model uses: f32 activations times quantised weights.
//!
//! Why not candle's `QMatMul`: it quantises the *activations* to 8 bits before the dot
//! product. On this model that moved the first logits by about 0.4 and flipped a greedy
//! answer, and a teaching tool shows probabilities as truth. Here each block of weights is
//! dequantised with exactly ggml's arithmetic (`q * d + m`) and multiplied in f32, so the
//! only difference from a plain-f32 forward is the order of the additions. The weights stay
//! in their 4- or 8-bit form in memory: one copy of the model, no re-quantisation.

use crate::error::{EngineError, Result};
use candle_core::quantized::GgmlDType;
use half::f16;

const BLOCK: usize = 32;
/// Rows dequantised together, so that each activation loaded is used this many times.
const ROW_TILE: usize = 4;
/// Accumulator lanes: independent partial sums that the compiler maps to SIMD registers
/// (simd128 on wasm32, SSE on x86_64).
const LANES: usize = 8;

enum Weights {
    /// Per block of 32: value = d * q + m, q in 0..16, two nibbles per byte (low nibble =
    /// element j, high nibble = element j + 16), as in ggml's `block_q4_1`.
    Q4_1 { d: Vec<f32>, m: Vec<f32>, qs: Vec<u8> },
    /// Per block of 32: value = d * q, q an i8, as in ggml's `block_q8_0`.
    Q8_0 { d: Vec<f32>, qs: Vec<i8> },
    F32(Vec<f32>),
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
        let elems = rows
            .checked_mul(cols)
            .ok_or_else(|| EngineError::InvalidModel(format!("tensor {name} is too large")))?;
        let expected = elems / dtype.block_size() * dtype.type_size();
        // Every llama matrix width is a multiple of 32; the kernels rely on it.
        if cols % BLOCK != 0 {
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
        let half_at = |b: &[u8], i: usize| f16::from_le_bytes([b[i], b[i + 1]]).to_f32();
        let w = match dtype {
            GgmlDType::Q4_1 => {
                let n = elems / BLOCK;
                let (mut d, mut m, mut qs) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n * 16));
                for block in bytes.chunks_exact(20) {
                    d.push(half_at(block, 0));
                    m.push(half_at(block, 2));
                    qs.extend_from_slice(&block[4..20]);
                }
                Weights::Q4_1 { d, m, qs }
            }
            GgmlDType::Q8_0 => {
                let n = elems / BLOCK;
                let (mut d, mut qs) = (Vec::with_capacity(n), Vec::with_capacity(n * BLOCK));
                for block in bytes.chunks_exact(34) {
                    d.push(half_at(block, 0));
                    qs.extend(block[2..34].iter().map(|&b| b as i8));
                }
                Weights::Q8_0 { d, qs }
            }
            GgmlDType::F32 => Weights::F32(
                bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            ),
            GgmlDType::F16 => Weights::F32(bytes.chunks_exact(2).map(|b| half_at(b, 0)).collect()),
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
        let out = &mut out[..self.cols];
        match &self.w {
            Weights::Q4_1 { d, m, qs } => {
                let first = r * self.cols / BLOCK;
                for (b, chunk) in out.chunks_exact_mut(BLOCK).enumerate() {
                    let (d, m) = (d[first + b], m[first + b]);
                    let q = &qs[(first + b) * 16..][..16];
                    for j in 0..16 {
                        chunk[j] = (q[j] & 0x0F) as f32 * d + m;
                        chunk[j + 16] = (q[j] >> 4) as f32 * d + m;
                    }
                }
            }
            Weights::Q8_0 { d, qs } => {
                let first = r * self.cols / BLOCK;
                for (b, chunk) in out.chunks_exact_mut(BLOCK).enumerate() {
                    let d = d[first + b];
                    let q = &qs[(first + b) * BLOCK..][..BLOCK];
                    for j in 0..BLOCK {
                        chunk[j] = q[j] as f32 * d;
                    }
                }
            }
            Weights::F32(v) => out.copy_from_slice(&v[r * self.cols..][..self.cols]),
        }
    }

    /// `out[t * rows + r] = Σ_c W[r, c] · x[t * cols + c]` for the `n` activation rows in `x`.
    pub fn matmul(&self, x: &[f32], n: usize, out: &mut [f32]) {
        self.matmul_rows(x, n, 0..self.rows, out)
    }

    /// As `matmul`, for the output rows in `rows` only (the LM head of one position, or a
    /// worker's share).
    pub fn matmul_rows(&self, x: &[f32], n: usize, rows: std::ops::Range<usize>, out: &mut [f32]) {
        let cols = self.cols;
        assert_eq!(x.len(), n * cols, "matmul: activation shape");
        assert_eq!(out.len(), n * self.rows, "matmul: output shape");
        let mut w = vec![0f32; ROW_TILE * cols];
        let mut r0 = rows.start;
        while r0 < rows.end {
            let tile = ROW_TILE.min(rows.end - r0);
            for i in 0..tile {
                self.row_into(r0 + i, &mut w[i * cols..(i + 1) * cols]);
            }
            for t in 0..n {
                let xt = &x[t * cols..(t + 1) * cols];
                let dots = dot_tile(&w[..tile * cols], tile, xt);
                out[t * self.rows + r0..][..tile].copy_from_slice(&dots[..tile]);
            }
            r0 += tile;
        }
    }
}

/// Dot products of up to `ROW_TILE` weight rows with one activation row, in `LANES`
/// independent partial sums per row so that the loop vectorises.
#[inline(always)]
fn dot_tile(w: &[f32], tile: usize, x: &[f32]) -> [f32; ROW_TILE] {
    let cols = x.len();
    let mut acc = [[0f32; LANES]; ROW_TILE];
    if tile == ROW_TILE {
        let rows: [&[f32]; ROW_TILE] = std::array::from_fn(|i| &w[i * cols..(i + 1) * cols]);
        for c in (0..cols).step_by(LANES) {
            let xv: &[f32; LANES] = x[c..c + LANES].try_into().unwrap();
            for i in 0..ROW_TILE {
                let wv: &[f32; LANES] = rows[i][c..c + LANES].try_into().unwrap();
                for l in 0..LANES {
                    acc[i][l] += wv[l] * xv[l];
                }
            }
        }
    } else {
        for i in 0..tile {
            let row = &w[i * cols..(i + 1) * cols];
            for c in (0..cols).step_by(LANES) {
                for l in 0..LANES {
                    acc[i][l] += row[c + l] * x[c + l];
                }
            }
        }
    }
    acc.map(|a| a.iter().sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{quantized::QTensor, Device, Tensor};

    /// Our dequantisation and matmul against candle's own dequantiser plus a plain loop.
    fn check(dtype: GgmlDType) {
        let (rows, cols, n) = (7, 96, 3);
        let dev = Device::Cpu;
        let data: Vec<f32> = (0..rows * cols).map(|i| ((i * 37 % 101) as f32 - 50.0) / 13.0).collect();
        let t = Tensor::from_vec(data, (rows, cols), &dev).unwrap();
        let q = QTensor::quantize(&t, dtype).unwrap();
        let reference = q.dequantize(&dev).unwrap().to_vec2::<f32>().unwrap();
        let m = QMatrix::from_ggml("w", dtype, rows, cols, &q.data().unwrap()).unwrap();
        let mut row = vec![0f32; cols];
        for r in 0..rows {
            m.row_into(r, &mut row);
            assert_eq!(row, reference[r], "row {r} of {dtype:?} differs from candle's dequantisation");
        }
        let x: Vec<f32> = (0..n * cols).map(|i| ((i * 17 % 23) as f32 - 11.0) / 7.0).collect();
        let mut out = vec![0f32; n * rows];
        m.matmul(&x, n, &mut out);
        for t in 0..n {
            for r in 0..rows {
                let want: f32 = (0..cols).map(|c| reference[r][c] * x[t * cols + c]).sum();
                assert!((out[t * rows + r] - want).abs() < 1e-4 * (1.0 + want.abs()), "{dtype:?} t={t} r={r}");
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

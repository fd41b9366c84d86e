//! Weight matrices as they come in the GGUF (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K … Q6_K,
//! F32, F16, BF16, in any mix) and the one matmul the model uses: f32 activations times
//! quantised weights.
//!
//! Why not candle's `QMatMul`: it quantises the *activations* to 8 bits before the dot
//! product. On this model that moved the first logits by about 0.4 and flipped a greedy
//! answer, and a teaching tool shows probabilities as truth. Here each block of weights is
//! dequantised with exactly ggml's arithmetic (`q * d + m`) and multiplied in f32, so the
//! only difference from a plain-f32 forward is the order of the additions. The weights stay
//! in their quantised form in memory: one copy of the model, no re-quantisation.
//!
//! One file per block family holds how its blocks are read from the file and unpacked
//! (`q4.rs`, `q5.rs`, `q8.rs`, `k_quants.rs`, `float.rs` for F32, F16 and BF16), each
//! implementing `Blocks`; `planes.rs` the bit planes the 2-, 3-, 5- and 6-bit values are
//! kept in; `kernels.rs` the matrix kernels, generic over the unpacking; `simd.rs` the 4-
//! and 8-lane vectors they run on; `choice.rs` which loop decode runs for each family, timed
//! on the device. A new block type needs a `Blocks` implementation, a
//! variant of `Weights` (and its arm in `with_blocks!`) and an arm in `QMatrix::from_ggml`;
//! the tests at the end then check it against candle's dequantiser.

pub mod choice;
mod float;
mod int16;
mod k_quants;
mod kernels;
mod planes;
mod q4;
mod q5;
mod q8;
pub mod requantize;
pub(crate) mod simd;

use crate::error::{EngineError, Result};
use crate::parallel;
use candle_core::quantized::GgmlDType;
use choice::{DecodeLoop, Family};
#[cfg(target_arch = "x86_64")]
use kernels::matvec_scaled_pairs;
use kernels::{dot_block, matvec_scaled, matvec_scaled_batch, micro, widen, Scaled, BATCH_TILE, TOKEN_TILE};
use simd::F4;
use std::sync::atomic::{AtomicU8, Ordering};

const BLOCK: usize = 32;
/// Weight rows dequantised at once for a matrix-matrix product.
const ROW_TILE: usize = 2;

/// The most activation rows `matmul` takes through the decode kernels (one matrix-vector
/// product per row, or `matvec_few`); a pass of more tokens takes the tiled kernel.
pub const FEW_TOKENS: usize = 8;

/// One block family's weights in memory, seen as blocks of 32 numbered row by row
/// (`i = row · cols / 32 + b`). Each value is `block(i)`, computed with ggml's arithmetic;
/// the decode kernels use instead `scale(i) · raw(i) + offset`, the same number up to the
/// order of the roundings, with the scale and offset applied once per dot product rather
/// than per weight: Σ (q·d + m)·x = d·Σ q·x + m·Σ x.
pub(super) trait Blocks {
    /// Whether the family has offsets (mins), so that the kernels need Σ x per half block.
    const OFFSET: bool;
    /// The loop decode runs until one is chosen by timing (`choice.rs`): what AMD EPYC measured
    /// fastest, one row at a time for the families of a byte or more per weight (Q8_0, F16,
    /// BF16, F32), whose reading outruns their unpacking, two rows for the others.
    const DECODE_LOOP: DecodeLoop = DecodeLoop::TwoRows;
    /// Block `i`, dequantised exactly as ggml does; for the families without offsets that
    /// is `raw · scale` (ggml's `q * d`, or `(d * sc) * q` where `d * sc` is exact).
    #[inline(always)]
    fn block(&self, i: usize) -> [F4; 8] {
        let d = F4::splat(self.scale(i));
        self.raw(i).map(|x| x.mul(d))
    }
    /// Block `i`'s values before its scale and offset: integers, times the integer scales
    /// of 16-weight sub-blocks where the family has them.
    fn raw(&self, i: usize) -> [F4; 8];
    fn scale(&self, i: usize) -> f32;
    /// Block `i`'s offsets times its activations, given Σ x over each of its 16-value halves.
    #[inline(always)]
    fn offset(&self, _i: usize, _sums: [f32; 2]) -> f32 {
        0.0
    }
    /// Bytes held in memory.
    fn bytes(&self) -> usize;
}

enum Weights {
    Q4_0(q4::Q4_0),
    Q4_1(q4::Q4_1),
    Q5_0(q5::Q5_0),
    Q5_1(q5::Q5_1),
    Q8_0(q8::Q8_0),
    Q2K(k_quants::Q2K),
    Q3K(k_quants::Q3K),
    /// Q4_K and Q5_K.
    Q45K(k_quants::Q45K),
    Q6K(k_quants::Q6K),
    /// F32, F16 and BF16.
    F32(float::F32),
}

/// Runs `$body` with `$b` bound to `$w`'s blocks: the body is compiled once per family,
/// so the hot loops never branch on it.
macro_rules! with_blocks {
    ($w:expr, |$b:ident| $body:expr) => {
        match $w {
            Weights::Q4_0($b) => $body,
            Weights::Q4_1($b) => $body,
            Weights::Q5_0($b) => $body,
            Weights::Q5_1($b) => $body,
            Weights::Q8_0($b) => $body,
            Weights::Q2K($b) => $body,
            Weights::Q3K($b) => $body,
            Weights::Q45K($b) => $body,
            Weights::Q6K($b) => $body,
            Weights::F32($b) => $body,
        }
    };
}

/// `B::DECODE_LOOP`, read from a value (the families are matched as values).
fn default_loop<B: Blocks>(_: &B) -> DecodeLoop {
    B::DECODE_LOOP
}

/// Σ x over each 16-value half of each 32-value block of `x`, for families with offsets.
fn half_sums_of<B: Blocks>(_: &B, x: &[f32]) -> Vec<[f32; 2]> {
    if !B::OFFSET {
        return Vec::new();
    }
    x.chunks_exact(BLOCK).map(|c| [c[..16].iter().sum(), c[16..].iter().sum()]).collect()
}

/// The `Scaled` view of `blocks` for activations whose half sums are `sums`.
fn scaled<'a, B: Blocks>(
    blocks: &'a B,
    sums: &'a [[f32; 2]],
    per_row: usize,
) -> Scaled<impl Fn(usize) -> [F4; 8] + 'a, impl Fn(usize) -> f32 + 'a, impl Fn(usize, usize, usize) -> f32 + 'a> {
    Scaled {
        q: move |i| blocks.raw(i),
        scale: move |i| blocks.scale(i),
        offset: move |i, b, t| if B::OFFSET { blocks.offset(i, sums[t * per_row + b]) } else { 0.0 },
    }
}

/// A `rows × cols` row-major weight matrix: `rows` outputs, `cols` inputs.
pub struct QMatrix {
    pub rows: usize,
    pub cols: usize,
    w: Weights,
    /// The loop decode's products run (`DecodeLoop` as a byte): the family's default until a
    /// choice is applied; an atomic because sessions share the model.
    decode_loop: AtomicU8,
}

impl QMatrix {
    /// Reads the raw GGUF bytes of one tensor. `name` is only for error messages.
    pub fn from_ggml(name: &str, dtype: GgmlDType, rows: usize, cols: usize, bytes: &[u8]) -> Result<Self> {
        let load: fn(&str, usize, &[u8]) -> Result<Weights> = match dtype {
            GgmlDType::Q4_0 => q4::load_q4_0,
            GgmlDType::Q4_1 => q4::load_q4_1,
            GgmlDType::Q5_0 => q5::load_q5_0,
            GgmlDType::Q5_1 => q5::load_q5_1,
            GgmlDType::Q8_0 => q8::load,
            GgmlDType::Q2K => k_quants::load_q2k,
            GgmlDType::Q3K => k_quants::load_q3k,
            GgmlDType::Q4K => |n, e, b| k_quants::load_q45k(n, e, b, false),
            GgmlDType::Q5K => |n, e, b| k_quants::load_q45k(n, e, b, true),
            GgmlDType::Q6K => k_quants::load_q6k,
            GgmlDType::F32 => float::load_f32,
            GgmlDType::F16 => float::load_f16,
            GgmlDType::BF16 => float::load_bf16,
            other => {
                return Err(EngineError::InvalidModel(format!(
                    "tensor {name} has type {other:?}, which this engine does not run \
                     (it runs Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, F16, BF16 and F32)"
                )))
            }
        };
        let elems =
            rows.checked_mul(cols).ok_or_else(|| EngineError::InvalidModel(format!("tensor {name} is too large")))?;
        // Every matrix width must hold whole blocks (32 weights; 256 for the K-quants, whose
        // super-blocks must not straddle rows): the kernels rely on it.
        let block = dtype.block_size().max(BLOCK);
        if !cols.is_multiple_of(block) {
            return Err(EngineError::InvalidModel(format!(
                "tensor {name} ({dtype:?}) has {cols} columns, not a multiple of its {block}-element block"
            )));
        }
        let expected = elems / dtype.block_size() * dtype.type_size();
        if bytes.len() != expected {
            return Err(EngineError::InvalidModel(format!(
                "tensor {name} ({dtype:?}, {rows}×{cols}) needs {expected} bytes, the file has {}",
                bytes.len()
            )));
        }
        let w = load(name, elems, bytes)?;
        let decode_loop = AtomicU8::new(with_blocks!(&w, |b| default_loop(b)).to_u8());
        Ok(Self { rows, cols, w, decode_loop })
    }

    /// The block family decode's kernels run for this matrix.
    pub fn family(&self) -> Family {
        match &self.w {
            Weights::Q4_0(_) => Family::Q4_0,
            Weights::Q4_1(_) => Family::Q4_1,
            Weights::Q5_0(_) => Family::Q5_0,
            Weights::Q5_1(_) => Family::Q5_1,
            Weights::Q8_0(_) => Family::Q8_0,
            Weights::Q2K(_) => Family::Q2K,
            Weights::Q3K(_) => Family::Q3K,
            Weights::Q45K(b) if b.is_q5k() => Family::Q5K,
            Weights::Q45K(_) => Family::Q4K,
            Weights::Q6K(_) => Family::Q6K,
            Weights::F32(_) => Family::F32,
        }
    }

    /// The loop decode's products run now.
    pub fn decode_loop(&self) -> DecodeLoop {
        DecodeLoop::from_u8(self.decode_loop.load(Ordering::Relaxed))
    }

    /// The loop this matrix's family runs before any choice (`Blocks::DECODE_LOOP`).
    pub fn default_decode_loop(&self) -> DecodeLoop {
        with_blocks!(&self.w, |b| default_loop(b))
    }

    /// Makes decode's products run `l` (the same results to the bit, at another speed).
    pub fn set_decode_loop(&self, l: DecodeLoop) {
        self.decode_loop.store(l.to_u8(), Ordering::Relaxed)
    }

    /// Decode's product (one activation row `x`) for the output rows `rows` only, with loop
    /// `l`, split over the current threads as `matmul` splits it: what `choice::choose` times.
    pub fn matvec_using(&self, x: &[f32], l: DecodeLoop, rows: std::ops::Range<usize>, out: &mut [f32]) {
        assert_eq!((x.len(), out.len()), (self.cols, rows.len()), "matvec_using: shapes");
        let start = rows.start;
        parallel::columns(out, 1, ROW_TILE, rows.len() * self.cols, |r, part| {
            self.matvec(x, l, start + r.start..start + r.end, part)
        })
    }

    /// Bytes this matrix holds in memory.
    pub fn bytes(&self) -> usize {
        with_blocks!(&self.w, |b| b.bytes())
    }

    /// Writes row `r`, dequantised, into `out` (`cols` values).
    pub fn row_into(&self, r: usize, out: &mut [f32]) {
        let per_row = self.cols / BLOCK;
        with_blocks!(&self.w, |blocks| {
            for (b, chunk) in out[..self.cols].chunks_exact_mut(BLOCK).enumerate() {
                for (k, v) in blocks.block(r * per_row + b).iter().enumerate() {
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
    /// of `rows.len()` values. Up to `FEW_TOKENS` activation rows take the decode kernels,
    /// more the tiled one, and the two round differently.
    pub fn matmul_rows(&self, x: &[f32], n: usize, rows: std::ops::Range<usize>, out: &mut [f32]) {
        assert_eq!(out.len(), n * rows.len(), "matmul: output shape");
        match n {
            1 => self.matvec(x, self.decode_loop(), rows, out),
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
            // Above `FEW_TOKENS`.
            _ => self.matmat(x, n, rows, out),
        }
    }

    /// `matmul` with the opt-in integer arithmetic (`int16.rs`) for one activation row times
    /// a Q4_0, Q4_1, Q5_0 or Q8_0 matrix; any other product is `matmul`'s. The row is rounded
    /// once, before the rows of the matrix are split over the threads, so the result is the
    /// same at every thread count.
    pub fn matmul_integer(&self, x: &[f32], n: usize, out: &mut [f32]) {
        if n != 1 {
            return self.matmul(x, n, out);
        }
        match &self.w {
            Weights::Q4_0(w) => self.matvec_integer(w, x, out),
            Weights::Q4_1(w) => self.matvec_integer(w, x, out),
            Weights::Q5_0(w) => self.matvec_integer(w, x, out),
            Weights::Q8_0(w) => self.matvec_integer(w, x, out),
            _ => self.matmul(x, n, out),
        }
    }

    fn matvec_integer<B: int16::IntegerBlocks + Sync>(&self, w: &B, x: &[f32], out: &mut [f32]) {
        assert_eq!((x.len(), out.len()), (self.cols, self.rows), "matmul: shapes");
        let (row, sums, per_row) = (int16::Int16Row::new(x, B::PAIRED), half_sums_of(w, x), self.cols / BLOCK);
        let order = self.decode_loop();
        parallel::columns(out, 1, ROW_TILE, self.rows * self.cols, |rows, part| {
            int16::matvec(w, &row, &sums, per_row, order, rows, part)
        })
    }

    /// `matmul_batch` with the opt-in integer arithmetic: each row of a product that has it
    /// is `matmul_integer` of that row alone (so a batched sequence gets the logits it would
    /// get alone); any other product is `matmul_batch`'s.
    pub fn matmul_batch_integer(&self, x: &[f32], n: usize, out: &mut [f32]) {
        if !self.has_integer_arithmetic() {
            return self.matmul_batch(x, n, out);
        }
        assert_eq!((x.len(), out.len()), (n * self.cols, n * self.rows), "matmul_batch: shapes");
        for (xr, or) in x.chunks_exact(self.cols).zip(out.chunks_exact_mut(self.rows)).take(n) {
            self.matmul_integer(xr, 1, or);
        }
    }

    /// Whether `matmul_integer` has integer arithmetic for this matrix's block type.
    pub fn has_integer_arithmetic(&self) -> bool {
        matches!(self.w, Weights::Q4_0(_) | Weights::Q4_1(_) | Weights::Q5_0(_) | Weights::Q8_0(_))
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
            1 => self.matvec(x, self.decode_loop(), rows, out),
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
        let per_row = cols / BLOCK;
        with_blocks!(&self.w, |blocks| {
            let sums = half_sums_of(blocks, x);
            let view = scaled(blocks, &sums, per_row);
            // SAFETY: `matmul_batch` checked `has_avx`.
            unsafe { matvec_scaled_pairs(&x2, pairs, per_row, rows.clone(), out, &view) }
        });
        if n % 2 == 1 {
            let width = rows.len();
            self.matvec(&x[(n - 1) * cols..], self.decode_loop(), rows, &mut out[(n - 1) * width..]);
        }
    }

    /// `matvec` for `T` activation rows at once (see `matmul_batch`).
    fn matvec_batch<const T: usize>(&self, x: &[f32], rows: std::ops::Range<usize>, out: &mut [f32]) {
        let per_row = self.cols / BLOCK;
        with_blocks!(&self.w, |blocks| {
            let sums = half_sums_of(blocks, x);
            let view = scaled(blocks, &sums, per_row);
            matvec_scaled_batch::<T, _, _, _>(x, per_row, rows.clone(), out, &view)
        })
    }

    /// 2 to 8 tokens (verifying a speculative draft): as in `matvec`, each block is
    /// dequantised into registers and used at once, here for all `T` tokens. `matmat`'s
    /// dequantised-row buffer pays off only over many tokens. Unlike `matvec`, the block is
    /// dequantised before the dot products: applying the scale to each token's dot product
    /// instead measured 10 % slower at T = 5.
    fn matvec_few<const T: usize>(&self, x: &[f32], rows: std::ops::Range<usize>, out: &mut [f32]) {
        let (per_row, xs) = (self.cols / BLOCK, x.as_chunks::<BLOCK>().0);
        with_blocks!(&self.w, |blocks| {
            for r in rows.clone() {
                let mut acc = [F4::zero(); T];
                for b in 0..per_row {
                    let w = blocks.block(r * per_row + b);
                    for (i, a) in acc.iter_mut().enumerate() {
                        let xb: [F4; 8] = std::array::from_fn(|k| F4::load(&xs[i * per_row + b][4 * k..]));
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
    /// never stored, in the loop `order` (`kernels::in_rows`). A block's scale and
    /// offset are applied to its dot product once, not to each weight:
    /// Σ (q·d + m)·x = d·Σ q·x + m·Σ x, with Σ x per block computed once for all rows.
    fn matvec(&self, x: &[f32], order: DecodeLoop, rows: std::ops::Range<usize>, out: &mut [f32]) {
        let per_row = self.cols / BLOCK;
        with_blocks!(&self.w, |blocks| {
            let sums = half_sums_of(blocks, x);
            let Scaled { q, scale, offset } = scaled(blocks, &sums, per_row);
            matvec_scaled(order, x, per_row, rows, out, q, scale, |i, b| offset(i, b, 0))
        })
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
    use candle_core::quantized::ggml_file::qtensor_from_ggml;
    use candle_core::Device;
    use half::{bf16, f16};

    /// A small deterministic generator (xorshift), so that failures reproduce.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// Uniform in -1..1.
        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        }
    }

    /// Where each block type keeps its f16 scales: (block bytes, scale offsets).
    fn scale_fields(dtype: GgmlDType) -> &'static [usize] {
        match dtype {
            GgmlDType::Q4_0 | GgmlDType::Q5_0 | GgmlDType::Q8_0 => &[0],
            GgmlDType::Q4_1 | GgmlDType::Q5_1 | GgmlDType::Q4K | GgmlDType::Q5K => &[0, 2],
            GgmlDType::Q2K => &[80, 82],
            GgmlDType::Q3K => &[108],
            GgmlDType::Q6K => &[208],
            _ => &[],
        }
    }

    /// `rows × cols` weights of `dtype` as the file would hold them: random bits in every
    /// field (so every bit of every packed value and sub-scale is exercised), with finite
    /// random scales; floats are random values.
    fn random_tensor(dtype: GgmlDType, rows: usize, cols: usize, seed: u64) -> Vec<u8> {
        let mut rng = Rng(seed);
        let elems = rows * cols;
        match dtype {
            GgmlDType::F32 => (0..elems).flat_map(|_| rng.unit().to_le_bytes()).collect(),
            GgmlDType::F16 => (0..elems).flat_map(|_| f16::from_f32(rng.unit()).to_le_bytes()).collect(),
            GgmlDType::BF16 => (0..elems).flat_map(|_| bf16::from_f32(rng.unit()).to_le_bytes()).collect(),
            _ => {
                let size = dtype.type_size();
                let mut bytes: Vec<u8> = (0..elems / dtype.block_size() * size).map(|_| rng.next() as u8).collect();
                for block in bytes.chunks_exact_mut(size) {
                    for &at in scale_fields(dtype) {
                        block[at..at + 2].copy_from_slice(&f16::from_f32(rng.unit() * 0.05).to_le_bytes());
                    }
                }
                bytes
            }
        }
    }

    /// Our dequantisation against candle's (`to_float`, bit for bit), and every matmul
    /// kernel against a plain loop over the dequantised weights, on random blocks.
    fn check(dtype: GgmlDType) {
        let (rows, cols) = (5, 512);
        let dev = Device::Cpu;
        let bytes = random_tensor(dtype, rows, cols, 0x9E37_79B9_7F4A_7C15 ^ dtype.type_size() as u64);
        let reference = qtensor_from_ggml(dtype, &bytes, vec![rows, cols], &dev)
            .unwrap()
            .dequantize(&dev)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        let m = QMatrix::from_ggml("w", dtype, rows, cols, &bytes).unwrap();
        let mut row = vec![0f32; cols];
        for (r, want) in reference.iter().enumerate() {
            m.row_into(r, &mut row);
            assert!(
                row.iter().zip(want).all(|(a, b)| a.to_bits() == b.to_bits()),
                "row {r} of {dtype:?} differs from candle's dequantisation"
            );
        }
        let mut rng = Rng(7);
        // One token (decode), a few (draft verification) and many (prefill) take different kernels.
        for n in [1, 3, 6, 8, 13, 17] {
            let x: Vec<f32> = (0..n * cols).map(|_| rng.unit()).collect();
            let mut out = vec![0f32; n * rows];
            m.matmul(&x, n, &mut out);
            for t in 0..n {
                for r in 0..rows {
                    let terms = (0..cols).map(|c| reference[r][c] as f64 * x[t * cols + c] as f64);
                    let (want, size) = terms.fold((0f64, 0f64), |(s, a), v| (s + v, a + v.abs()));
                    let got = out[t * rows + r] as f64;
                    assert!((got - want).abs() <= 1e-6 * size, "{dtype:?} n={n} t={t} r={r}: {got} vs {want}");
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
    fn q4_0_matches_candle() {
        check(GgmlDType::Q4_0)
    }

    #[test]
    fn q4_1_matches_candle() {
        check(GgmlDType::Q4_1)
    }

    #[test]
    fn q5_0_matches_candle() {
        check(GgmlDType::Q5_0)
    }

    #[test]
    fn q5_1_matches_candle() {
        check(GgmlDType::Q5_1)
    }

    #[test]
    fn q8_0_matches_candle() {
        check(GgmlDType::Q8_0)
    }

    #[test]
    fn q2_k_matches_candle() {
        check(GgmlDType::Q2K)
    }

    #[test]
    fn q3_k_matches_candle() {
        check(GgmlDType::Q3K)
    }

    #[test]
    fn q4_k_matches_candle() {
        check(GgmlDType::Q4K)
    }

    #[test]
    fn q5_k_matches_candle() {
        check(GgmlDType::Q5K)
    }

    #[test]
    fn q6_k_matches_candle() {
        check(GgmlDType::Q6K)
    }

    #[test]
    fn f32_matches_plain_loop() {
        check(GgmlDType::F32)
    }

    #[test]
    fn f16_matches_candle() {
        check(GgmlDType::F16)
    }

    #[test]
    fn bf16_matches_candle() {
        check(GgmlDType::BF16)
    }

    /// The activations as `Int16Row` rounds them, in f64: per block, an outlier (more than 4
    /// times the rest) exact, the rest on steps of the largest left / 32767.
    fn rounded(x: &[f32]) -> Vec<f64> {
        x.chunks(BLOCK)
            .flat_map(|b| {
                let top = (0..BLOCK).max_by(|&i, &j| b[i].abs().total_cmp(&b[j].abs())).unwrap();
                let next = (0..BLOCK).filter(|&j| j != top).fold(0f32, |a, j| a.max(b[j].abs()));
                let outlier = b[top].abs() > 4.0 * next;
                let max = if outlier { next } else { b[top].abs() };
                let (s, inv) = if max == 0.0 { (0.0, 0.0) } else { (max / 32767.0, 32767.0 / max) };
                (0..BLOCK).map(move |j| match outlier && j == top {
                    true => b[j] as f64,
                    false => ((b[j] * inv).round() as i16) as f64 * s as f64,
                })
            })
            .collect()
    }

    /// Checks one matrix's integer products (`integer`, for activations `x`) against the same
    /// sums in f64 from `blocks`' integer values, read one by one (`integer_value`, which is
    /// first checked against the exact dequantisation, `block`), and returns each row's size
    /// (Σ of the terms' magnitudes).
    fn check_integer<B: int16::IntegerBlocks>(blocks: &B, x: &[f32], integer: &[f32], per_row: usize) -> Vec<f64> {
        let (rounded, sums) = (rounded(x), half_sums_of(blocks, x));
        let mut sizes = Vec::new();
        for (r, got) in integer.iter().enumerate() {
            let (mut want, mut size) = (0f64, 0f64);
            for b in 0..per_row {
                let i = r * per_row + b;
                let mut w = [0f32; 32];
                for (k, v) in blocks.block(i).iter().enumerate() {
                    v.store(&mut w[4 * k..]);
                }
                // The integer value times its scale, plus the block's share of the offset (an
                // offset times Σ x over the block is Σ of offset · x).
                let each = blocks.integer_offset(i, [0.5, 0.5]) as f64;
                let mut dot = 0f64;
                for j in 0..BLOCK {
                    let q = blocks.integer_value(i, j) as f64;
                    let value = blocks.integer_scale(i) as f64 * q + if B::OFFSET { each } else { 0.0 };
                    assert!((value - w[j] as f64).abs() <= 1e-6 * (w[j].abs() as f64 + 1e-3), "block {i} element {j}");
                    dot += q * rounded[b * BLOCK + j];
                }
                let offset = if B::OFFSET { blocks.integer_offset(i, sums[b]) as f64 } else { 0.0 };
                want += blocks.integer_scale(i) as f64 * dot + offset;
                size += (blocks.integer_scale(i) as f64 * dot).abs() + offset.abs();
            }
            assert!((*got as f64 - want).abs() <= 1e-5 * size + 1e-30, "row {r}: {got} against {want}");
            sizes.push(size);
        }
        sizes
    }

    /// The opt-in integer arithmetic on random blocks of each type that has it: the SIMD
    /// unpacking against `check_integer`'s one-by-one sums (a wrong nibble, fifth bit or order
    /// moves a row by far more than f32's rounding); as close to the exact product as the
    /// rounding of the activations allows; and a NaN stays NaN.
    #[test]
    fn integer_products_are_the_blocks_times_the_rounded_activations() {
        let (rows, cols) = (7, 512);
        for dtype in [GgmlDType::Q4_0, GgmlDType::Q4_1, GgmlDType::Q5_0, GgmlDType::Q8_0] {
            let bytes = random_tensor(dtype, rows, cols, 5 ^ dtype.type_size() as u64);
            let m = QMatrix::from_ggml("w", dtype, rows, cols, &bytes).unwrap();
            assert!(m.has_integer_arithmetic());
            let mut rng = Rng(11);
            // Blocks of very different sizes, one of zeros: each block has its own scale.
            let mut x: Vec<f32> = (0..cols).map(|i| rng.unit() * [1.0, 1e-3, 40.0, 0.0][i / BLOCK % 4]).collect();
            x[3] = 1e-30;
            // An outlier (more than 4 times the rest of its block): kept out of the integers.
            x[70] = 500.0;
            let (mut exact, mut integer) = (vec![0f32; rows], vec![0f32; rows]);
            m.matmul(&x, 1, &mut exact);
            m.matmul_integer(&x, 1, &mut integer);
            let per_row = cols / BLOCK;
            let sizes = match &m.w {
                Weights::Q4_0(b) => check_integer(b, &x, &integer, per_row),
                Weights::Q4_1(b) => check_integer(b, &x, &integer, per_row),
                Weights::Q5_0(b) => check_integer(b, &x, &integer, per_row),
                Weights::Q8_0(b) => check_integer(b, &x, &integer, per_row),
                _ => unreachable!(),
            };
            for r in 0..rows {
                assert!(integer[r] != exact[r], "{dtype:?} row {r}: the integer path was not taken");
                assert!((integer[r] - exact[r]).abs() <= 1e-3 * sizes[r] as f32, "{dtype:?} row {r}");
            }
            // A NaN in the activations comes out as NaN, as in the float product.
            x[40] = f32::NAN;
            m.matmul_integer(&x, 1, &mut integer);
            assert!(integer.iter().all(|v| v.is_nan()), "{dtype:?}");
        }
    }

    #[test]
    fn wrong_byte_count_is_an_error() {
        let err = QMatrix::from_ggml("blk.0.attn_q.weight", GgmlDType::Q4_1, 4, 64, &[0u8; 10]).err().unwrap();
        assert!(err.to_string().contains("needs 160 bytes, the file has 10"), "{err}");
    }

    #[test]
    fn a_k_quant_row_that_is_not_whole_super_blocks_is_an_error() {
        let err = QMatrix::from_ggml("blk.0.attn_k.weight", GgmlDType::Q4K, 2, 576, &[0u8; 648]).err().unwrap();
        assert_eq!(
            err.to_string(),
            "invalid model file: tensor blk.0.attn_k.weight (Q4K) has 576 columns, not a multiple of its 256-element block"
        );
    }

    #[test]
    fn a_nan_or_infinite_scale_is_an_error_naming_the_tensor() {
        for (dtype, at, value) in
            [(GgmlDType::Q8_0, 0, f16::NAN), (GgmlDType::Q6K, 208, f16::INFINITY), (GgmlDType::Q4K, 2, f16::NAN)]
        {
            let mut bytes = random_tensor(dtype, 1, 256, 3);
            bytes[at..at + 2].copy_from_slice(&value.to_le_bytes());
            let err = QMatrix::from_ggml("output.weight", dtype, 1, 256, &bytes).err().unwrap().to_string();
            assert!(err.contains("tensor output.weight has a block whose scale is"), "{dtype:?}: {err}");
        }
    }

    #[test]
    fn a_type_the_engine_does_not_run_is_an_error_naming_it() {
        let err =
            QMatrix::from_ggml("token_embd.weight", GgmlDType::Q8K, 1, 256, &[0u8; 292]).err().unwrap().to_string();
        assert!(
            err.starts_with(
                "invalid model file: tensor token_embd.weight has type Q8K, which this engine does not run"
            ),
            "{err}"
        );
    }
}

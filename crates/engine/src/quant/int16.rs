//! The opt-in integer arithmetic for decode (off by default): one activation row is
//! rounded to 16-bit integers, per block of 32 with its own scale, and multiplied with Q8_0
//! weights in integer arithmetic (`dot_i8_i16`: eight i16 products summed per i32 lane),
//! one float multiply per block. llama.cpp does the same with 8-bit activations (Q8_0 ×
//! Q8_0); wasm has no 8-bit dot product, so 16 bits cost the same instructions and keep
//! about 2^-16 of each block's largest value instead of 2^-8.
//!
//! It changes results: each activation moves by up to half a step, max |x| / 65534 of its
//! block, so the logits are no longer the plain-f32 pass's. `probe::integer` measures by
//! how much on the loaded model, and the page shows it before anyone relies on it.

use super::q8::Q8_0;
use super::simd::{dot_i8_i16, pair_bytes, BYTE_PAIR, F4};
use super::BLOCK;

/// The largest magnitude a rounded activation takes: i16's, symmetric.
const STEPS: f32 = 32767.0;

/// One activation row as 16-bit integers: per block of 32, the values in `pair_bytes`'
/// order (the order Q8_0 keeps its weights in) and the scale that turns them back.
pub(super) struct Int16Row {
    q: Vec<[i16; 32]>,
    scale: Vec<f32>,
}

impl Int16Row {
    /// Each block's values rounded to the nearest multiple of max |x| / 32767. A block of
    /// zeros has scale 0; a block holding an infinity or a NaN gets a NaN scale, so that the
    /// products come out NaN as in the float pass (never a number made up from it).
    pub(super) fn new(x: &[f32]) -> Self {
        let (mut q, mut scale) = (Vec::with_capacity(x.len() / BLOCK), Vec::with_capacity(x.len() / BLOCK));
        for block in x.chunks_exact(BLOCK) {
            let max = block.iter().fold(0f32, |m, v| m.max(v.abs()));
            let (s, inv) = if !max.is_finite() || block.iter().any(|v| v.is_nan()) {
                (f32::NAN, 0.0)
            } else if max == 0.0 {
                (0.0, 0.0)
            } else {
                (max / STEPS, STEPS / max)
            };
            q.push(pair_bytes(&std::array::from_fn(|j| (block[j] * inv).round() as i16)));
            scale.push(s);
        }
        Self { q, scale }
    }
}

/// `out[r - rows.start] = Σ_b d(r, b) · scale(b) · Σ_j q(r, b, j) · x(b, j)` for each row r
/// of `w` (a Q8_0 matrix of `per_row` blocks a row) in `rows`: `matvec_scaled`'s shape (two
/// rows share each load of the activations), with the block's dot product in integers.
pub(super) fn matvec(w: &Q8_0, x: &Int16Row, per_row: usize, rows: std::ops::Range<usize>, out: &mut [f32]) {
    let (xq, xs) = (&x.q[..per_row], &x.scale[..per_row]);
    // The block's stored scale is d / BYTE_PAIR (q8.rs): times BYTE_PAIR, a power of two, it
    // is d again, exactly.
    let block = |q: &[i8; 32], d: f32, b: usize| dot_i8_i16(q, &xq[b]).mul(F4::splat(d * BYTE_PAIR * xs[b]));
    let mut r = rows.start;
    while r + 1 < rows.end {
        let ((q0, d0), (q1, d1)) = (w.run(r * per_row..(r + 1) * per_row), w.run((r + 1) * per_row..(r + 2) * per_row));
        let (mut a0, mut a1) = (F4::zero(), F4::zero());
        for b in 0..per_row {
            a0 = a0.add(block(&q0[b], d0[b], b));
            a1 = a1.add(block(&q1[b], d1[b], b));
        }
        out[r - rows.start] = a0.sum();
        out[r + 1 - rows.start] = a1.sum();
        r += 2;
    }
    if r < rows.end {
        let (q0, d0) = w.run(r * per_row..(r + 1) * per_row);
        out[r - rows.start] = (0..per_row).fold(F4::zero(), |a, b| a.add(block(&q0[b], d0[b], b))).sum();
    }
}

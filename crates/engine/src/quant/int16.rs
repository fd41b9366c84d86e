//! The opt-in integer arithmetic for decode (off by default): one activation row is
//! rounded to 16-bit integers, per block of 32 with its own scale, and multiplied with the
//! integer values of Q4_0, Q4_1, Q5_0 and Q8_0 blocks in integer arithmetic (`dot_i8_i16`
//! and its unpacking forms: eight i16 products summed per i32 lane), one float multiply per
//! block; Q4_1's offsets still meet the float Σ x. llama.cpp does the same with 8-bit
//! activations; wasm has no 8-bit dot product, so 16 bits cost the same instructions and
//! keep about 2^-16 of each block's largest value instead of 2^-8. The K-quants' values
//! carry float sub-block scales, so they keep the exact path.
//!
//! It changes results: each activation moves by up to half a step, max |x| / 65534 of its
//! block, so the logits are no longer the plain-f32 pass's: on SmolLM2's copies, a mean
//! |Δlogit| of 2e-4 to 1.2e-3 against the plain-f32 reference (tests/integer.rs), where the
//! exact path stays within 1e-5. `probe::integer` measures it on the loaded model, and the
//! page shows it before anyone relies on it.
//!
//! Tried and not kept: a second row of 16-bit values for what the first misses (on steps
//! 65534 times finer). It brought the logits within 4e-6 to 5e-5 of the reference, but the
//! second dot product took back most of the speed (under V8, a 1536 × 576 product in
//! cache: Q8_0 2.1× the exact kernel's speed instead of 3.3×, Q4_1 1.0× instead of 1.4×).

use super::choice::DecodeLoop;
use super::kernels::in_rows;
use super::simd::{pair_bytes, F4};
use super::{Blocks, BLOCK};

/// The largest magnitude a rounded activation takes: i16's, symmetric.
const STEPS: f32 = 32767.0;

/// A block family with integer values and an integer dot product with 16-bit activations.
pub(super) trait IntegerBlocks: Blocks {
    /// Whether the family keeps its values in `pair_bytes`' order (the activations follow).
    const PAIRED: bool;
    /// Σ q·x over block i's integer values q, as four i32 lane sums (`dot_i8_i16`'s) in f32.
    fn dot_i16(&self, i: usize, x: &[i16; 32]) -> F4;
    /// What turns those integer values into weights (with `Blocks::offset`, where the family has one).
    fn integer_scale(&self, i: usize) -> f32;
    /// Block i's integer value at element j (0..32, the block's own order).
    fn integer_value(&self, i: usize, j: usize) -> f32;
    /// What the block adds beside its integers times the activations, given Σ x over each
    /// of its halves (`Blocks::offset`, unless the family centres its integers).
    #[inline(always)]
    fn integer_offset(&self, i: usize, sums: [f32; 2]) -> f32 {
        self.offset(i, sums)
    }
}

/// Where `pair_bytes` puts element j of a block.
pub(super) fn paired_place(j: usize) -> usize {
    8 * (j / 8) + 2 * (j % 4) + (j % 8) / 4
}

/// A block's largest activation is taken out of its integers (and multiplied in f32) when it
/// is more than this many times the next largest: activations have a few huge values, and
/// one of them would otherwise set a step too coarse for the other 31.
const OUTLIER: f32 = 4.0;

/// An activation kept out of its block's integers.
struct Outlier {
    block: usize,
    element: usize,
    x: f32,
}

/// One activation row as 16-bit integers: per block of 32, the values (in `pair_bytes`'
/// order for the families that keep theirs so) and the scale that turns them back; and the
/// outliers kept as floats.
pub(super) struct Int16Row {
    q: Vec<[i16; 32]>,
    scale: Vec<f32>,
    outliers: Vec<Outlier>,
}

impl Int16Row {
    /// Each block's values rounded to the nearest multiple of max |x| / 32767, its largest
    /// value first taken out as an `Outlier` when it is more than `OUTLIER` times the next (the
    /// step then follows the next). A block of zeros has scale 0; a block holding an infinity
    /// or a NaN gets a NaN scale, so that the products come out NaN as in the float pass
    /// (never a number made up from it).
    pub(super) fn new(x: &[f32], paired: bool) -> Self {
        let n = x.len() / BLOCK;
        let (mut q, mut scale, mut outliers) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::new());
        for (b, block) in x.chunks_exact(BLOCK).enumerate() {
            let mut values = *<&[f32; BLOCK]>::try_from(block).unwrap();
            let top = (0..BLOCK).max_by(|&i, &j| values[i].abs().total_cmp(&values[j].abs())).unwrap();
            let next = (0..BLOCK).filter(|&j| j != top).fold(0f32, |m, j| m.max(values[j].abs()));
            if values[top].abs() > OUTLIER * next && values[top].is_finite() {
                outliers.push(Outlier { block: b, element: top, x: values[top] });
                values[top] = 0.0;
            }
            let max = values.iter().fold(0f32, |m, v| m.max(v.abs()));
            let (s, inv) = if !max.is_finite() || values.iter().any(|v| v.is_nan()) {
                (f32::NAN, 0.0)
            } else if max == 0.0 {
                (0.0, 0.0)
            } else {
                (max / STEPS, STEPS / max)
            };
            let rounded = values.map(|v| (v * inv).round() as i16);
            q.push(if paired { pair_bytes(&rounded) } else { rounded });
            scale.push(s);
        }
        Self { q, scale, outliers }
    }
}

/// `out[r - rows.start] = Σ_b integer_scale(r, b) · scale(b) · Σ_j q(r, b, j) · x(b, j)
/// + offset(r, b)` for each row r of `w` (`per_row` blocks a row) in `rows`, where `sums`
/// holds the float Σ x of each half block (for the offsets): the decode kernels' loop
/// (`in_rows`, in the matrix's `order`), with the blocks' dot products in integers; then the outliers, each
/// weight times its activation in f32.
pub(super) fn matvec<B: IntegerBlocks>(
    w: &B,
    x: &Int16Row,
    sums: &[[f32; 2]],
    per_row: usize,
    order: DecodeLoop,
    rows: std::ops::Range<usize>,
    out: &mut [f32],
) {
    let (xq, xs) = (&x.q[..per_row], &x.scale[..per_row]);
    let block = |i: usize, b: usize| w.dot_i16(i, &xq[b]).mul(F4::splat(w.integer_scale(i) * xs[b]));
    let offset = |i: usize, b: usize| if B::OFFSET { w.integer_offset(i, sums[b]) } else { 0.0 };
    in_rows(order, per_row, rows.clone(), out, block, offset);
    for o in &x.outliers {
        for (r, v) in rows.clone().zip(out.iter_mut()) {
            let i = r * per_row + o.block;
            *v += w.integer_scale(i) * w.integer_value(i, o.element) * o.x;
        }
    }
}

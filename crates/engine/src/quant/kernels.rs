//! The matrix kernels every block type shares, generic over how a block is unpacked: the
//! decode dot products (`matvec_scaled`, and its batch and AVX pair forms, bit-identical to
//! it per row) and the register tile of the prefill product (`micro`, `widen`).

use super::choice::DecodeLoop;
use super::simd::F4;
use super::{BLOCK, ROW_TILE};

/// A matrix's blocks as the batched decode kernels take them (`matvec`'s arithmetic):
/// `q(i)` block i's raw values, `scale(i)` its scale, `offset(i, b, t)` its offset times
/// activation row t's Σ x over block b.
pub(super) struct Scaled<Q, S, O> {
    pub(super) q: Q,
    pub(super) scale: S,
    pub(super) offset: O,
}

/// One block's dot product, summed as a tree so that the additions can overlap.
#[inline(always)]
pub(super) fn dot_block(w: [F4; 8], xb: &[F4; 8]) -> F4 {
    let s = (w[0].mul(xb[0]).add(w[1].mul(xb[1]))).add(w[2].mul(xb[2]).add(w[3].mul(xb[3])));
    let t = (w[4].mul(xb[4]).add(w[5].mul(xb[5]))).add(w[6].mul(xb[6]).add(w[7].mul(xb[7])));
    s.add(t)
}

/// `out[r - rows.start] = Σ_b scale(i)·(q(i) · x_b) + offset(i, b)` over the blocks `b` of
/// each row `r` in `rows`, where `i = r · per_row + b` numbers the matrix's blocks: `q` gives a block's
/// raw values, `scale` its scale, `offset` its offset times the block's Σ x.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn matvec_scaled(
    order: DecodeLoop,
    x: &[f32],
    per_row: usize,
    rows: std::ops::Range<usize>,
    out: &mut [f32],
    q: impl Fn(usize) -> [F4; 8],
    scale: impl Fn(usize) -> f32,
    offset: impl Fn(usize, usize) -> f32,
) {
    // As arrays, so that the loads need no bounds checks (they were 8 branches a block).
    let xs = x.as_chunks::<BLOCK>().0;
    let xblock = |b: usize| -> [F4; 8] { std::array::from_fn(|k| F4::load(&xs[b][4 * k..])) };
    in_rows(order, per_row, rows, out, |i, b| dot_block(q(i), &xblock(b)).mul(F4::splat(scale(i))), offset)
}

/// `out[r - rows.start] = (Σ_b block(i, b)).sum() + Σ_b offset(i, b)` over the blocks `b` of
/// each row `r` in `rows` (`i = r · per_row + b`): the decode kernels' loop, in the order
/// `order` reads the rows (`choice.rs`): one after another, as one sequential stream; or
/// two at a time (rows r and r + 1, or r and r + half the range), so that what `block`
/// loads of the activations for block b serves both. Each row's sum is formed by the same
/// operations in the same order in every loop, so the results are the same to the bit.
///
/// Which is fastest depends on the CPU. Under Chromium's V8 on AMD EPYC, for a 172,800 × 576
/// product (out of cache): two streams a row apart were followed badly by the hardware
/// prefetcher when blocks are wide (Q8_0's 36 bytes per 32 weights in memory: 27.3 ms two
/// rows at a time, 14.2 ms one at a time; its integer arithmetic 19.0 and 9.1 ms), while the
/// 4-bit families are bound by their unpacking, and sharing the activations' loads gained
/// there (Q4_0 19.9 against 20.8 ms, integer 9.2 against 10.5; Q4_1 19.1 against 20.9,
/// integer 12.6 against 14.8). On an Intel Xeon the same choices lost speed, so the engine
/// times them on the device (`choice::choose`).
#[inline(always)]
pub(super) fn in_rows(
    order: DecodeLoop,
    per_row: usize,
    rows: std::ops::Range<usize>,
    out: &mut [f32],
    block: impl Fn(usize, usize) -> F4,
    offset: impl Fn(usize, usize) -> f32,
) {
    let one = |r: usize| {
        let i0 = r * per_row;
        let (mut a, mut c) = (F4::zero(), 0f32);
        for b in 0..per_row {
            a = a.add(block(i0 + b, b));
            c += offset(i0 + b, b);
        }
        a.sum() + c
    };
    // Rows r0 and r1 side by side, each summed exactly as `one` sums it.
    let two = |r0: usize, r1: usize| {
        let (i0, i1) = (r0 * per_row, r1 * per_row);
        let (mut a0, mut a1) = (F4::zero(), F4::zero());
        let (mut c0, mut c1) = (0f32, 0f32);
        for b in 0..per_row {
            a0 = a0.add(block(i0 + b, b));
            a1 = a1.add(block(i1 + b, b));
            c0 += offset(i0 + b, b);
            c1 += offset(i1 + b, b);
        }
        (a0.sum() + c0, a1.sum() + c1)
    };
    let (start, len) = (rows.start, rows.len());
    // Rows paired with the row `apart` after them, for the first `pairs` rows of each
    // group of 2·apart; the rest one at a time.
    let (apart, paired) = match order {
        DecodeLoop::OneRow => (1, 0),
        DecodeLoop::TwoRows => (1, len / 2 * 2),
        DecodeLoop::TwoHalves => (len / 2, len / 2 * 2),
    };
    let mut k = 0;
    while k < paired {
        let r = start + k;
        for j in 0..apart {
            (out[k + j], out[k + j + apart]) = two(r + j, r + j + apart);
        }
        k += 2 * apart;
    }
    for r in start + paired..rows.end {
        out[r - start] = one(r);
    }
}

/// Decode rows that share each unpacked weight block in `matmul_batch`.
pub(super) const BATCH_TILE: usize = 8;

/// `matvec_scaled` for `T` activation rows, one weight row at a time: each block is
/// unpacked once and its scaled dot product added to every row's accumulator, in the same
/// order of operations as `matvec_scaled` uses for one row.
#[inline(always)]
pub(super) fn matvec_scaled_batch<const T: usize, Q, S, O>(
    x: &[f32],
    per_row: usize,
    rows: std::ops::Range<usize>,
    out: &mut [f32],
    blocks: &Scaled<Q, S, O>,
) where
    Q: Fn(usize) -> [F4; 8],
    S: Fn(usize) -> f32,
    O: Fn(usize, usize, usize) -> f32,
{
    let Scaled { q, scale, offset } = blocks;
    let (xs, width) = (x.as_chunks::<BLOCK>().0, rows.len());
    for r in rows.clone() {
        let mut acc = [F4::zero(); T];
        let mut c = [0f32; T];
        for b in 0..per_row {
            let i = r * per_row + b;
            let (w, s) = (q(i), F4::splat(scale(i)));
            for t in 0..T {
                let xb: [F4; 8] = std::array::from_fn(|k| F4::load(&xs[t * per_row + b][4 * k..]));
                acc[t] = acc[t].add(dot_block(w, &xb).mul(s));
                c[t] += offset(i, b, t);
            }
        }
        for t in 0..T {
            out[t * width + r - rows.start] = acc[t].sum() + c[t];
        }
    }
}

/// `matvec_scaled_batch` with AVX, for `pairs` pairs of rows laid out by `matvec_pairs`:
/// the same operations in the same order, each on two rows at once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
pub(super) fn matvec_scaled_pairs<Q: Fn(usize) -> [F4; 8], S: Fn(usize) -> f32, O: Fn(usize, usize, usize) -> f32>(
    x2: &[f32],
    pairs: usize,
    per_row: usize,
    rows: std::ops::Range<usize>,
    out: &mut [f32],
    blocks: &Scaled<Q, S, O>,
) {
    use super::simd::F8;
    let Scaled { q, scale, offset } = blocks;
    let mut acc = [F8::zero(); BATCH_TILE / 2];
    let mut c = [0f32; BATCH_TILE];
    let width = rows.len();
    for r in rows.clone() {
        acc.fill(F8::zero());
        c.fill(0.0);
        for b in 0..per_row {
            let i = r * per_row + b;
            let w = q(i).map(|v| F8::twice(v));
            let s = F8::splat(scale(i));
            for (p, a) in acc[..pairs].iter_mut().enumerate() {
                let xs = &x2[(p * per_row + b) * 2 * BLOCK..];
                let x: [F8; 8] = std::array::from_fn(|k| F8::load(&xs[8 * k..]));
                // `dot_block`'s tree.
                let s0 = (w[0].mul(x[0]).add(w[1].mul(x[1]))).add(w[2].mul(x[2]).add(w[3].mul(x[3])));
                let s1 = (w[4].mul(x[4]).add(w[5].mul(x[5]))).add(w[6].mul(x[6]).add(w[7].mul(x[7])));
                *a = a.add(s0.add(s1).mul(s));
                c[2 * p] += offset(i, b, 2 * p);
                c[2 * p + 1] += offset(i, b, 2 * p + 1);
            }
        }
        for (p, a) in acc[..pairs].iter().enumerate() {
            let [lo, hi] = a.halves();
            out[2 * p * width + r - rows.start] = lo.sum() + c[2 * p];
            out[(2 * p + 1) * width + r - rows.start] = hi.sum() + c[2 * p + 1];
        }
    }
}

/// Activation rows per register tile (with `ROW_TILE` weight rows).
pub(super) const TOKEN_TILE: usize = 4;

/// An R × T tile of dot products: R weight rows (`w`, row-major) by T activation rows.
#[inline(always)]
pub(super) fn micro<const R: usize, const T: usize>(w: &[f32], x: &[f32], cols: usize) -> [[f32; T]; R] {
    let mut acc = [[F4::zero(); T]; R];
    // Rows as arrays of 4 of the same length as the loop, so that the loads need no
    // bounds checks.
    fn quads(m: &[f32], i: usize, cols: usize) -> &[[f32; 4]] {
        m[i * cols..(i + 1) * cols].as_chunks::<4>().0
    }
    let (xr, wr): ([&[[f32; 4]]; T], [&[[f32; 4]]; R]) =
        (std::array::from_fn(|t| quads(x, t, cols)), std::array::from_fn(|r| quads(w, r, cols)));
    for c in 0..cols / 4 {
        let xv: [F4; T] = std::array::from_fn(|t| F4::load(&xr[t][c]));
        for (r, row) in acc.iter_mut().enumerate() {
            let wv = F4::load(&wr[r][c]);
            for (a, xt) in row.iter_mut().zip(&xv) {
                *a = a.add(wv.mul(*xt));
            }
        }
    }
    acc.map(|row| row.map(|a| a.sum()))
}

/// Pads a tile to the largest shape, so that every `micro` instance has one type.
pub(super) fn widen<const R: usize, const T: usize>(t: [[f32; T]; R]) -> [[f32; TOKEN_TILE]; ROW_TILE] {
    let mut out = [[0f32; TOKEN_TILE]; ROW_TILE];
    for (o, row) in out.iter_mut().zip(t) {
        o[..T].copy_from_slice(&row);
    }
    out
}

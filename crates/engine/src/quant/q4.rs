//! The 4-bit legacy blocks, as in ggml's `block_q4_0` and `block_q4_1`: per block of 32
//! weights a scale d (and for Q4_1 an offset m), f16 each in the file, then 32 4-bit q in
//! 16 bytes (low nibble = element j, high nibble = element j + 16). Q4_0: value =
//! (q - 8) * d; Q4_1: value = q * d + m. The nibbles are kept as they come.

use super::float::scale_at;
use super::int16::IntegerBlocks;
use super::simd::{dot_nibbles_i16, nibbles, F4};
use super::{Blocks, Weights, BLOCK};
use crate::error::Result;
use crate::memory::with_capacity;

pub(super) struct Q4_0 {
    d: Vec<f32>,
    qs: Vec<u8>,
}

pub(super) struct Q4_1 {
    d: Vec<f32>,
    m: Vec<f32>,
    qs: Vec<u8>,
}

/// Reads the Q4_0 blocks of a tensor of `elems` weights (its byte count already checked).
pub(super) fn load_q4_0(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let n = elems / BLOCK;
    let (mut d, mut qs) = (with_capacity(n, name)?, with_capacity(n * 16, name)?);
    for block in bytes.chunks_exact(18) {
        d.push(scale_at(name, block, 0)?);
        qs.extend_from_slice(&block[2..18]);
    }
    Ok(Weights::Q4_0(Q4_0 { d, qs }))
}

/// Reads the Q4_1 blocks of a tensor of `elems` weights (its byte count already checked).
pub(super) fn load_q4_1(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let n = elems / BLOCK;
    let (mut d, mut m, mut qs) = (with_capacity(n, name)?, with_capacity(n, name)?, with_capacity(n * 16, name)?);
    for block in bytes.chunks_exact(20) {
        d.push(scale_at(name, block, 0)?);
        m.push(scale_at(name, block, 2)?);
        qs.extend_from_slice(&block[4..20]);
    }
    Ok(Weights::Q4_1(Q4_1 { d, m, qs }))
}

/// Block `i`'s 4-bit values.
#[inline(always)]
pub(super) fn nibbles_at(qs: &[u8], i: usize) -> [F4; 8] {
    nibbles(qs[i * 16..(i + 1) * 16].try_into().unwrap())
}

/// Element j's nibble of block `i` (low nibbles are elements 0..16, high 16..32).
pub(super) fn nibble(qs: &[u8], i: usize, j: usize) -> u8 {
    let byte = qs[i * 16 + j % 16];
    if j < 16 { byte & 15 } else { byte >> 4 }
}

/// Block `i`'s nibbles as an array.
#[inline(always)]
fn nibble_block(qs: &[u8], i: usize) -> &[u8; 16] {
    &qs.as_chunks::<16>().0[i]
}

/// The integer values are `raw`'s, q - 8.
impl IntegerBlocks for Q4_0 {
    const PAIRED: bool = false;

    #[inline(always)]
    fn dot_i16(&self, i: usize, x: &[i16; 32]) -> F4 {
        dot_nibbles_i16(nibble_block(&self.qs, i), 8, x)
    }

    #[inline(always)]
    fn integer_scale(&self, i: usize) -> f32 {
        self.d[i]
    }

    fn integer_value(&self, i: usize, j: usize) -> f32 {
        nibble(&self.qs, i, j) as f32 - 8.0
    }
}

/// The integer values are centred, q - 8, and the offset takes the 8 back: q·d + m =
/// (q - 8)·d + (m + 8d). The activations' rounding errors ε enter as Σ q·ε, whose spread
/// grows with the mean of q²: 77.5 for q in 0..=15, 21.5 for q - 8.
impl IntegerBlocks for Q4_1 {
    const PAIRED: bool = false;

    #[inline(always)]
    fn dot_i16(&self, i: usize, x: &[i16; 32]) -> F4 {
        dot_nibbles_i16(nibble_block(&self.qs, i), 8, x)
    }

    #[inline(always)]
    fn integer_offset(&self, i: usize, sums: [f32; 2]) -> f32 {
        (self.m[i] + 8.0 * self.d[i]) * (sums[0] + sums[1])
    }

    #[inline(always)]
    fn integer_scale(&self, i: usize) -> f32 {
        self.d[i]
    }

    fn integer_value(&self, i: usize, j: usize) -> f32 {
        nibble(&self.qs, i, j) as f32 - 8.0
    }
}

/// ggml's arithmetic, `(q - 8) * d`, is `Blocks::block`'s `raw · scale`.
impl Blocks for Q4_0 {
    const OFFSET: bool = false;

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        let eight = F4::splat(-8.0);
        nibbles_at(&self.qs, i).map(|x| x.add(eight))
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i]
    }

    fn bytes(&self) -> usize {
        self.d.len() * 4 + self.qs.len()
    }
}

impl Blocks for Q4_1 {
    const OFFSET: bool = true;

    /// ggml's arithmetic: `q * d + m`.
    #[inline(always)]
    fn block(&self, i: usize) -> [F4; 8] {
        let (d, m) = (F4::splat(self.d[i]), F4::splat(self.m[i]));
        nibbles_at(&self.qs, i).map(|x| x.mul(d).add(m))
    }

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        nibbles_at(&self.qs, i)
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i]
    }

    #[inline(always)]
    fn offset(&self, i: usize, sums: [f32; 2]) -> f32 {
        self.m[i] * (sums[0] + sums[1])
    }

    fn bytes(&self) -> usize {
        (self.d.len() + self.m.len()) * 4 + self.qs.len()
    }
}

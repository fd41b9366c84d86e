//! Q8_0, as in ggml's `block_q8_0`: per block of 32 weights, a scale d (f16 in the file),
//! then 32 i8 q; value = q * d. The q are kept in `pair_bytes`' order and unpacked times
//! `BYTE_PAIR` (fewer instructions), so d is kept divided by it: the same products to the bit.

use super::choice::DecodeLoop;
use super::float::scale_at;
use super::int16::{paired_place, IntegerBlocks};
use super::simd::{bytes_paired, dot_i8_i16, pair_bytes, BYTE_PAIR, F4};
use super::{Blocks, Weights, BLOCK};
use crate::error::Result;
use crate::memory::with_capacity;

pub(super) struct Q8_0 {
    /// d / `BYTE_PAIR`.
    d: Vec<f32>,
    qs: Vec<i8>,
}

/// Reads the blocks of a tensor of `elems` weights (its byte count already checked).
pub(super) fn load(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let n = elems / BLOCK;
    let (mut d, mut qs) = (with_capacity(n, name)?, with_capacity(n * BLOCK, name)?);
    for block in bytes.chunks_exact(34) {
        d.push(scale_at(name, block, 0)? / BYTE_PAIR);
        qs.extend(pair_bytes(&std::array::from_fn(|j| block[2 + j] as i8)));
    }
    Ok(Weights::Q8_0(Q8_0 { d, qs }))
}

/// The integer values are the file's q; `raw`'s are q · `BYTE_PAIR`, so the scale is d again.
impl IntegerBlocks for Q8_0 {
    const PAIRED: bool = true;

    #[inline(always)]
    fn dot_i16(&self, i: usize, x: &[i16; 32]) -> F4 {
        dot_i8_i16(&self.qs.as_chunks::<BLOCK>().0[i], x)
    }

    #[inline(always)]
    fn integer_scale(&self, i: usize) -> f32 {
        self.d[i] * BYTE_PAIR
    }

    fn integer_value(&self, i: usize, j: usize) -> f32 {
        self.qs[i * BLOCK + paired_place(j)] as f32
    }
}

impl Blocks for Q8_0 {
    const OFFSET: bool = false;
    const DECODE_LOOP: DecodeLoop = DecodeLoop::OneRow;

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        bytes_paired(self.qs[i * BLOCK..(i + 1) * BLOCK].try_into().unwrap())
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i]
    }

    fn bytes(&self) -> usize {
        self.d.len() * 4 + self.qs.len()
    }
}

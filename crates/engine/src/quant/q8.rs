//! Q8_0, as in ggml's `block_q8_0`: per block of 32 weights, a scale d (f16 in the file),
//! then 32 i8 q; value = q * d.

use super::float::scale_at;
use super::simd::{bytes, F4};
use super::{Blocks, Weights, BLOCK};
use crate::error::Result;
use crate::memory::with_capacity;

pub(super) struct Q8_0 {
    d: Vec<f32>,
    qs: Vec<i8>,
}

/// Reads the blocks of a tensor of `elems` weights (its byte count already checked).
pub(super) fn load(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let n = elems / BLOCK;
    let (mut d, mut qs) = (with_capacity(n, name)?, with_capacity(n * BLOCK, name)?);
    for block in bytes.chunks_exact(34) {
        d.push(scale_at(name, block, 0)?);
        qs.extend(block[2..34].iter().map(|&b| b as i8));
    }
    Ok(Weights::Q8_0(Q8_0 { d, qs }))
}

impl Blocks for Q8_0 {
    const OFFSET: bool = false;

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        bytes(self.qs[i * BLOCK..(i + 1) * BLOCK].try_into().unwrap())
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i]
    }

    fn bytes(&self) -> usize {
        self.d.len() * 4 + self.qs.len()
    }
}

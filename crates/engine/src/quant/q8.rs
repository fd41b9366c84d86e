//! Q8_0, as in ggml's `block_q8_0`: per block of 32 weights, a scale d (f16 in the file),
//! then 32 i8 q; value = d * q.

use super::float::f16_at;
use super::simd::{bytes, F4};
use super::{Weights, BLOCK};
use crate::error::Result;
use crate::memory::with_capacity;

/// Reads the blocks of a tensor of `elems` weights (its byte count already checked).
pub(super) fn load(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let n = elems / BLOCK;
    let (mut d, mut qs) = (with_capacity(n, name)?, with_capacity(n * BLOCK, name)?);
    for block in bytes.chunks_exact(34) {
        d.push(f16_at(block, 0));
        qs.extend(block[2..34].iter().map(|&b| b as i8));
    }
    Ok(Weights::Q8_0 { d, qs })
}

/// Block `i`'s raw q values, before its scale.
#[inline(always)]
pub(super) fn raw(qs: &[i8], i: usize) -> [F4; 8] {
    bytes(qs[i * BLOCK..(i + 1) * BLOCK].try_into().unwrap())
}

/// Block `i` of a Q8_0 matrix: `q * d`.
#[inline(always)]
pub(super) fn block(d: &[f32], qs: &[i8], i: usize) -> [F4; 8] {
    let mut v = bytes(qs[i * BLOCK..(i + 1) * BLOCK].try_into().unwrap());
    let d = F4::splat(d[i]);
    for x in &mut v {
        *x = x.mul(d);
    }
    v
}

//! Q4_1, as in ggml's `block_q4_1`: per block of 32 weights, a scale d and an offset m
//! (f16 each in the file), then 32 4-bit q in 16 bytes (low nibble = element j, high
//! nibble = element j + 16); value = d * q + m.

use super::float::f16_at;
use super::simd::{nibbles, F4};
use super::{Weights, BLOCK};
use crate::error::Result;
use crate::memory::with_capacity;

/// Reads the blocks of a tensor of `elems` weights (its byte count already checked).
pub(super) fn load(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let n = elems / BLOCK;
    let (mut d, mut m, mut qs) = (with_capacity(n, name)?, with_capacity(n, name)?, with_capacity(n * 16, name)?);
    for block in bytes.chunks_exact(20) {
        d.push(f16_at(block, 0));
        m.push(f16_at(block, 2));
        qs.extend_from_slice(&block[4..20]);
    }
    Ok(Weights::Q4_1 { d, m, qs })
}

/// Block `i`'s raw q values, before its scale and offset.
#[inline(always)]
pub(super) fn raw(qs: &[u8], i: usize) -> [F4; 8] {
    nibbles(qs[i * 16..(i + 1) * 16].try_into().unwrap())
}

/// Block `i` of a Q4_1 matrix, dequantised with ggml's arithmetic: `q * d + m`.
#[inline(always)]
pub(super) fn block(d: &[f32], m: &[f32], qs: &[u8], i: usize) -> [F4; 8] {
    let mut v = nibbles(qs[i * 16..(i + 1) * 16].try_into().unwrap());
    let (d, m) = (F4::splat(d[i]), F4::splat(m[i]));
    for x in &mut v {
        *x = x.mul(d).add(m);
    }
    v
}

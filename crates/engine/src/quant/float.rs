//! F32 and F16 weights, both held as f32 (F16 is widened once, at load), and the f16
//! reading that the quantised families' scales share.

use super::simd::F4;
use super::{Weights, BLOCK};
use crate::error::Result;
use crate::memory::with_capacity;
use half::f16;

/// The little-endian f16 at byte `i` of `b`, as f32.
pub(super) fn f16_at(b: &[u8], i: usize) -> f32 {
    f16::from_le_bytes([b[i], b[i + 1]]).to_f32()
}

pub(super) fn load_f32(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let mut w = with_capacity(elems, name)?;
    w.extend(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
    Ok(Weights::F32(w))
}

pub(super) fn load_f16(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let mut w = with_capacity(elems, name)?;
    w.extend(bytes.chunks_exact(2).map(|b| f16_at(b, 0)));
    Ok(Weights::F32(w))
}

/// Block `i` of an f32 matrix.
#[inline(always)]
pub(super) fn block(w: &[f32], i: usize) -> [F4; 8] {
    let b = &w[i * BLOCK..(i + 1) * BLOCK];
    [0, 4, 8, 12, 16, 20, 24, 28].map(|k| F4::load(&b[k..]))
}

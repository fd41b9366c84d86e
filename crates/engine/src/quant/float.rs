//! F32, F16 and BF16 weights, all held as f32 (F16 and BF16 are widened once, at load,
//! exactly), and the f16 reading that the quantised families' scales share.

use super::choice::DecodeLoop;
use super::simd::F4;
use super::{Blocks, Weights, BLOCK};
use crate::error::{EngineError, Result};
use crate::memory::with_capacity;
use half::{bf16, f16};

/// The little-endian f16 at byte `i` of `b`, as f32.
pub(super) fn f16_at(b: &[u8], i: usize) -> f32 {
    f16::from_le_bytes([b[i], b[i + 1]]).to_f32()
}

/// The f16 scale at byte `i` of block `b` of tensor `name`, refused when it is NaN or
/// infinite: such a block cannot be computed with, and would turn every logit into NaN.
pub(super) fn scale_at(name: &str, b: &[u8], i: usize) -> Result<f32> {
    let v = f16_at(b, i);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(EngineError::InvalidModel(format!("tensor {name} has a block whose scale is {v}; the file is corrupt")))
    }
}

pub(super) struct F32(Vec<f32>);

pub(super) fn load_f32(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let mut w = with_capacity(elems, name)?;
    w.extend(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
    Ok(Weights::F32(F32(w)))
}

pub(super) fn load_f16(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let mut w = with_capacity(elems, name)?;
    w.extend(bytes.chunks_exact(2).map(|b| f16_at(b, 0)));
    Ok(Weights::F32(F32(w)))
}

pub(super) fn load_bf16(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let mut w = with_capacity(elems, name)?;
    w.extend(bytes.chunks_exact(2).map(|b| bf16::from_le_bytes([b[0], b[1]]).to_f32()));
    Ok(Weights::F32(F32(w)))
}

impl Blocks for F32 {
    const OFFSET: bool = false;
    // Four bytes a weight in memory, more than Q8_0's, where one row at a time was measured.
    const DECODE_LOOP: DecodeLoop = DecodeLoop::OneRow;

    #[inline(always)]
    fn block(&self, i: usize) -> [F4; 8] {
        let b = &self.0[i * BLOCK..(i + 1) * BLOCK];
        [0, 4, 8, 12, 16, 20, 24, 28].map(|k| F4::load(&b[k..]))
    }

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        self.block(i)
    }

    #[inline(always)]
    fn scale(&self, _: usize) -> f32 {
        1.0
    }

    fn bytes(&self) -> usize {
        self.0.len() * 4
    }
}

//! The 5-bit legacy blocks, as in ggml's `block_q5_0` and `block_q5_1`: per block of 32
//! weights a scale d (and for Q5_1 an offset m), f16 each, then the fifth bits of the 32
//! values as a u32 (bit j = element j) and their low 4 bits as Q4's nibbles. Q5_0: value =
//! (q - 16) * d; Q5_1: value = q * d + m. Kept as a 4-bit and a 1-bit plane, as in the file;
//! Q5_0's planes hold q - 16 in `pair_bytes`' order instead, the fifth bits of four blocks
//! in one 16-byte plane (`pack_fives`), which decode unpacks with integer instructions
//! (`fives_paired`): under V8, a 1536 × 576 decode product ran 1.4× as fast as with the
//! table look-ups of `planes::bits` and float arithmetic to combine the planes. As for
//! Q8_0, its scale is then kept divided by `BYTE_PAIR`. Memory is as before: 16 + 4 bytes
//! of values per block.

use super::float::scale_at;
use super::planes::bits;
use super::q4::{nibble, nibbles_at};
use super::int16::{paired_place, IntegerBlocks};
use super::simd::{dot_fives_i16, fives_paired, pack_fives, BYTE_PAIR, F4};
use super::{Blocks, Weights, BLOCK};
use crate::error::Result;
use crate::memory::{with_capacity, zeros};

pub(super) struct Q5_0 {
    /// d / `BYTE_PAIR`.
    d: Vec<f32>,
    /// The fifth bits of blocks 4k..4k + 4 in planes[k] (`pack_fives`).
    planes: Vec<[u8; 16]>,
    qs: Vec<u8>,
}

pub(super) struct Q5_1 {
    d: Vec<f32>,
    m: Vec<f32>,
    qh: Vec<u32>,
    qs: Vec<u8>,
}

/// Reads the Q5_0 blocks of a tensor of `elems` weights (its byte count already checked).
pub(super) fn load_q5_0(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let n = elems / BLOCK;
    let (mut d, mut qs) = (with_capacity(n, name)?, with_capacity(n * 16, name)?);
    let mut planes: Vec<[u8; 16]> = zeros(n.div_ceil(4), name)?;
    for (i, block) in bytes.chunks_exact(22).enumerate() {
        d.push(scale_at(name, block, 0)? / BYTE_PAIR);
        let high = u32::from_le_bytes(block[2..6].try_into().unwrap());
        let q = std::array::from_fn(|j| {
            let nibble = if j < 16 { block[6 + j] & 15 } else { block[6 + j - 16] >> 4 };
            (nibble | ((high >> j) & 1) as u8 * 16) as i8 - 16
        });
        let (nibbles, fifth) = pack_fives(&q);
        for (p, f) in planes[i / 4].iter_mut().zip(fifth) {
            *p |= f << (2 * (i % 4));
        }
        qs.extend_from_slice(&nibbles);
    }
    Ok(Weights::Q5_0(Q5_0 { d, planes, qs }))
}

/// Reads the Q5_1 blocks of a tensor of `elems` weights (its byte count already checked).
pub(super) fn load_q5_1(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let n = elems / BLOCK;
    let (mut d, mut m) = (with_capacity(n, name)?, with_capacity(n, name)?);
    let (mut qh, mut qs) = (with_capacity(n, name)?, with_capacity(n * 16, name)?);
    for block in bytes.chunks_exact(24) {
        d.push(scale_at(name, block, 0)?);
        m.push(scale_at(name, block, 2)?);
        qh.push(u32::from_le_bytes(block[4..8].try_into().unwrap()));
        qs.extend_from_slice(&block[8..24]);
    }
    Ok(Weights::Q5_1(Q5_1 { d, m, qh, qs }))
}

/// Block `i`'s 5-bit values, 0..32: its nibbles plus 16 times its fifth bits.
#[inline(always)]
pub(super) fn five_bits(qs: &[u8], qh: u32, i: usize) -> [F4; 8] {
    let (lo, hi, sixteen) = (nibbles_at(qs, i), bits(qh), F4::splat(16.0));
    std::array::from_fn(|k| lo[k].add(hi[k].mul(sixteen)))
}

/// ggml's arithmetic, `(q - 16) * d`, is `Blocks::block`'s `raw · scale`: both factors here
/// are ggml's times and divided by the same power of two, so the products are the same to the bit.
impl Blocks for Q5_0 {
    const OFFSET: bool = false;

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        fives_paired(self.qs[i * 16..(i + 1) * 16].try_into().unwrap(), &self.planes[i / 4], i % 4)
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i]
    }

    fn bytes(&self) -> usize {
        self.d.len() * 4 + self.planes.len() * 16 + self.qs.len()
    }
}

/// The integer values are q - 16; `raw`'s are those times `BYTE_PAIR`, so the scale is d again.
impl IntegerBlocks for Q5_0 {
    const PAIRED: bool = true;

    #[inline(always)]
    fn dot_i16(&self, i: usize, x: &[i16; 32]) -> F4 {
        dot_fives_i16(&self.qs.as_chunks::<16>().0[i], &self.planes[i / 4], i % 4, x)
    }

    #[inline(always)]
    fn integer_scale(&self, i: usize) -> f32 {
        self.d[i] * BYTE_PAIR
    }

    /// `pack_fives`' byte at element j's place: its nibble, minus 16 where its fifth bit is clear.
    fn integer_value(&self, i: usize, j: usize) -> f32 {
        let p = paired_place(j);
        let bit = (self.planes[i / 4][p % 16] >> (2 * (i % 4) + p / 16)) & 1;
        (nibble(&self.qs, i, p) as i32 - if bit == 0 { 16 } else { 0 }) as f32
    }
}

impl Blocks for Q5_1 {
    const OFFSET: bool = true;

    /// ggml's arithmetic: `q * d + m`.
    #[inline(always)]
    fn block(&self, i: usize) -> [F4; 8] {
        let (d, m) = (F4::splat(self.d[i]), F4::splat(self.m[i]));
        self.raw(i).map(|x| x.mul(d).add(m))
    }

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        five_bits(&self.qs, self.qh[i], i)
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
        (self.d.len() + self.m.len() + self.qh.len()) * 4 + self.qs.len()
    }
}

//! The K-quants, as in ggml's `block_q2_K` … `block_q6_K`: super-blocks of 256 weights
//! with one f16 scale d (and for Q2_K, Q4_K, Q5_K an f16 dmin), split into sub-blocks of
//! 16 or 32 weights that each have a small integer scale (and min). Loading unpacks each
//! super-block's scattered bit fields once, following ggml's `dequantize_row_q*_K`, and
//! keeps per 32-weight block the integer values in bit planes (`planes.rs`) and the
//! integer sub-scales as bytes, so memory stays near the file's size. A block's value is
//! then computed as ggml computes it. Where ggml multiplies `(d * sc) * q`, we compute
//! `d * (sc * q)`: `d * sc` is exact in f32 (an f16 times an integer below 2^8), so both
//! are the one rounding of the exact product and agree to the bit.

use super::float::scale_at;
use super::planes::{bits, pack_bits, pack_nibbles, pack_pairs, pairs, scale_halves};
use super::q4::nibbles_at;
use super::simd::F4;
use super::{Blocks, Weights, BLOCK};
use crate::error::Result;
use crate::memory::with_capacity;

/// Weights per super-block.
pub(super) const QK_K: usize = 256;
/// 32-weight blocks per super-block.
const PER_SUPER: usize = QK_K / BLOCK;

/// Q2_K: per 16 weights a byte of 4-bit scale (low) and 4-bit min (high);
/// value = d·sc·q − dmin·m, q in 0..4.
pub(super) struct Q2K {
    d: Vec<f32>,
    dmin: Vec<f32>,
    /// Two bytes per block, as in the file.
    sc: Vec<u8>,
    q: Vec<u8>,
}

/// Q3_K: per 16 weights a 6-bit scale (stored minus 32 here, as ggml uses it);
/// value = d·(sc − 32)·q, q = low 2 bits − 4 when the high bit is clear, in −4..4.
pub(super) struct Q3K {
    d: Vec<f32>,
    sc: Vec<i8>,
    lo: Vec<u8>,
    hi: Vec<u32>,
}

/// Q4_K and Q5_K: per 32 weights a 6-bit scale and a 6-bit min; value = d·sc·q − dmin·m,
/// q 4 bits (Q4_K), or 5 with a 1-bit plane (`hi`, Q5_K).
pub(super) struct Q45K {
    d: Vec<f32>,
    dmin: Vec<f32>,
    sc: Vec<u8>,
    m: Vec<u8>,
    q: Vec<u8>,
    hi: Option<Vec<u32>>,
}

/// Q6_K: per 16 weights an i8 scale; value = d·sc·(q − 32), q 6 bits (4-bit plane + 2-bit plane).
pub(super) struct Q6K {
    d: Vec<f32>,
    sc: Vec<i8>,
    lo: Vec<u8>,
    hi: Vec<u8>,
}

/// Scale and min `j` (0..8) of a Q4_K / Q5_K super-block's 12 packed scale bytes, as ggml's
/// `get_scale_min_k4`: 6 bits each, the first four plain, the last four split.
fn scale_min_k4(j: usize, s: &[u8]) -> (u8, u8) {
    if j < 4 {
        (s[j] & 63, s[j + 4] & 63)
    } else {
        ((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4), (s[j + 4] >> 4) | ((s[j] >> 6) << 4))
    }
}

/// Scale `j` (0..16) of a Q3_K super-block's 12 packed scale bytes, 0..64: low 4 bits from
/// bytes 0..8 (low nibbles first), high 2 bits from bytes 8..12.
fn scale_q3k(j: usize, s: &[u8]) -> u8 {
    let low = if j < 8 { s[j] & 0xF } else { s[j - 8] >> 4 };
    let high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    low | high << 4
}

pub(super) fn load_q2k(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let (n, supers) = (elems / BLOCK, elems / QK_K);
    let (mut d, mut dmin) = (with_capacity(supers, name)?, with_capacity(supers, name)?);
    let (mut sc, mut q) = (with_capacity(n * 2, name)?, with_capacity(n * 8, name)?);
    for sb in bytes.chunks_exact(84) {
        let qs = &sb[16..80];
        d.push(scale_at(name, sb, 80)?);
        dmin.push(scale_at(name, sb, 82)?);
        sc.extend_from_slice(&sb[..16]);
        // Block b = 4c + g of 128-weight chunk c takes bits 2g of that chunk's 32 bytes.
        for b in 0..PER_SUPER {
            let (c, g) = (b / 4, b % 4);
            let v: [u8; BLOCK] = std::array::from_fn(|e| qs[32 * c + e] >> (2 * g));
            q.extend_from_slice(&pack_pairs(&v));
        }
    }
    Ok(Weights::Q2K(Q2K { d, dmin, sc, q }))
}

pub(super) fn load_q3k(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let (n, supers) = (elems / BLOCK, elems / QK_K);
    let mut d = with_capacity(supers, name)?;
    let (mut sc, mut lo, mut hi) = (with_capacity(n * 2, name)?, with_capacity(n * 8, name)?, with_capacity(n, name)?);
    for sb in bytes.chunks_exact(110) {
        let (hmask, qs, scales) = (&sb[..32], &sb[32..96], &sb[96..108]);
        d.push(scale_at(name, sb, 108)?);
        sc.extend((0..16).map(|j| scale_q3k(j, scales) as i8 - 32));
        // Block b = 4c + g: bits 2g of chunk c's 32 bytes, and bit b of the 32 mask bytes.
        for b in 0..PER_SUPER {
            let (c, g) = (b / 4, b % 4);
            let v: [u8; BLOCK] = std::array::from_fn(|e| qs[32 * c + e] >> (2 * g));
            let h: [u8; BLOCK] = std::array::from_fn(|e| hmask[e] >> b);
            lo.extend_from_slice(&pack_pairs(&v));
            hi.push(pack_bits(&h));
        }
    }
    Ok(Weights::Q3K(Q3K { d, sc, lo, hi }))
}

/// Q4_K (`five` false, 144-byte super-blocks) or Q5_K (176 bytes).
pub(super) fn load_q45k(name: &str, elems: usize, bytes: &[u8], five: bool) -> Result<Weights> {
    let (n, supers) = (elems / BLOCK, elems / QK_K);
    let (mut d, mut dmin) = (with_capacity(supers, name)?, with_capacity(supers, name)?);
    let (mut sc, mut m, mut q) = (with_capacity(n, name)?, with_capacity(n, name)?, with_capacity(n * 16, name)?);
    let mut hi = if five { Some(with_capacity(n, name)?) } else { None };
    let (size, qs_at) = if five { (176, 48) } else { (144, 16) };
    for sb in bytes.chunks_exact(size) {
        d.push(scale_at(name, sb, 0)?);
        dmin.push(scale_at(name, sb, 2)?);
        let (scales, qs) = (&sb[4..16], &sb[qs_at..qs_at + 128]);
        // Block b takes the low (b even) or high (b odd) nibbles of bytes 32·(b/2).., and,
        // for Q5_K, bit b of the 32 bytes of fifth bits.
        for b in 0..PER_SUPER {
            let (s, min) = scale_min_k4(b, scales);
            sc.push(s);
            m.push(min);
            let v: [u8; BLOCK] = std::array::from_fn(|e| qs[32 * (b / 2) + e] >> (4 * (b % 2)));
            q.extend_from_slice(&pack_nibbles(&v));
            if let Some(hi) = &mut hi {
                let h: [u8; BLOCK] = std::array::from_fn(|e| sb[16 + e] >> b);
                hi.push(pack_bits(&h));
            }
        }
    }
    Ok(Weights::Q45K(Q45K { d, dmin, sc, m, q, hi }))
}

pub(super) fn load_q6k(name: &str, elems: usize, bytes: &[u8]) -> Result<Weights> {
    let (n, supers) = (elems / BLOCK, elems / QK_K);
    let mut d = with_capacity(supers, name)?;
    let (mut sc, mut lo, mut hi) =
        (with_capacity(n * 2, name)?, with_capacity(n * 16, name)?, with_capacity(n * 8, name)?);
    for sb in bytes.chunks_exact(210) {
        let (ql, qh) = (&sb[..128], &sb[128..192]);
        d.push(scale_at(name, sb, 208)?);
        sc.extend(sb[192..208].iter().map(|&s| s as i8));
        // Block b = 4c + g of 128-weight chunk c: low nibbles (g even) or high (g odd) of
        // bytes 64c + 32·(g % 2).., and bits 2g of chunk c's 32 high-bit bytes.
        for b in 0..PER_SUPER {
            let (c, g) = (b / 4, b % 4);
            let v: [u8; BLOCK] = std::array::from_fn(|e| ql[64 * c + 32 * (g % 2) + e] >> (4 * (g / 2)));
            let h: [u8; BLOCK] = std::array::from_fn(|e| qh[32 * c + e] >> (2 * g));
            lo.extend_from_slice(&pack_nibbles(&v));
            hi.extend_from_slice(&pack_pairs(&h));
        }
    }
    Ok(Weights::Q6K(Q6K { d, sc, lo, hi }))
}

impl Blocks for Q2K {
    const OFFSET: bool = true;

    /// ggml's arithmetic: `(d * sc) * q - dmin * m` per 16 weights.
    #[inline(always)]
    fn block(&self, i: usize) -> [F4; 8] {
        let min = self.dmin[i / PER_SUPER];
        let (m0, m1) =
            (F4::splat(-(min * (self.sc[2 * i] >> 4) as f32)), F4::splat(-(min * (self.sc[2 * i + 1] >> 4) as f32)));
        let d = F4::splat(self.d[i / PER_SUPER]);
        let raw = self.raw(i);
        std::array::from_fn(|k| raw[k].mul(d).add(if k < 4 { m0 } else { m1 }))
    }

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        let (s0, s1) = (self.sc[2 * i] & 15, self.sc[2 * i + 1] & 15);
        scale_halves(pairs(&self.q[8 * i..]), s0 as f32, s1 as f32)
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i / PER_SUPER]
    }

    #[inline(always)]
    fn offset(&self, i: usize, sums: [f32; 2]) -> f32 {
        let min = self.dmin[i / PER_SUPER];
        -(min * (self.sc[2 * i] >> 4) as f32 * sums[0] + min * (self.sc[2 * i + 1] >> 4) as f32 * sums[1])
    }

    fn bytes(&self) -> usize {
        (self.d.len() + self.dmin.len()) * 4 + self.sc.len() + self.q.len()
    }
}

/// ggml's arithmetic, `(d * (sc - 32)) * q` per 16 weights, is `Blocks::block`'s `raw · scale`.
impl Blocks for Q3K {
    const OFFSET: bool = false;

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        let (lo, hi) = (pairs(&self.lo[8 * i..]), bits(self.hi[i]));
        let (four, minus_four) = (F4::splat(4.0), F4::splat(-4.0));
        let q = std::array::from_fn(|k| lo[k].add(hi[k].mul(four)).add(minus_four));
        scale_halves(q, self.sc[2 * i] as f32, self.sc[2 * i + 1] as f32)
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i / PER_SUPER]
    }

    fn bytes(&self) -> usize {
        self.d.len() * 4 + self.sc.len() + self.lo.len() + self.hi.len() * 4
    }
}

impl Q45K {
    /// Whether these are Q5_K blocks (with the plane of fifth bits), not Q4_K.
    pub(super) fn is_q5k(&self) -> bool {
        self.hi.is_some()
    }
}

impl Blocks for Q45K {
    const OFFSET: bool = true;

    /// ggml's arithmetic: `(d * sc) * q - dmin * m`.
    #[inline(always)]
    fn block(&self, i: usize) -> [F4; 8] {
        let (d, m) = (F4::splat(self.scale(i)), F4::splat(-(self.dmin[i / PER_SUPER] * self.m[i] as f32)));
        self.raw(i).map(|x| x.mul(d).add(m))
    }

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        let lo = nibbles_at(&self.q, i);
        match &self.hi {
            None => lo,
            Some(hi) => {
                let (hi, sixteen) = (bits(hi[i]), F4::splat(16.0));
                std::array::from_fn(|k| lo[k].add(hi[k].mul(sixteen)))
            }
        }
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i / PER_SUPER] * self.sc[i] as f32
    }

    #[inline(always)]
    fn offset(&self, i: usize, sums: [f32; 2]) -> f32 {
        -(self.dmin[i / PER_SUPER] * self.m[i] as f32) * (sums[0] + sums[1])
    }

    fn bytes(&self) -> usize {
        (self.d.len() + self.dmin.len()) * 4
            + self.sc.len()
            + self.m.len()
            + self.q.len()
            + self.hi.as_ref().map_or(0, |h| h.len() * 4)
    }
}

/// ggml's arithmetic, `(d * sc) * (q - 32)` per 16 weights, is `Blocks::block`'s `raw · scale`.
impl Blocks for Q6K {
    const OFFSET: bool = false;

    #[inline(always)]
    fn raw(&self, i: usize) -> [F4; 8] {
        let (lo, hi) = (nibbles_at(&self.lo, i), pairs(&self.hi[8 * i..]));
        let (sixteen, minus_32) = (F4::splat(16.0), F4::splat(-32.0));
        let q = std::array::from_fn(|k| lo[k].add(hi[k].mul(sixteen)).add(minus_32));
        scale_halves(q, self.sc[2 * i] as f32, self.sc[2 * i + 1] as f32)
    }

    #[inline(always)]
    fn scale(&self, i: usize) -> f32 {
        self.d[i / PER_SUPER]
    }

    fn bytes(&self) -> usize {
        self.d.len() * 4 + self.sc.len() + self.lo.len() + self.hi.len()
    }
}

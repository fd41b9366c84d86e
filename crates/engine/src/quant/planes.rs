//! The bit planes that the block families keep their quantised values in, one 32-value
//! block at a time: 4-bit (`nibbles`: 16 bytes, low nibble = value j, high = j + 16), 2-bit
//! (`pairs`: 8 bytes, byte k holds values 4k..4k+4, two bits each from the lowest) and
//! 1-bit (`bits`: a u32, bit j = value j). A family whose values have 5 or 6 bits keeps a
//! 4-bit plane plus a 1- or 2-bit one, so memory stays close to the file's size. Loading
//! packs each block's integer values into its planes once (`pack_*`); the kernels unpack
//! them into `F4` lanes with table look-ups (`bits`, `pairs`), which need no integer
//! vector instructions and so run the same on wasm32 simd128, SSE2 and plain Rust.

use super::simd::F4;
use super::BLOCK;

/// The four 1-bit values of each 4-bit index, as f32 lanes.
static BITS: [[f32; 4]; 16] = {
    let mut t = [[0f32; 4]; 16];
    let mut i = 0;
    while i < 16 {
        let mut l = 0;
        while l < 4 {
            t[i][l] = ((i >> l) & 1) as f32;
            l += 1;
        }
        i += 1;
    }
    t
};

/// The four 2-bit values of each byte, as f32 lanes.
static PAIRS: [[f32; 4]; 256] = {
    let mut t = [[0f32; 4]; 256];
    let mut i = 0;
    while i < 256 {
        let mut l = 0;
        while l < 4 {
            t[i][l] = ((i >> (2 * l)) & 3) as f32;
            l += 1;
        }
        i += 1;
    }
    t
};

/// A block's 1-bit plane as 0.0 / 1.0 lanes.
#[inline(always)]
pub(super) fn bits(plane: u32) -> [F4; 8] {
    std::array::from_fn(|k| F4::load(&BITS[((plane >> (4 * k)) & 15) as usize]))
}

/// A block's 2-bit plane as 0.0..=3.0 lanes.
#[inline(always)]
pub(super) fn pairs(plane: &[u8]) -> [F4; 8] {
    std::array::from_fn(|k| F4::load(&PAIRS[plane[k] as usize]))
}

/// Packs 32 values of 4 bits (the low 4 bits of each `q`) into a 4-bit plane.
pub(super) fn pack_nibbles(q: &[u8; BLOCK]) -> [u8; 16] {
    std::array::from_fn(|j| (q[j] & 15) | (q[j + 16] & 15) << 4)
}

/// Packs 32 values of 2 bits (the low 2 bits of each `q`) into a 2-bit plane.
pub(super) fn pack_pairs(q: &[u8; BLOCK]) -> [u8; 8] {
    std::array::from_fn(|k| (0..4).fold(0u8, |acc, l| acc | (q[4 * k + l] & 3) << (2 * l)))
}

/// Packs 32 values of 1 bit (the low bit of each `q`) into a 1-bit plane.
pub(super) fn pack_bits(q: &[u8; BLOCK]) -> u32 {
    (0..BLOCK).fold(0u32, |acc, j| acc | u32::from(q[j] & 1) << j)
}

/// The lanes of `v` times `lo` for its first 16 values and `hi` for the last 16 (a pair of
/// 16-value sub-blocks with their own integer scales).
#[inline(always)]
pub(super) fn scale_halves(v: [F4; 8], lo: f32, hi: f32) -> [F4; 8] {
    let (lo, hi) = (F4::splat(lo), F4::splat(hi));
    std::array::from_fn(|k| v[k].mul(if k < 4 { lo } else { hi }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::simd::nibbles;

    fn lanes(v: [F4; 8]) -> Vec<f32> {
        let mut out = vec![0f32; BLOCK];
        for (k, x) in v.iter().enumerate() {
            x.store(&mut out[4 * k..]);
        }
        out
    }

    #[test]
    fn every_plane_unpacks_to_what_was_packed() {
        let q: [u8; BLOCK] = std::array::from_fn(|j| (j * 7 + 3) as u8 % 16);
        let want = |bits: u8| q.iter().map(|&v| (v & ((1 << bits) - 1)) as f32).collect::<Vec<_>>();
        assert_eq!(lanes(nibbles(&pack_nibbles(&q))), want(4));
        assert_eq!(lanes(pairs(&pack_pairs(&q))), want(2));
        assert_eq!(lanes(bits(pack_bits(&q))), want(1));
    }
}

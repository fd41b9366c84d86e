//! Four f32 lanes and the block unpackers the matmul needs, on wasm32 simd128, on
//! x86_64 SSE2, and in plain Rust elsewhere. The kernels in `quant/` are written once
//! against this; LLVM did not vectorise the plain-Rust version by itself (it kept the
//! lane arrays on the stack), which left the matmul scalar.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod arch {
    use core::arch::wasm32::*;

    #[derive(Clone, Copy)]
    pub struct F4(v128);

    impl F4 {
        #[inline(always)]
        pub fn zero() -> Self {
            Self(f32x4_splat(0.0))
        }
        #[inline(always)]
        pub fn splat(v: f32) -> Self {
            Self(f32x4_splat(v))
        }
        /// The first four values of `s`.
        #[inline(always)]
        pub fn load(s: &[f32]) -> Self {
            assert!(s.len() >= 4);
            // SAFETY: the assert keeps the 16-byte read inside `s`; v128_load allows any alignment.
            Self(unsafe { v128_load(s.as_ptr() as *const v128) })
        }
        #[inline(always)]
        pub fn store(self, s: &mut [f32]) {
            assert!(s.len() >= 4);
            // SAFETY: as in `load`.
            unsafe { v128_store(s.as_mut_ptr() as *mut v128, self.0) }
        }
        #[inline(always)]
        pub fn add(self, o: Self) -> Self {
            Self(f32x4_add(self.0, o.0))
        }
        #[inline(always)]
        pub fn mul(self, o: Self) -> Self {
            Self(f32x4_mul(self.0, o.0))
        }
        #[inline(always)]
        pub fn sum(self) -> f32 {
            (f32x4_extract_lane::<0>(self.0) + f32x4_extract_lane::<1>(self.0))
                + (f32x4_extract_lane::<2>(self.0) + f32x4_extract_lane::<3>(self.0))
        }
    }

    /// u32 lanes of a u16x8 (low or high half) as f32.
    #[inline(always)]
    fn u16_to_f32(v: v128) -> [F4; 2] {
        [F4(f32x4_convert_u32x4(u32x4_extend_low_u16x8(v))), F4(f32x4_convert_u32x4(u32x4_extend_high_u16x8(v)))]
    }

    /// The 32 values of a Q4_1 block (low nibbles are elements 0..16, high 16..32) as
    /// plain numbers 0..15.
    #[inline(always)]
    pub fn nibbles(qs: &[u8; 16]) -> [F4; 8] {
        // SAFETY: a 16-byte read of a 16-byte array.
        let v = unsafe { v128_load(qs.as_ptr() as *const v128) };
        let lo = v128_and(v, u8x16_splat(0x0F));
        let hi = u8x16_shr(v, 4);
        let [a, b] = u16_to_f32(u16x8_extend_low_u8x16(lo));
        let [c, d] = u16_to_f32(u16x8_extend_high_u8x16(lo));
        let [e, f] = u16_to_f32(u16x8_extend_low_u8x16(hi));
        let [g, h] = u16_to_f32(u16x8_extend_high_u8x16(hi));
        [a, b, c, d, e, f, g, h]
    }

    /// The 32 signed values of a block laid out by `pair_bytes`, each times `BYTE_PAIR`.
    /// Each 8 bytes are sign-extended to i16 as they are loaded (one instruction); an i16
    /// in the high half of an i32 lane is that value times 2^16, so a shift (even bytes)
    /// or a mask (odd bytes) makes four i32 lanes, where sign-extending i16 → i32 again
    /// took up to two instructions per four values.
    #[inline(always)]
    pub fn bytes_paired(qs: &[i8; 32]) -> [F4; 8] {
        let high = i32x4_splat(0xFFFF_0000u32 as i32);
        let eight = |k: usize| {
            // SAFETY: an 8-byte read at 8k < 32, inside the array.
            let w = unsafe { i16x8_load_extend_i8x8(qs.as_ptr().add(8 * k)) };
            [F4(f32x4_convert_i32x4(i32x4_shl(w, 16))), F4(f32x4_convert_i32x4(v128_and(w, high)))]
        };
        let ([a, b], [c, d], [e, f], [g, h]) = (eight(0), eight(1), eight(2), eight(3));
        [a, b, c, d, e, f, g, h]
    }

    /// Σ q·x over a block of 32 i8 weights and 32 i16 activations in the same order, as the
    /// four i32 lane sums of `i32x4.dot_i16x8_s` (lane l: values 2l and 2l + 1 of each 8),
    /// converted to f32. The weights are sign-extended to i16 as they are loaded.
    #[inline(always)]
    pub fn dot_i8_i16(qs: &[i8; 32], x: &[i16; 32]) -> F4 {
        // SAFETY: 8-byte reads of `qs` and 16-byte reads of `x` at element 8k < 32, inside both arrays.
        let eight = |k: usize| unsafe {
            let w = i16x8_load_extend_i8x8(qs.as_ptr().add(8 * k));
            i32x4_dot_i16x8(w, v128_load(x.as_ptr().add(8 * k) as *const v128))
        };
        F4(f32x4_convert_i32x4(i32x4_add(i32x4_add(eight(0), eight(1)), i32x4_add(eight(2), eight(3)))))
    }

    /// `dot_i8_i16` of a block held as two i8x16: values 0..16 in `lo`, 16..32 in `hi`.
    #[inline(always)]
    fn dot_halves_i16(lo: v128, hi: v128, x: &[i16; 32]) -> F4 {
        // SAFETY: 16-byte reads of `x` at element 8k < 32, inside the array.
        let xs = |k: usize| unsafe { v128_load(x.as_ptr().add(8 * k) as *const v128) };
        let (a, b) = (i32x4_dot_i16x8(i16x8_extend_low_i8x16(lo), xs(0)), i32x4_dot_i16x8(i16x8_extend_high_i8x16(lo), xs(1)));
        let (c, d) = (i32x4_dot_i16x8(i16x8_extend_low_i8x16(hi), xs(2)), i32x4_dot_i16x8(i16x8_extend_high_i8x16(hi), xs(3)));
        F4(f32x4_convert_i32x4(i32x4_add(i32x4_add(a, b), i32x4_add(c, d))))
    }

    /// `dot_i8_i16` of a Q4 block's nibbles minus `minus` (8 for Q4_0, 0 for Q4_1), in the
    /// block's own order.
    #[inline(always)]
    pub fn dot_nibbles_i16(qs: &[u8; 16], minus: i8, x: &[i16; 32]) -> F4 {
        // SAFETY: a 16-byte read of a 16-byte array.
        let v = unsafe { v128_load(qs.as_ptr() as *const v128) };
        let m = i8x16_splat(minus);
        dot_halves_i16(i8x16_sub(v128_and(v, u8x16_splat(0x0F)), m), i8x16_sub(u8x16_shr(v, 4), m), x)
    }

    /// A `pack_fives` block's bytes (values 0..16 and 16..32 in `pair_bytes`' order): each
    /// nibble, with 0xF0 where its fifth bit (in `plane`, as block `g` of its group) is clear,
    /// so that it reads as the nibble minus 16.
    #[inline(always)]
    fn fives(qs: &[u8; 16], plane: &[u8; 16], g: usize) -> [v128; 2] {
        // SAFETY: a 16-byte read of a 16-byte array.
        let load = |b: &[u8; 16]| unsafe { v128_load(b.as_ptr() as *const v128) };
        let (v, p) = (load(qs), load(plane));
        let minus16 = |bit: &[u8; 16]| v128_and(i8x16_eq(v128_and(p, load(bit)), u8x16_splat(0)), u8x16_splat(0xF0));
        let lo = v128_or(v128_and(v, u8x16_splat(0x0F)), minus16(&super::FIFTH_BITS[2 * (g & 3)]));
        [lo, v128_or(u8x16_shr(v, 4), minus16(&super::FIFTH_BITS[2 * (g & 3) + 1]))]
    }

    /// `dot_i8_i16` of a `pack_fives` block (`fives`' bytes, as `fives_paired` reads them).
    #[inline(always)]
    pub fn dot_fives_i16(qs: &[u8; 16], plane: &[u8; 16], g: usize, x: &[i16; 32]) -> F4 {
        let [lo, hi] = fives(qs, plane, g);
        dot_halves_i16(lo, hi, x)
    }

    /// The 32 signed values of a `pack_fives` block, each times `BYTE_PAIR`: the nibbles
    /// become bytes, a byte whose fifth bit (in `plane`, as block `g` of its group) is clear
    /// gets 0xF0, so that it reads as the nibble minus 16, and the bytes, in `pair_bytes`'
    /// order, are unpacked as there.
    #[inline(always)]
    pub fn fives_paired(qs: &[u8; 16], plane: &[u8; 16], g: usize) -> [F4; 8] {
        let [lo, hi] = fives(qs, plane, g);
        let high = i32x4_splat(0xFFFF_0000u32 as i32);
        let split = |w: v128| [F4(f32x4_convert_i32x4(i32x4_shl(w, 16))), F4(f32x4_convert_i32x4(v128_and(w, high)))];
        let ([a, b], [c, d]) = (split(i16x8_extend_low_i8x16(lo)), split(i16x8_extend_high_i8x16(lo)));
        let ([e, f], [g, h]) = (split(i16x8_extend_low_i8x16(hi)), split(i16x8_extend_high_i8x16(hi)));
        [a, b, c, d, e, f, g, h]
    }
}

#[cfg(target_arch = "x86_64")]
mod arch {
    use core::arch::x86_64::*;

    #[derive(Clone, Copy)]
    pub struct F4(__m128);

    // SAFETY (whole module): SSE2 is part of the x86_64 baseline, so these intrinsics are
    // always available; loads and stores are unaligned and bounds-checked by asserts.
    impl F4 {
        #[inline(always)]
        pub fn zero() -> Self {
            Self(unsafe { _mm_setzero_ps() })
        }
        #[inline(always)]
        pub fn splat(v: f32) -> Self {
            Self(unsafe { _mm_set1_ps(v) })
        }
        #[inline(always)]
        pub fn load(s: &[f32]) -> Self {
            assert!(s.len() >= 4);
            Self(unsafe { _mm_loadu_ps(s.as_ptr()) })
        }
        #[inline(always)]
        pub fn store(self, s: &mut [f32]) {
            assert!(s.len() >= 4);
            unsafe { _mm_storeu_ps(s.as_mut_ptr(), self.0) }
        }
        #[inline(always)]
        pub fn add(self, o: Self) -> Self {
            Self(unsafe { _mm_add_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub fn mul(self, o: Self) -> Self {
            Self(unsafe { _mm_mul_ps(self.0, o.0) })
        }
        #[inline(always)]
        pub fn sum(self) -> f32 {
            let mut a = [0f32; 4];
            self.store(&mut a);
            (a[0] + a[1]) + (a[2] + a[3])
        }
    }

    /// Eight u16 (or i16, with `signed`) lanes as two f32x4.
    #[inline(always)]
    fn w16_to_f32(v: __m128i, signed: bool) -> [F4; 2] {
        unsafe {
            let ext = if signed { _mm_srai_epi16(v, 15) } else { _mm_setzero_si128() };
            [F4(_mm_cvtepi32_ps(_mm_unpacklo_epi16(v, ext))), F4(_mm_cvtepi32_ps(_mm_unpackhi_epi16(v, ext)))]
        }
    }

    #[inline(always)]
    pub fn nibbles(qs: &[u8; 16]) -> [F4; 8] {
        unsafe {
            let v = _mm_loadu_si128(qs.as_ptr() as *const __m128i);
            let mask = _mm_set1_epi8(0x0F);
            let lo = _mm_and_si128(v, mask);
            let hi = _mm_and_si128(_mm_srli_epi16(v, 4), mask);
            let z = _mm_setzero_si128();
            let [a, b] = w16_to_f32(_mm_unpacklo_epi8(lo, z), false);
            let [c, d] = w16_to_f32(_mm_unpackhi_epi8(lo, z), false);
            let [e, f] = w16_to_f32(_mm_unpacklo_epi8(hi, z), false);
            let [g, h] = w16_to_f32(_mm_unpackhi_epi8(hi, z), false);
            [a, b, c, d, e, f, g, h]
        }
    }

    /// As on wasm32: i16 lanes, then the even ones shifted and the odd ones masked into
    /// the high half of i32 lanes.
    #[inline(always)]
    pub fn bytes_paired(qs: &[i8; 32]) -> [F4; 8] {
        unsafe {
            let high = _mm_set1_epi32(0xFFFF_0000u32 as i32);
            let split =
                |w: __m128i| [F4(_mm_cvtepi32_ps(_mm_slli_epi32(w, 16))), F4(_mm_cvtepi32_ps(_mm_and_si128(w, high)))];
            // Sign-extend i8 to i16: put each byte in the high half, shift it back down.
            let widen =
                |v: __m128i| [_mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8), _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8)];
            let [w0, w1] = widen(_mm_loadu_si128(qs.as_ptr() as *const __m128i));
            let [w2, w3] = widen(_mm_loadu_si128(qs.as_ptr().add(16) as *const __m128i));
            let ([a, b], [c, d], [e, f], [g, h]) = (split(w0), split(w1), split(w2), split(w3));
            [a, b, c, d, e, f, g, h]
        }
    }

    /// As on wasm32: `_mm_madd_epi16` sums the same pairs as `i32x4.dot_i16x8_s`.
    #[inline(always)]
    pub fn dot_i8_i16(qs: &[i8; 32], x: &[i16; 32]) -> F4 {
        unsafe {
            let load = |k: usize| _mm_loadu_si128(qs.as_ptr().add(16 * k) as *const __m128i);
            dot_halves_i16(load(0), load(1), x)
        }
    }

    /// As on wasm32.
    #[inline(always)]
    fn dot_halves_i16(lo: __m128i, hi: __m128i, x: &[i16; 32]) -> F4 {
        unsafe {
            let widen =
                |v: __m128i| [_mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8), _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8)];
            let ([w0, w1], [w2, w3]) = (widen(lo), widen(hi));
            let xs = |k: usize| _mm_loadu_si128(x.as_ptr().add(8 * k) as *const __m128i);
            let (a, b) = (_mm_madd_epi16(w0, xs(0)), _mm_madd_epi16(w1, xs(1)));
            let (c, d) = (_mm_madd_epi16(w2, xs(2)), _mm_madd_epi16(w3, xs(3)));
            F4(_mm_cvtepi32_ps(_mm_add_epi32(_mm_add_epi32(a, b), _mm_add_epi32(c, d))))
        }
    }

    /// As on wasm32.
    #[inline(always)]
    pub fn dot_nibbles_i16(qs: &[u8; 16], minus: i8, x: &[i16; 32]) -> F4 {
        unsafe {
            let (v, nib, m) = (_mm_loadu_si128(qs.as_ptr() as *const __m128i), _mm_set1_epi8(0x0F), _mm_set1_epi8(minus));
            let lo = _mm_sub_epi8(_mm_and_si128(v, nib), m);
            let hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(v, 4), nib), m);
            dot_halves_i16(lo, hi, x)
        }
    }

    /// As on wasm32.
    #[inline(always)]
    fn fives(qs: &[u8; 16], plane: &[u8; 16], g: usize) -> [__m128i; 2] {
        unsafe {
            let load = |b: &[u8; 16]| _mm_loadu_si128(b.as_ptr() as *const __m128i);
            let (v, p, nib) = (load(qs), load(plane), _mm_set1_epi8(0x0F));
            let minus16 = |bit: &[u8; 16]| {
                let clear = _mm_cmpeq_epi8(_mm_and_si128(p, load(bit)), _mm_setzero_si128());
                _mm_and_si128(clear, _mm_set1_epi8(0xF0u8 as i8))
            };
            let lo = _mm_or_si128(_mm_and_si128(v, nib), minus16(&super::FIFTH_BITS[2 * (g & 3)]));
            [lo, _mm_or_si128(_mm_and_si128(_mm_srli_epi16(v, 4), nib), minus16(&super::FIFTH_BITS[2 * (g & 3) + 1]))]
        }
    }

    /// As on wasm32.
    #[inline(always)]
    pub fn dot_fives_i16(qs: &[u8; 16], plane: &[u8; 16], g: usize, x: &[i16; 32]) -> F4 {
        let [lo, hi] = fives(qs, plane, g);
        dot_halves_i16(lo, hi, x)
    }

    /// As on wasm32.
    #[inline(always)]
    pub fn fives_paired(qs: &[u8; 16], plane: &[u8; 16], g: usize) -> [F4; 8] {
        unsafe {
            let [lo, hi] = fives(qs, plane, g);
            let high = _mm_set1_epi32(0xFFFF_0000u32 as i32);
            let split =
                |w: __m128i| [F4(_mm_cvtepi32_ps(_mm_slli_epi32(w, 16))), F4(_mm_cvtepi32_ps(_mm_and_si128(w, high)))];
            let widen =
                |v: __m128i| [_mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8), _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8)];
            let ([w0, w1], [w2, w3]) = (widen(lo), widen(hi));
            let ([a, b], [c, d], [e, f], [g, h]) = (split(w0), split(w1), split(w2), split(w3));
            [a, b, c, d, e, f, g, h]
        }
    }

    /// Two `F4`s side by side in one AVX register (two activation rows at once, natively):
    /// each lane does exactly what an `F4` lane would, so results are bit-identical to the
    /// `F4` arithmetic, at twice the width. Callers check `has_avx` first.
    #[derive(Clone, Copy)]
    pub struct F8(__m256);

    impl F8 {
        #[inline]
        #[target_feature(enable = "avx")]
        pub fn zero() -> Self {
            Self(_mm256_setzero_ps())
        }
        #[inline]
        #[target_feature(enable = "avx")]
        pub fn splat(v: f32) -> Self {
            Self(_mm256_set1_ps(v))
        }
        /// The same four lanes in both halves.
        #[inline]
        #[target_feature(enable = "avx")]
        pub fn twice(v: F4) -> Self {
            Self(_mm256_set_m128(v.0, v.0))
        }
        #[inline]
        #[target_feature(enable = "avx")]
        pub fn load(s: &[f32]) -> Self {
            assert!(s.len() >= 8);
            Self(unsafe { _mm256_loadu_ps(s.as_ptr()) })
        }
        #[inline]
        #[target_feature(enable = "avx")]
        pub fn add(self, o: Self) -> Self {
            Self(_mm256_add_ps(self.0, o.0))
        }
        #[inline]
        #[target_feature(enable = "avx")]
        pub fn mul(self, o: Self) -> Self {
            Self(_mm256_mul_ps(self.0, o.0))
        }
        #[inline]
        #[target_feature(enable = "avx")]
        pub fn halves(self) -> [F4; 2] {
            [F4(_mm256_castps256_ps128(self.0)), F4(_mm256_extractf128_ps::<1>(self.0))]
        }
    }

    pub fn has_avx() -> bool {
        is_x86_feature_detected!("avx")
    }
}

#[cfg(not(any(all(target_arch = "wasm32", target_feature = "simd128"), target_arch = "x86_64")))]
mod arch {
    #[derive(Clone, Copy)]
    pub struct F4([f32; 4]);

    impl F4 {
        pub fn zero() -> Self {
            Self([0.0; 4])
        }
        pub fn splat(v: f32) -> Self {
            Self([v; 4])
        }
        pub fn load(s: &[f32]) -> Self {
            Self([s[0], s[1], s[2], s[3]])
        }
        pub fn store(self, s: &mut [f32]) {
            s[..4].copy_from_slice(&self.0)
        }
        pub fn add(self, o: Self) -> Self {
            Self(std::array::from_fn(|i| self.0[i] + o.0[i]))
        }
        pub fn mul(self, o: Self) -> Self {
            Self(std::array::from_fn(|i| self.0[i] * o.0[i]))
        }
        pub fn sum(self) -> f32 {
            (self.0[0] + self.0[1]) + (self.0[2] + self.0[3])
        }
    }

    pub fn nibbles(qs: &[u8; 16]) -> [F4; 8] {
        std::array::from_fn(|v| {
            let j = (v % 4) * 4;
            let shift = if v < 4 { 0 } else { 4 };
            F4(std::array::from_fn(|l| ((qs[j + l] >> shift) & 0x0F) as f32))
        })
    }

    pub fn bytes_paired(qs: &[i8; 32]) -> [F4; 8] {
        std::array::from_fn(|k| F4(std::array::from_fn(|l| (qs[8 * (k / 2) + 2 * l + k % 2] as i32 * 65536) as f32)))
    }

    pub fn dot_i8_i16(qs: &[i8; 32], x: &[i16; 32]) -> F4 {
        let pair = |j: usize| qs[j] as i32 * x[j] as i32 + qs[j + 1] as i32 * x[j + 1] as i32;
        F4(std::array::from_fn(|l| (0..4).map(|k| pair(8 * k + 2 * l)).sum::<i32>() as f32))
    }

    pub fn dot_nibbles_i16(qs: &[u8; 16], minus: i8, x: &[i16; 32]) -> F4 {
        let q: [i8; 32] = std::array::from_fn(|j| (if j < 16 { qs[j] & 15 } else { qs[j - 16] >> 4 }) as i8 - minus);
        dot_i8_i16(&q, x)
    }

    pub fn dot_fives_i16(qs: &[u8; 16], plane: &[u8; 16], g: usize, x: &[i16; 32]) -> F4 {
        dot_i8_i16(&fives(qs, plane, g), x)
    }

    /// A `pack_fives` block's 32 signed values, in `pair_bytes`' order.
    fn fives(qs: &[u8; 16], plane: &[u8; 16], g: usize) -> [i8; 32] {
        std::array::from_fn(|j| {
            let (nibble, bit) = if j < 16 { (qs[j] & 15, 2 * (g & 3)) } else { (qs[j - 16] >> 4, 2 * (g & 3) + 1) };
            (nibble | if ((plane[j % 16] >> bit) & 1) == 0 { 0xF0 } else { 0 }) as i8
        })
    }

    pub fn fives_paired(qs: &[u8; 16], plane: &[u8; 16], g: usize) -> [F4; 8] {
        bytes_paired(&fives(qs, plane, g))
    }
}

pub use arch::{bytes_paired, dot_fives_i16, dot_i8_i16, dot_nibbles_i16, fives_paired, nibbles, F4};

/// What `bytes_paired` multiplies each value by: placing an i16 in the high half of an i32
/// lane is cheaper than sign-extending it. The products are exact in f32, and a power of
/// two commutes with rounding, so a block scale divided by `BYTE_PAIR` gives the same
/// results to the bit.
pub const BYTE_PAIR: f32 = 65536.0;

/// A block of 32 values in the order `bytes_paired` reads: in each 8, values 4k..4k+4 at
/// the even places and 4k+4..4k+8 at the odd ones. (Activations for `dot_i8_i16` go in the
/// same order as the Q8_0 weights they meet.)
pub fn pair_bytes<T: Copy>(q: &[T; 32]) -> [T; 32] {
    std::array::from_fn(|j| q[8 * (j / 8) + 4 * (j % 2) + (j % 8) / 2])
}

/// A block of 32 values -16..=15 as `fives_paired` reads it: in `pair_bytes`' order, byte
/// j's low 4 bits in the low nibble of the first array's byte j (j < 16) or the high nibble
/// of its byte j - 16, and its fifth bit (set for 0..=15) in bit 0 (j < 16) or bit 1 of the
/// second array's byte j mod 16. Four blocks share a plane, block g's bits shifted by 2g:
/// `fives_paired` then picks each byte's bit with one mask, where one u32 of bits per
/// block needed two byte shuffles to spread them (12 % slower under V8).
pub fn pack_fives(q: &[i8; 32]) -> ([u8; 16], [u8; 16]) {
    let p = pair_bytes(q).map(|v| v as u8);
    let fifth = |v: u8| u8::from((v & 0x80) == 0);
    (
        std::array::from_fn(|j| (p[j] & 15) | (p[j + 16] & 15) << 4),
        std::array::from_fn(|j| fifth(p[j]) | fifth(p[j + 16]) << 1),
    )
}

/// `fives_paired`'s masks: `FIFTH_BITS[k]` has bit k in every byte.
static FIFTH_BITS: [[u8; 16]; 8] = {
    let mut t = [[0u8; 16]; 8];
    let mut k = 0;
    while k < 8 {
        t[k] = [1 << k; 16];
        k += 1;
    }
    t
};

#[cfg(target_arch = "x86_64")]
pub use arch::{has_avx, F8};

/// Σ a[i]·b[i] for slices whose length is a multiple of 4, in four lanes.
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [F4::zero(); 2];
    let mut i = 0;
    while i + 8 <= a.len() {
        acc[0] = acc[0].add(F4::load(&a[i..]).mul(F4::load(&b[i..])));
        acc[1] = acc[1].add(F4::load(&a[i + 4..]).mul(F4::load(&b[i + 4..])));
        i += 8;
    }
    let mut s = acc[0].add(acc[1]).sum();
    while i < a.len() {
        s += a[i] * b[i];
        i += 1;
    }
    s
}

/// y[i] += w · x[i].
#[inline(always)]
pub fn axpy(w: f32, x: &[f32], y: &mut [f32]) {
    let wv = F4::splat(w);
    let mut i = 0;
    while i + 4 <= x.len() {
        F4::load(&y[i..]).add(wv.mul(F4::load(&x[i..]))).store(&mut y[i..]);
        i += 4;
    }
    while i < x.len() {
        y[i] += w * x[i];
        i += 1;
    }
}

/// `out[p] = dot(a, x[p·stride..][..a.len()])` for each p: attention's scores of one query
/// against consecutive cached keys. Four keys at a time, so that four independent sums are
/// in flight instead of one chain; each key's sum is formed in `dot`'s own order, so the
/// scores are the same to the bit.
#[inline(always)]
pub fn dots(a: &[f32], x: &[f32], stride: usize, out: &mut [f32]) {
    let n = a.len();
    let mut groups = out.chunks_exact_mut(4);
    let mut p = 0;
    for o in &mut groups {
        let rows: [&[f32]; 4] = std::array::from_fn(|j| &x[(p + j) * stride..][..n]);
        let mut acc = [[F4::zero(); 2]; 4];
        let mut i = 0;
        while i + 8 <= n {
            let (a0, a1) = (F4::load(&a[i..]), F4::load(&a[i + 4..]));
            for (acc, row) in acc.iter_mut().zip(rows) {
                acc[0] = acc[0].add(a0.mul(F4::load(&row[i..])));
                acc[1] = acc[1].add(a1.mul(F4::load(&row[i + 4..])));
            }
            i += 8;
        }
        for ((o, acc), row) in o.iter_mut().zip(acc).zip(rows) {
            let mut s = acc[0].add(acc[1]).sum();
            for k in i..n {
                s += a[k] * row[k];
            }
            *o = s;
        }
        p += 4;
    }
    for o in groups.into_remainder() {
        *o = dot(a, &x[p * stride..][..n]);
        p += 1;
    }
}

/// `out = Σ_p w[p] · x[p·stride..][..out.len()]`: attention's weighted sum of cached values.
/// 32 outputs at a time stay in registers across all positions, instead of being loaded
/// and stored once per position as `axpy` would; each output is summed in `axpy`'s order
/// (from zero, position by position), so the result is the same to the bit.
#[inline(always)]
pub fn weighted_sum(w: &[f32], x: &[f32], stride: usize, out: &mut [f32]) {
    let mut blocks = out.chunks_exact_mut(32);
    let mut at = 0;
    for o in &mut blocks {
        let mut acc = [F4::zero(); 8];
        for (p, &wp) in w.iter().enumerate() {
            let (wv, row) = (F4::splat(wp), &x[p * stride + at..][..32]);
            for (j, acc) in acc.iter_mut().enumerate() {
                *acc = acc.add(wv.mul(F4::load(&row[j * 4..])));
            }
        }
        for (j, acc) in acc.into_iter().enumerate() {
            acc.store(&mut o[j * 4..]);
        }
        at += 32;
    }
    let rest = blocks.into_remainder();
    rest.fill(0.0);
    let len = rest.len();
    for (p, &wp) in w.iter().enumerate() {
        axpy(wp, &x[p * stride + at..][..len], rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values with many significant bits, so that any change of summation order shows.
    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n).map(|i| ((i as u32).wrapping_mul(2_654_435_761) ^ seed) as f32 / u32::MAX as f32 - 0.5).collect()
    }

    #[test]
    fn dots_equal_dot_to_the_bit_at_every_length() {
        for (len, keys, stride) in [(64, 13, 192), (256, 5, 256), (12, 7, 12), (3, 9, 5), (40, 4, 40), (8, 1, 8)] {
            let (q, x) = (values(len, 1), values(keys * stride + len, 2));
            let mut out = vec![0f32; keys];
            dots(&q, &x, stride, &mut out);
            for (p, o) in out.iter().enumerate() {
                assert_eq!(o.to_bits(), dot(&q, &x[p * stride..][..len]).to_bits(), "len {len}, key {p}");
            }
        }
    }

    #[test]
    fn weighted_sum_equals_axpy_to_the_bit_at_every_length() {
        for (len, rows, stride) in [(64, 13, 192), (256, 5, 256), (36, 7, 36), (3, 9, 5), (32, 1, 32)] {
            let (w, x) = (values(rows, 3), values(rows * stride + len, 4));
            let mut expected = vec![0f32; len];
            for (p, &wp) in w.iter().enumerate() {
                axpy(wp, &x[p * stride..][..len], &mut expected);
            }
            let mut out = vec![f32::NAN; len];
            weighted_sum(&w, &x, stride, &mut out);
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&out), bits(&expected), "len {len}");
        }
    }
}

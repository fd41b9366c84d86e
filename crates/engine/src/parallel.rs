//! Spreading a forward pass over threads, with results bit-identical to one thread: work is
//! divided only where no output value's arithmetic depends on the division (a matmul's
//! output rows, attention's heads), so each value is computed by exactly the same
//! operations, in the same order, whichever thread computes it.
//!
//! With the `threads` feature the parts run on the caller and the helpers of `pool.rs`
//! (threads from rayon's global pool: natively, and in the browser worker built with
//! atomics, where wasm-bindgen-rayon makes them Web Workers). Without the feature, or at
//! one thread, everything runs on the caller.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads the next passes split over.
static THREADS: AtomicUsize = AtomicUsize::new(1);

/// Below this many multiply-adds a piece of work stays on one thread: handing it out costs
/// more than it saves (a 192 × 576 decode matmul is about 110 000).
const MIN_WORK: usize = 32_768;

/// Parts per thread, at most (see `chunk`).
const PARTS_PER_THREAD: usize = 4;

/// The most threads a pass can use: the pool's size (1 without the `threads` feature).
pub fn max_threads() -> usize {
    #[cfg(feature = "threads")]
    return crate::pool::size();
    #[cfg(not(feature = "threads"))]
    1
}

/// Sets the threads the next passes use, clamped to `1..=max_threads()`; returns the count set.
pub fn set_threads(n: usize) -> usize {
    let n = n.clamp(1, max_threads());
    THREADS.store(n, Ordering::Relaxed);
    n
}

/// The threads passes use now.
pub fn threads() -> usize {
    THREADS.load(Ordering::Relaxed)
}

/// `out` holds `n` rows of `len = out.len() / n` values. Splits the columns `0..len` into
/// consecutive ranges (`chunk`), their starts multiples of `align`, and calls
/// `fill(range, part)` for each, in parallel: `part` is `n` rows of `range.len()` values,
/// which land in those columns of `out`. `work` (multiply-adds for all of `out`) decides
/// whether splitting pays. With one row the parts are `out`'s own slices; with more, each
/// part is filled apart and copied in.
pub fn columns(out: &mut [f32], n: usize, align: usize, work: usize, fill: impl Fn(Range<usize>, &mut [f32]) + Sync) {
    let len = out.len() / n;
    let chunk = chunk(len, align, work);
    if chunk >= len {
        return fill(0..len, out);
    }
    if n == 1 {
        return for_each_chunk(out, chunk, |start, part| fill(start..start + part.len(), part));
    }
    let mut parts = vec![0f32; out.len()];
    for_each_chunk(&mut parts, chunk * n, |start, part| {
        let start = start / n;
        fill(start..start + part.len() / n, part)
    });
    for (i, part) in parts.chunks(chunk * n).enumerate() {
        let width = part.len() / n;
        for (t, row) in part.chunks_exact(width).enumerate() {
            out[t * len + i * chunk..][..width].copy_from_slice(row);
        }
    }
}

/// Splits `out`, `items` consecutive items of `out.len() / items` values each, into parts
/// (`chunk`) and calls `fill(range, part)` for each, in parallel, `part` being the
/// items in `range`. `work` as in `columns`.
pub fn items(out: &mut [f32], items: usize, work: usize, fill: impl Fn(Range<usize>, &mut [f32]) + Sync) {
    let per = out.len() / items;
    let chunk = chunk(items, 1, work);
    if chunk >= items {
        return fill(0..items, out);
    }
    for_each_chunk(out, chunk * per, |start, part| fill(start / per..(start + part.len()) / per, part));
}

/// The size of each part of `0..len`: a multiple of `align`, such that there are up to
/// `PARTS_PER_THREAD` parts per thread, none under `MIN_WORK`; `len` itself when the work
/// is too small to split. More parts than threads, claimed as threads come free, so that a
/// thread the system lets wait a moment holds up one small part, not half the pass.
fn chunk(len: usize, align: usize, work: usize) -> usize {
    let threads = threads();
    if threads == 1 || work < 2 * MIN_WORK {
        return len;
    }
    let parts = (PARTS_PER_THREAD * threads).min(work / MIN_WORK).min(len.div_ceil(align)).max(1);
    len.div_ceil(parts).div_ceil(align) * align
}

/// `f(offset, part)` for each `chunk`-long part of `out`, in parallel on the pool.
fn for_each_chunk(out: &mut [f32], chunk: usize, f: impl Fn(usize, &mut [f32]) + Sync) {
    #[cfg(feature = "threads")]
    {
        let (len, base) = (out.len(), Base(out.as_mut_ptr()));
        let part = |p: usize| {
            let start = p * chunk;
            // SAFETY: the pool calls each part once, and the parts' ranges do not overlap,
            // so each `&mut` is the only one to its values while `out` is borrowed here.
            let values = unsafe { std::slice::from_raw_parts_mut(base.at(start), chunk.min(len - start)) };
            f(start, values)
        };
        crate::pool::for_each_part(len.div_ceil(chunk), threads(), &part);
    }
    #[cfg(not(feature = "threads"))]
    for (i, part) in out.chunks_mut(chunk).enumerate() {
        f(i * chunk, part);
    }
}

/// `out`'s first value, shared with the pool's threads (see `for_each_chunk`).
#[cfg(feature = "threads")]
#[derive(Clone, Copy)]
struct Base(*mut f32);

// SAFETY: each thread writes through it only to its own part's values.
#[cfg(feature = "threads")]
unsafe impl Sync for Base {}

#[cfg(feature = "threads")]
impl Base {
    fn at(self, offset: usize) -> *mut f32 {
        // SAFETY: `offset` is within the slice (the caller's part).
        unsafe { self.0.add(offset) }
    }
}

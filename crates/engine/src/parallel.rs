//! Spreading a forward pass over threads, with results bit-identical to one thread: work is
//! divided only where no output value's arithmetic depends on the division (a matmul's
//! output rows, attention's heads), so each value is computed by exactly the same
//! operations, in the same order, whichever thread computes it.
//!
//! With the `threads` feature the parts run on rayon's global pool: natively, and in the
//! browser worker built with atomics, where wasm-bindgen-rayon makes that pool of Web
//! Workers. Without the feature, or at one thread, everything runs on the caller.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads the next passes split over.
static THREADS: AtomicUsize = AtomicUsize::new(1);

/// Below this many multiply-adds a piece of work stays on one thread: handing it out costs
/// more than it saves (a 192 × 576 decode matmul is about 110 000).
const MIN_WORK: usize = 32_768;

/// The most threads a pass can use: the pool's size (1 without the `threads` feature).
pub fn max_threads() -> usize {
    #[cfg(feature = "threads")]
    return rayon::current_num_threads();
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

/// Runs a whole pass on the pool when it will split, so that each split inside is joined
/// by a pool thread, which waits by spinning, rather than by a caller that would be parked
/// and woken at every matmul (on the web, through `Atomics.wait`).
pub fn run<R: Send>(pass: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "threads")]
    if threads() > 1 {
        return rayon::scope(|_| pass());
    }
    pass()
}

/// `out` holds `n` rows of `len = out.len() / n` values. Splits the columns `0..len` into up
/// to `threads()` consecutive ranges, their starts multiples of `align`, and calls
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

/// Splits `out`, `items` consecutive items of `out.len() / items` values each, into up to
/// `threads()` parts and calls `fill(range, part)` for each, in parallel, `part` being the
/// items in `range`. `work` as in `columns`.
pub fn items(out: &mut [f32], items: usize, work: usize, fill: impl Fn(Range<usize>, &mut [f32]) + Sync) {
    let per = out.len() / items;
    let chunk = chunk(items, 1, work);
    if chunk >= items {
        return fill(0..items, out);
    }
    for_each_chunk(out, chunk * per, |start, part| fill(start / per..(start + part.len()) / per, part));
}

/// The size of each part of `0..len`: a multiple of `align`, such that there are at most
/// `threads()` parts; `len` itself when the work is too small to split.
fn chunk(len: usize, align: usize, work: usize) -> usize {
    let threads = threads();
    if threads == 1 || work < 2 * MIN_WORK {
        return len;
    }
    let parts = threads.min(work / MIN_WORK).min(len.div_ceil(align)).max(1);
    len.div_ceil(parts).div_ceil(align) * align
}

/// `f(offset, part)` for each `chunk`-long part of `out`, in parallel on the pool.
fn for_each_chunk(out: &mut [f32], chunk: usize, f: impl Fn(usize, &mut [f32]) + Sync) {
    #[cfg(feature = "threads")]
    {
        use rayon::prelude::*;
        out.par_chunks_mut(chunk).enumerate().for_each(|(i, part)| f(i * chunk, part));
    }
    #[cfg(not(feature = "threads"))]
    for (i, part) in out.chunks_mut(chunk).enumerate() {
        f(i * chunk, part);
    }
}

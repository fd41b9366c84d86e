//! The explicit KV cache: for every layer, the keys and values of the positions already
//! processed. Layers keep their own length because an early-exit draft runs only the first
//! layers; `truncate` rolls every layer back to a position (rewind, rejected drafts).
//!
//! A local (sliding-window) layer never attends further back than its window, so it keeps
//! only the window and a margin (`LayerCache::first` is its oldest position held): Gemma 3's
//! local layers cache at most 639 positions however long the context. The margin lets
//! a short rewind (a rejected draft, a regenerated reply) continue without recomputing; a
//! rewind past it empties the cache, and the caller recomputes from position 0.

use crate::error::Result;
use crate::gguf::config::Config;
use crate::memory;

/// The cache grows by whole steps of this many positions: few reallocations, and at most
/// this much unused room (a doubling `Vec` could hold twice what it uses).
const GROW_POSITIONS: usize = 64;

/// Positions a local layer keeps beyond its window, and drops at a time (dropping shifts the
/// whole layer, so it happens once every this many tokens). More than a speculative draft
/// (`speculative::MAX_DRAFT` checks it), so a rejected draft always rolls back within it.
pub const WINDOW_MARGIN: usize = 64;

#[derive(Clone)]
pub struct LayerCache {
    /// Keys after RoPE, `kv_dim` per position held: positions `first..len`.
    pub k: Vec<f32>,
    /// Values, as `k`.
    pub v: Vec<f32>,
    /// The oldest position held (0 but in a local layer past its window and margin).
    pub first: usize,
    pub len: usize,
    /// A local layer's window: it attends to the last `window` positions only.
    window: Option<usize>,
}

impl LayerCache {
    fn new(window: Option<usize>) -> Self {
        Self { k: Vec::new(), v: Vec::new(), first: 0, len: 0, window }
    }

    /// Replaces everything from position `start` on with `k` and `v` (whole positions of
    /// `kv_dim` values each).
    pub fn write(&mut self, start: usize, k: &[f32], v: &[f32], kv_dim: usize) -> Result<()> {
        let held = start - self.first;
        let end = start + k.len() / kv_dim;
        let room = (end - self.first).div_ceil(GROW_POSITIONS) * GROW_POSITIONS * kv_dim;
        for (cache, new) in [(&mut self.k, k), (&mut self.v, v)] {
            cache.truncate(held * kv_dim);
            memory::reserve(cache, room.saturating_sub(cache.len()), "the KV cache")?;
            cache.extend_from_slice(new);
        }
        self.len = end;
        Ok(())
    }

    /// After a pass: a local layer drops the positions the next one cannot see, beyond the
    /// margin, once they make a whole margin (so it holds at most window + 2 × margin − 1).
    pub fn forget_outside_window(&mut self, kv_dim: usize) {
        let Some(w) = self.window else { return };
        // The next position, `len`, sees `len + 1 - w` and later.
        let keep_from = (self.len + 1).saturating_sub(w + WINDOW_MARGIN);
        if keep_from >= self.first + WINDOW_MARGIN {
            let drop = (keep_from - self.first) * kv_dim;
            self.k.drain(..drop);
            self.v.drain(..drop);
            self.first = keep_from;
        }
    }

    /// Positions held now: every one for a global layer, the window and margin for a local one.
    pub fn held(&self) -> usize {
        self.len - self.first
    }

    /// Whether position `pos` can be computed from what is held before it (a local layer
    /// must still hold its window).
    pub fn can_continue_at(&self, pos: usize) -> bool {
        self.first == 0 || self.window.is_some_and(|w| pos + 1 >= self.first + w)
    }

    fn truncate(&mut self, pos: usize, kv_dim: usize) {
        self.len = self.len.min(pos);
        self.k.truncate(self.held() * kv_dim);
        self.v.truncate(self.held() * kv_dim);
    }

    fn clear(&mut self) {
        (self.first, self.len) = (0, 0);
        self.k.clear();
        self.v.clear();
    }
}

#[derive(Clone)]
pub struct KvCache {
    pub layers: Vec<LayerCache>,
    kv_dim: usize,
}

impl KvCache {
    /// An empty cache. Memory grows with the positions actually used, never up front.
    pub fn new(config: &Config) -> Self {
        let layers = (0..config.layers).map(|l| LayerCache::new(config.window(l))).collect();
        Self { layers, kv_dim: config.kv_dim() }
    }

    /// Positions held by every layer (a draft may have written more into the first ones).
    pub fn len(&self) -> usize {
        self.layers.iter().map(|l| l.len).min().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of keys and values held now: 2 × kv_heads × head_dim × 4 for every position
    /// each layer holds (all of them in a global layer, the window and margin in a local one).
    pub fn bytes(&self) -> usize {
        2 * self.kv_dim * std::mem::size_of::<f32>() * self.layers.iter().map(LayerCache::held).sum::<usize>()
    }

    /// The most bytes a cache of `positions` positions holds between passes: every position
    /// in a global layer, at most window + 2 × margin − 1 in a local one.
    pub fn bytes_for(config: &Config, positions: usize) -> usize {
        let held = |l| config.window(l).map_or(positions, |w| positions.min(Self::local_positions_at_most(w)));
        2 * config.kv_dim() * std::mem::size_of::<f32>() * (0..config.layers).map(held).sum::<usize>()
    }

    /// The most positions a local layer of window `window` holds between passes.
    pub fn local_positions_at_most(window: usize) -> usize {
        window + 2 * WINDOW_MARGIN - 1
    }

    /// Drops every position at or after `pos`. When a local layer no longer holds what the
    /// position after `pos` must see, everything is dropped: `len()` is then 0, and the
    /// caller computes from the start (callers continue at `len()`, never at `pos`).
    pub fn truncate(&mut self, pos: usize) {
        if self.layers.iter().all(|l| l.can_continue_at(pos)) {
            for l in &mut self.layers {
                l.truncate(pos, self.kv_dim);
            }
        } else {
            self.clear();
        }
    }

    pub fn clear(&mut self) {
        for l in &mut self.layers {
            l.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_grows_by_whole_steps_and_replaces_from_start() {
        let kv_dim = 4;
        let mut l = LayerCache::new(None);
        let pos = |n: usize, x: f32| vec![x; n * kv_dim];
        l.write(0, &pos(3, 1.0), &pos(3, 2.0), kv_dim).unwrap();
        assert_eq!((l.len, l.k.len(), l.k.capacity()), (3, 12, GROW_POSITIONS * kv_dim));
        // Past one step: room for two, not a doubling.
        l.write(3, &pos(GROW_POSITIONS, 3.0), &pos(GROW_POSITIONS, 4.0), kv_dim).unwrap();
        assert_eq!(l.len, GROW_POSITIONS + 3);
        assert_eq!(l.k.capacity(), 2 * GROW_POSITIONS * kv_dim);
        // Back to position 2: what came after is gone.
        l.write(2, &pos(1, 5.0), &pos(1, 6.0), kv_dim).unwrap();
        assert_eq!(l.len, 3);
        assert_eq!(l.k, [pos(2, 1.0), pos(1, 5.0)].concat());
        assert_eq!(l.v, [pos(2, 2.0), pos(1, 6.0)].concat());
    }
}

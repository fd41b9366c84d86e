//! The explicit KV cache: for every layer, the keys and values of the positions already
//! processed. Layers keep their own length because an early-exit draft runs only the first
//! layers; `truncate` rolls every layer back to a position (rewind, rejected drafts).

use crate::error::Result;
use crate::gguf::config::Config;
use crate::memory;

/// The cache grows by whole steps of this many positions: few reallocations, and at most
/// this much unused room (a doubling `Vec` could hold twice what it uses).
const GROW_POSITIONS: usize = 64;

#[derive(Clone)]
pub struct LayerCache {
    /// `len × kv_dim` keys, after RoPE.
    pub k: Vec<f32>,
    /// `len × kv_dim` values.
    pub v: Vec<f32>,
    pub len: usize,
}

impl LayerCache {
    /// Replaces everything from position `start` on with `k` and `v` (whole positions of
    /// `kv_dim` values each).
    pub fn write(&mut self, start: usize, k: &[f32], v: &[f32], kv_dim: usize) -> Result<()> {
        let end = start + k.len() / kv_dim;
        let room = end.div_ceil(GROW_POSITIONS) * GROW_POSITIONS * kv_dim;
        for (cache, new) in [(&mut self.k, k), (&mut self.v, v)] {
            cache.truncate(start * kv_dim);
            memory::reserve(cache, room.saturating_sub(cache.len()), "the KV cache")?;
            cache.extend_from_slice(new);
        }
        self.len = end;
        Ok(())
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
        let layers = (0..config.layers).map(|_| LayerCache { k: Vec::new(), v: Vec::new(), len: 0 }).collect();
        Self { layers, kv_dim: config.kv_dim() }
    }

    /// Positions held by every layer (a draft may have written more into the first ones).
    pub fn len(&self) -> usize {
        self.layers.iter().map(|l| l.len).min().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of keys and values held for `len()` positions:
    /// 2 × layers × kv_heads × head_dim × positions × 4.
    pub fn bytes(&self) -> usize {
        2 * self.layers.len() * self.kv_dim * self.len() * std::mem::size_of::<f32>()
    }

    /// Drops every position at or after `pos`.
    pub fn truncate(&mut self, pos: usize) {
        for l in &mut self.layers {
            l.len = l.len.min(pos);
            l.k.truncate(l.len * self.kv_dim);
            l.v.truncate(l.len * self.kv_dim);
        }
    }

    pub fn clear(&mut self) {
        self.truncate(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_grows_by_whole_steps_and_replaces_from_start() {
        let kv_dim = 4;
        let mut l = LayerCache { k: Vec::new(), v: Vec::new(), len: 0 };
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

//! The explicit KV cache: for every layer, the keys and values of the positions already
//! processed. Layers keep their own length because an early-exit draft runs only the first
//! layers; `truncate` rolls every layer back to a position (rewind, rejected drafts).

use crate::config::Config;

pub struct LayerCache {
    /// `len × kv_dim` keys, after RoPE.
    pub k: Vec<f32>,
    /// `len × kv_dim` values.
    pub v: Vec<f32>,
    pub len: usize,
}

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

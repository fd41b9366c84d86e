//! What a forward pass copies out on request (`Model::forward_probed`): one layer's
//! attention weights and every layer's hidden state; and every layer's output at a range of
//! positions (`Model::forward_states`, for the deep-thinking ratio). Filled by the
//! architectures; read by `probe` (the logit lens, depth) and by hosts, which import these
//! types from `engine::probe`.

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// What a forward pass copies out. Both hooks are off by default, and then the pass is
/// the plain one.
#[derive(Debug, Default)]
pub struct Probe {
    pub attention: Option<AttentionCapture>,
    /// When `Some`, refilled by each pass with the last position's hidden state after each
    /// layer it ran (the residual stream, before the final norm).
    pub hidden: Option<Vec<Vec<f32>>>,
}

/// The softmax rows of one layer (0-based), for every query head or one.
#[derive(Debug, Clone, PartialEq)]
pub struct AttentionCapture {
    pub layer: usize,
    pub head: Option<usize>,
    /// In the order the pass computed them.
    pub rows: Vec<AttentionRow>,
}

/// Query `head` at `position` over positions `0..=position`: `weights` sums to 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttentionRow {
    pub position: usize,
    pub head: usize,
    pub weights: Vec<f32>,
}

impl AttentionCapture {
    pub fn new(layer: usize, head: Option<usize>) -> Self {
        Self { layer, head, rows: Vec::new() }
    }

    pub(crate) fn record(&mut self, position: usize, head: usize, weights: &[f32]) {
        if self.head.is_none_or(|h| h == head) {
            self.rows.push(AttentionRow { position, head, weights: weights.to_vec() });
        }
    }

    /// Head `head`'s rows by position, `positions` of them, each padded with zeros to
    /// `positions` columns (above the diagonal nothing is attended). A position recomputed
    /// later (after a rewind) keeps its latest row; one never computed stays `None`.
    pub fn matrix(&self, head: usize, positions: usize) -> Vec<Option<Vec<f32>>> {
        let mut out = vec![None; positions];
        for r in self.rows.iter().filter(|r| r.head == head && r.position < positions) {
            let mut row = vec![0.0; positions];
            row[..r.weights.len()].copy_from_slice(&r.weights);
            out[r.position] = Some(row);
        }
        out
    }
}

/// Every layer's output (the residual stream, before the final norm) at each position of
/// `positions`, position-major: row `(p - positions.start) * layers + l` is position p
/// after layer l (0-based), `width` values. Filled by `Model::forward_states`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayerStates {
    pub positions: Range<usize>,
    pub layers: usize,
    pub width: usize,
    pub rows: Vec<f32>,
}

impl LayerStates {
    /// Position `p`'s row after layer `layer` (0-based).
    pub fn row(&self, p: usize, layer: usize) -> &[f32] {
        let i = (p - self.positions.start) * self.layers + layer;
        &self.rows[i * self.width..(i + 1) * self.width]
    }
}

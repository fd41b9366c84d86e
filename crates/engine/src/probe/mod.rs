//! Lesson 2's windows into the forward pass: one layer's attention weights and every
//! layer's hidden state, copied out of the real pass on request (`Model::forward_probed`);
//! the logit lens built from those states; how deep each token of a reply settles (the
//! deep-thinking ratio); the time of one pass over n tokens; one pass taken apart, part by
//! part (`Model::forward_timed`); and what the opt-in integer arithmetic changes (`integer`).
//!
//! The hook types are filled by the pass itself, so they live with it (`arch/hooks.rs`);
//! they are re-exported here, where hosts look for everything a lesson reads.

pub mod depth;
mod depth_thresholds;
pub mod integer;
mod lens;
mod pass_bench;

pub use crate::arch::hooks::{AttentionCapture, AttentionRow, LayerStates, Probe};
pub use crate::arch::parts::{Part, PassPart, PassParts, PARTS};
pub use lens::{logit_lens, settled_layer, LensLayer, LensToken};
pub use pass_bench::PassBench;

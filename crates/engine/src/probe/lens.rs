//! The logit lens: every layer's hidden state read through the final norm and the output head.

use crate::arch::Model;
use crate::error::Result;
use crate::sampler::{distribution, SamplerSettings};
use serde::{Deserialize, Serialize};

/// One layer's most likely next tokens through the logit lens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LensLayer {
    /// 1-based, as the page names layers.
    pub layer: usize,
    pub top: Vec<LensToken>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LensToken {
    pub id: u32,
    pub token: String,
    /// Softmax at temperature 1 over the whole vocabulary.
    pub prob: f32,
}

/// The logit lens: each layer's `hidden` state through the final norm and the output head,
/// its `top` most likely tokens. The last layer's is the model's own next-token distribution.
pub fn logit_lens(model: &Model, hidden: &[Vec<f32>], top: usize) -> Result<Vec<LensLayer>> {
    let plain = SamplerSettings::plain(1.0, 0);
    hidden
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let dist = distribution(&model.head(h)?, &plain, &[]);
            let top = dist
                .top(top)
                .iter()
                .map(|c| LensToken { id: c.id, token: model.tokenizer.token_text(c.id), prob: c.prob })
                .collect();
            Ok(LensLayer { layer: i + 1, top })
        })
        .collect()
}

/// The first layer from which the last layer's top token is every later layer's top token.
pub fn settled_layer(layers: &[LensLayer]) -> Option<usize> {
    let top1 = |l: &LensLayer| l.top.first().map(|t| t.id);
    let last = top1(layers.last()?)?;
    let stays = layers.iter().rev().take_while(|l| top1(l) == Some(last)).count();
    Some(layers[layers.len() - stays].layer)
}

//! The depth of a Lesson 3 sample: the tokens it generated, scored teacher-forced after the
//! prompt it was generated from (`probe::depth`), with their texts, for Lesson 3's depth
//! panels. A sample whose `Answer:` was forced in is scored up to that point: after it, its
//! tokens followed text the model did not write. A task run's samples share their prompt,
//! which is prefilled once for all of them (`task_prompt`).
//!
//! Two readings of the logit lens itself go with them: the mean D at each layer over a
//! run's tokens (`mean_by_layer`), and a baseline, the same measure on the prompt's own
//! tokens, teacher-forced: text the model read but did not write or reason about
//! (`prompt_depth`). If traces and prompt settle alike, settling tracks where the lens
//! becomes readable more than any reasoning.

use super::strategy::{prompt_ids, Sample, Strategy};
use super::task::Task;
use crate::arch::Model;
use crate::error::Result;
use crate::probe::depth::{score, SharedPrompt, TokenDepth, Unit};
use serde::{Deserialize, Serialize};

/// One sample's scored tokens and each one's text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleDepth {
    pub tokens: Vec<TokenDepth>,
    pub texts: Vec<String>,
}

/// The prompt `task`'s samples under `strategy` were generated from, prefilled.
pub fn task_prompt(model: &Model, task: &Task, strategy: Strategy) -> Result<SharedPrompt> {
    SharedPrompt::new(model, &prompt_ids(&model.tokenizer, task, strategy)?)
}

/// `sample`'s depth after `prompt` (its task's, `task_prompt`); `None` when it generated no
/// token in its own context.
pub fn sample_depth(model: &Model, prompt: &SharedPrompt, sample: &Sample) -> Result<Option<SampleDepth>> {
    let reply = sample.continuous_tokens();
    if reply.is_empty() {
        return Ok(None);
    }
    let tokens = prompt.score(model, reply)?;
    let texts = reply.iter().map(|&id| model.tokenizer.token_text(id)).collect();
    Ok(Some(SampleDepth { tokens, texts }))
}

/// The prompt `task`'s samples under `strategy` were generated from, each of its tokens after
/// the first scored as if it were a reply to the tokens before it; `None` for a prompt of
/// one token.
pub fn prompt_depth(model: &Model, task: &Task, strategy: Strategy) -> Result<Option<SampleDepth>> {
    let ids = prompt_ids(&model.tokenizer, task, strategy)?;
    if ids.len() < 2 {
        return Ok(None);
    }
    let tokens = score(model, &ids[..1], &ids[1..])?;
    let texts = ids[1..].iter().map(|&id| model.tokenizer.token_text(id)).collect();
    Ok(Some(SampleDepth { tokens, texts }))
}

/// The mean D at each layer over `tokens`, in `unit`; empty for no tokens.
pub fn mean_by_layer<'a>(tokens: impl IntoIterator<Item = &'a TokenDepth>, unit: Unit) -> Vec<f64> {
    let (mut sum, mut n) = (Vec::<f64>::new(), 0usize);
    for t in tokens {
        sum.resize(sum.len().max(t.jsd.len()), 0.0);
        sum.iter_mut().zip(&t.jsd).for_each(|(s, &d)| *s += unit.of_nats(d));
        n += 1;
    }
    sum.iter().map(|s| s / n.max(1) as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_by_layer_is_each_layers_mean_in_the_unit() {
        let ln2 = std::f32::consts::LN_2;
        let a = TokenDepth { id: 1, jsd: vec![ln2, 0.5 * ln2, 0.0] };
        let b = TokenDepth { id: 2, jsd: vec![0.5 * ln2, 0.0, 0.0] };
        let bits = mean_by_layer([&a, &b], Unit::Bits);
        assert!(bits.iter().zip([0.75, 0.25, 0.0]).all(|(x, y)| (x - y).abs() < 1e-6), "{bits:?}");
        let nats = mean_by_layer([&a, &b], Unit::Nats);
        assert!((nats[0] - 0.75 * std::f64::consts::LN_2).abs() < 1e-6, "{nats:?}");
        assert!(mean_by_layer(Vec::<&TokenDepth>::new(), Unit::Bits).is_empty());
    }
}

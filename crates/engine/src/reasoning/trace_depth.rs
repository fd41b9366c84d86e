//! The depth of a Lesson 3 sample: the tokens it generated, scored teacher-forced after the
//! prompt it was generated from (`probe::depth`), with their texts, for Lesson 3's depth
//! panels. A sample whose `Answer:` was forced in is scored up to that point: after it, its
//! tokens followed text the model did not write.

use super::strategy::{prompt_ids, Sample, Strategy};
use super::task::Task;
use crate::arch::Model;
use crate::error::Result;
use crate::probe::depth::{score, TokenDepth};
use serde::{Deserialize, Serialize};

/// One sample's scored tokens and each one's text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleDepth {
    pub tokens: Vec<TokenDepth>,
    pub texts: Vec<String>,
}

/// `sample`'s depth under `strategy` on `task`; `None` when it generated no token in its
/// own context.
pub fn sample_depth(model: &Model, task: &Task, strategy: Strategy, sample: &Sample) -> Result<Option<SampleDepth>> {
    let reply = sample.continuous_tokens();
    if reply.is_empty() {
        return Ok(None);
    }
    let tokens = score(model, &prompt_ids(&model.tokenizer, task, strategy)?, reply)?;
    let texts = reply.iter().map(|&id| model.tokenizer.token_text(id)).collect();
    Ok(Some(SampleDepth { tokens, texts }))
}

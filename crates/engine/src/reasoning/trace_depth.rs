//! The depth of a Lesson 3 sample: the tokens it generated, scored teacher-forced after the
//! prompt it was generated from (`probe::depth`), with their texts, for Lesson 3's depth
//! panels. A sample whose `Answer:` was forced in is scored up to that point: after it, its
//! tokens followed text the model did not write. A task run's samples share their prompt,
//! which is prefilled once for all of them (`task_prompt`).

use super::strategy::{prompt_ids, Sample, Strategy};
use super::task::Task;
use crate::arch::Model;
use crate::error::Result;
use crate::probe::depth::{SharedPrompt, TokenDepth};
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

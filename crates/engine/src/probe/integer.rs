//! What the opt-in integer arithmetic (`quant/int16.rs`) costs in accuracy and gains in
//! speed on the loaded model, measured: from the same cache, each decode step runs once
//! with exact f32 products and once with integer ones, and the two sets of logits are
//! compared over the whole vocabulary. The greedy path follows the exact logits.

use crate::arch::{Logits, Model};
use crate::error::{EngineError, Result};
use crate::kv_cache::KvCache;
use crate::speculative::argmax;
use serde::Serialize;

/// The most decode steps one measurement takes.
pub const MAX_STEPS: usize = 64;

#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct IntegerDeviation {
    /// Decode steps compared.
    pub steps: usize,
    /// Mean |Δlogit| over every step and every token of the vocabulary.
    pub mean_abs: f64,
    /// The largest |Δlogit| seen.
    pub max_abs: f32,
    /// Steps whose greedy token was the same both ways.
    pub same_greedy: usize,
    /// Milliseconds of the compared decode steps, summed, each way.
    pub exact_ms: f64,
    pub integer_ms: f64,
    /// The share of a decode step's weights that the integer arithmetic applies to.
    pub integer_share: f64,
}

/// Measures the `steps` (1 to `MAX_STEPS`) greedy decode steps after `prompt` (prefilled
/// with exact products: the integer arithmetic is for one-row products), timed on `clock` (milliseconds). The model's arithmetic setting is
/// the same afterwards as before.
pub fn integer_deviation(
    model: &Model,
    prompt: &[u32],
    steps: usize,
    clock: &dyn Fn() -> f64,
) -> Result<IntegerDeviation> {
    if !(1..=MAX_STEPS).contains(&steps) {
        return Err(EngineError::InvalidState(format!("steps must be 1..={MAX_STEPS}, got {steps}")));
    }
    if prompt.is_empty() || prompt.len() + steps > model.config.context {
        return Err(EngineError::InvalidPrompt(format!(
            "a measurement needs a prompt of 1 to {} tokens, got {}",
            model.config.context.saturating_sub(steps),
            prompt.len()
        )));
    }
    let was = model.integer_activations();
    let result = measure(model, prompt, steps, clock);
    model.set_integer_activations(was);
    result
}

fn measure(model: &Model, prompt: &[u32], steps: usize, clock: &dyn Fn() -> f64) -> Result<IntegerDeviation> {
    let layers = model.config.layers;
    let mut cache = KvCache::new(&model.config);
    model.set_integer_activations(false);
    let mut token = argmax(&model.forward(prompt, 0, &mut cache, layers, Logits::Last)?);
    let (mut sum, mut max, mut same, mut exact_ms, mut integer_ms) = (0f64, 0f32, 0, 0.0, 0.0);
    for at in prompt.len()..prompt.len() + steps {
        let mut copy = cache.clone();
        model.set_integer_activations(true);
        let t0 = clock();
        let integer = model.forward(&[token], at, &mut copy, layers, Logits::Last)?;
        integer_ms += clock() - t0;
        model.set_integer_activations(false);
        let t0 = clock();
        let exact = model.forward(&[token], at, &mut cache, layers, Logits::Last)?;
        exact_ms += clock() - t0;
        for (a, b) in exact.iter().zip(&integer) {
            let d = (a - b).abs();
            sum += d as f64;
            max = max.max(d);
        }
        token = argmax(&exact);
        same += usize::from(token == argmax(&integer));
    }
    Ok(IntegerDeviation {
        steps,
        mean_abs: sum / (steps * model.config.vocab) as f64,
        max_abs: max,
        same_greedy: same,
        exact_ms,
        integer_ms,
        integer_share: model.integer_share(),
    })
}

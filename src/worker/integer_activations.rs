//! The engine's opt-in integer arithmetic (`engine::quant::int16`), switched for the loaded
//! model. Before it is switched on, what it changes is measured on that model, so that the
//! page shows the learner its cost in accuracy and its gain in speed, not a promise.

use super::state;
use crate::protocol::Response;
use engine::chat::{prompt_tokens, SystemPrompt};
use engine::probe::integer::integer_deviation;

/// The text the measurement continues, as raw text: any model, base or chat, can take it.
const MEASURED_AFTER: &str = "The water cycle moves water between the oceans, the air and the land. First,";
/// Greedy decode steps measured: each runs twice (exact, then integer), about a second.
const MEASURED_STEPS: usize = 16;

pub fn set(on: bool) -> Result<Response, String> {
    let model = state::with(|s| s.model().cloned())?;
    if !on {
        model.set_integer_activations(false);
        return Ok(Response::IntegerActivations { on, deviation: None });
    }
    if model.integer_share() == 0.0 {
        return Err("The integer arithmetic covers Q4_0, Q4_1, Q5_0 and Q8_0 matrices, and this model has none: it stays exact.".into());
    }
    // As raw text (with the model's BOS, as a raw prompt is given everywhere).
    let prompt = prompt_tokens(&model.tokenizer, MEASURED_AFTER, true, SystemPrompt::Default).map_err(|e| e.to_string())?;
    let deviation =
        integer_deviation(&model, &prompt, MEASURED_STEPS, &state::performance_now).map_err(|e| e.to_string())?;
    model.set_integer_activations(true);
    Ok(Response::IntegerActivations { on, deviation: Some(deviation) })
}

//! A drawn workload: who arrives, when, with what. Arrivals at random (exponential gaps at
//! a mean rate); a prompt length uniform in its range; every request asks for the same
//! `max_tokens`, and its answer turns out uniform in `answer_tokens`, a range within it
//! (an answer that ends at its end-of-text token before the limit, as most do).

use super::{Request, MAX_ANSWER, MAX_PROMPT, MAX_REQUESTS};
use crate::sampler::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub requests: usize,
    pub arrivals_per_s: f64,
    pub prompt_tokens: (usize, usize),
    pub answer_tokens: (usize, usize),
    pub max_tokens: usize,
    pub seed: u64,
}

/// The workload's requests in order of arrival, or why it cannot be drawn (with the range).
pub fn draw(w: &Workload) -> Result<Vec<Request>, String> {
    if !(1..=MAX_REQUESTS).contains(&w.requests) {
        return Err(format!("Requests {}: it must be 1 to {MAX_REQUESTS}.", w.requests));
    }
    if !(w.arrivals_per_s > 0.0 && w.arrivals_per_s <= 1000.0) {
        return Err(format!("Arrival rate {} per second: it must be above 0 and at most 1000.", w.arrivals_per_s));
    }
    if !(1..=MAX_ANSWER).contains(&w.max_tokens) {
        return Err(format!("Max tokens {}: it must be 1 to {MAX_ANSWER}.", w.max_tokens));
    }
    let range = |name: &str, (lo, hi): (usize, usize), max: usize| {
        if lo < 1 || hi > max || lo > hi {
            Err(format!("{name} {lo} to {hi}: it must lie within 1 to {max}, the smaller first."))
        } else {
            Ok(())
        }
    };
    range("Prompt tokens", w.prompt_tokens, MAX_PROMPT)?;
    range("Answer tokens", w.answer_tokens, w.max_tokens)?;
    let mut rng = Rng::new(w.seed);
    let mut at = 0.0;
    let mut requests = Vec::with_capacity(w.requests);
    for _ in 0..w.requests {
        let prompt_tokens = uniform(&mut rng, w.prompt_tokens);
        let answer_tokens = uniform(&mut rng, w.answer_tokens);
        at += -(1.0 - rng.next_f64()).ln() / w.arrivals_per_s * 1000.0;
        requests.push(Request { arrival_ms: at, prompt_tokens, answer_tokens, max_tokens: w.max_tokens });
    }
    Ok(requests)
}

/// Uniform in `lo..=hi` (the range is at most a few thousand wide, so the modulo's bias is
/// below one part in 10^15).
fn uniform(rng: &mut Rng, (lo, hi): (usize, usize)) -> usize {
    lo + (rng.next_u64() % (hi - lo + 1) as u64) as usize
}

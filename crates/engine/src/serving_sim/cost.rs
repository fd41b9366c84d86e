//! What a pass costs: a fixed part (the weights are read once per pass, whatever its size),
//! a part per token in the pass (the weights' arithmetic), and attention's part, per token
//! per cached position it reads. The last is what makes a pass at position 8,000 dearer than
//! one at 100; without it a long context would cost what a short one does.

use super::ContextParallel;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Costs {
    /// Milliseconds every pass costs whatever its size.
    pub pass_ms: f64,
    /// Milliseconds per token in a pass, attention aside.
    pub token_ms: f64,
    /// Microseconds per token per cached position it attends to (its own included).
    pub position_us: f64,
}

/// The work of one pass, as the scheduler planned it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PassWork {
    /// Decoding requests (one token each) and the cached positions they attend to, in all.
    pub decode_tokens: usize,
    pub decode_positions: usize,
    /// Prompt tokens computed in the pass, and the positions they attend to, in all.
    pub prefill_tokens: usize,
    pub prefill_positions: usize,
}

impl Costs {
    pub fn validate(&self) -> Result<(), String> {
        let check = |name: &str, v: f64, max: f64| {
            if v.is_finite() && (0.0..=max).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name} {v}: it must be 0 to {max}."))
            }
        };
        check("The fixed pass cost (ms)", self.pass_ms, 1e5)?;
        check("The cost per token (ms)", self.token_ms, 1e5)?;
        check("The cost per token per position (µs)", self.position_us, 1e5)?;
        if self.pass_ms + self.token_ms <= 0.0 {
            return Err("A pass must cost something: the fixed cost or the cost per token must be above 0.".into());
        }
        Ok(())
    }

    /// The pass's time and, of it, the ring exchange's. With context parallelism the prompt
    /// tokens and their attention are split evenly over the devices; decoding stays on one.
    pub fn pass(&self, work: PassWork, cp: Option<ContextParallel>) -> (f64, f64) {
        let devices = cp.map_or(1, |cp| cp.devices) as f64;
        let compute = |tokens: usize, positions: usize| tokens as f64 * self.token_ms + positions as f64 * self.position_us / 1000.0;
        let decode = compute(work.decode_tokens, work.decode_positions);
        let prefill = compute(work.prefill_tokens, work.prefill_positions) / devices;
        let exchange = match cp {
            Some(cp) if cp.devices > 1 && work.prefill_tokens > 0 => {
                // Each of the devices − 1 ring steps sends one device's share onward.
                let share = work.prefill_tokens as f64 / devices;
                (devices - 1.0) * share * cp.link_ms / 1000.0
            }
            _ => 0.0,
        };
        let overlap = cp.is_some_and(|cp| cp.overlap);
        let prefill_and_exchange = if overlap { prefill.max(exchange) } else { prefill + exchange };
        let exposed = prefill_and_exchange - prefill;
        (self.pass_ms + decode + prefill_and_exchange, exposed)
    }
}

/// Microseconds per token per cached position, from two passes of `tokens` tokens timed at
/// two positions: the later one's extra time over the extra positions each token read.
pub fn position_slope_us(tokens: usize, (near, near_ms): (usize, f64), (far, far_ms): (usize, f64)) -> Result<f64, String> {
    let extra = (attended(far, tokens) - attended(near, tokens)) as f64;
    let slope = (far_ms - near_ms) / extra * 1000.0;
    if !(far > near && slope.is_finite() && slope >= 0.0) {
        return Err(format!("The pass at position {far} took {far_ms:.2} ms, not more than at {near} ({near_ms:.2} ms): measure again on a quieter machine."));
    }
    Ok(slope)
}

/// The costs that explain passes of n tokens timed at one `position` (n, ms): attention's
/// part taken out with `position_us`, a least-squares line through the rest gives the fixed
/// cost (its value at 0 tokens) and the cost per token (its slope).
pub fn fit(position: usize, passes: &[(usize, f64)], position_us: f64) -> Result<Costs, String> {
    let points: Vec<(f64, f64)> =
        passes.iter().map(|&(n, ms)| (n as f64, ms - attended(position, n) as f64 * position_us / 1000.0)).collect();
    let count = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / count, points.iter().map(|p| p.1).sum::<f64>() / count);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if points.len() < 2 || sxx == 0.0 {
        return Err("Fitting the pass cost takes passes of at least two sizes.".into());
    }
    let token_ms = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / sxx;
    let costs = Costs { pass_ms: my - token_ms * mx, token_ms, position_us };
    costs.validate().map_err(|e| format!("The measured passes do not fit a fixed cost plus a cost per token ({e}): measure again on a quieter machine."))?;
    Ok(costs)
}

/// The positions `tokens` new tokens attend to when `cached` are already in the cache: the
/// i-th new token (from 1) reads the cached ones, the new ones before it, and itself.
pub fn attended(cached: usize, tokens: usize) -> usize {
    tokens * cached + tokens * (tokens + 1) / 2
}

//! The device's timed passes, as the page and `--measured` take them, and the costs they
//! give: passes of 1 to 32 tokens at position 128 (the fixed and per-token costs), and the
//! 16-token pass again at position 1,024 (attention's cost per position).

use super::cost::{fit, position_slope_us};
use super::Costs;
use serde::{Deserialize, Serialize};

/// Where the passes of every size are timed: this many tokens are cached.
pub const NEAR_POSITION: usize = 128;
/// Where the slope's second pass is timed.
pub const FAR_POSITION: usize = 1024;
/// The pass size timed at both positions (one of `PASS_SIZES`).
pub const SLOPE_TOKENS: usize = 16;
/// The pass sizes timed at `NEAR_POSITION`: a batch of up to 32 decodes 1 to 32 tokens.
pub const PASS_SIZES: [usize; 6] = [1, 2, 4, 8, 16, 32];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredCosts {
    /// (tokens in the pass, milliseconds) at `NEAR_POSITION`, sizes ascending.
    pub pass_ms: Vec<(usize, f64)>,
    /// Bytes of keys and values one cached position takes (the real cache's).
    pub kv_bytes_per_position: f64,
    /// The `SLOPE_TOKENS`-token pass at `FAR_POSITION`; none in a measurement saved before
    /// the simulator took attention's cost into account.
    #[serde(default)]
    pub far_pass_ms: Option<f64>,
}

impl MeasuredCosts {
    /// The costs these passes give, or why they give none.
    pub fn costs(&self) -> Result<Costs, String> {
        let far = self.far_pass_ms.ok_or("This measurement has no pass at position 1,024, which gives attention's cost per position: measure again.")?;
        let near = self
            .pass_ms
            .iter()
            .find(|p| p.0 == SLOPE_TOKENS)
            .ok_or(format!("This measurement has no {SLOPE_TOKENS}-token pass at position {NEAR_POSITION}: measure again."))?
            .1;
        let position_us = position_slope_us(SLOPE_TOKENS, (NEAR_POSITION, near), (FAR_POSITION, far))?;
        fit(NEAR_POSITION, &self.pass_ms, position_us)
    }
}

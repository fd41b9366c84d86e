//! What a run comes to: throughput, time to first token, the gaps between a user's
//! consecutive tokens (Sarathi-Serve's tail metric), memory and batch at their peaks.
//! Percentiles are nearest-rank: the p-th of n sorted values is the ⌈p·n/100⌉-th, a value
//! that occurred, never an interpolation.

use super::Outcome;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Every answer token over the time from the first arrival to the last token.
    pub tokens_per_s: f64,
    pub ttft_p50_ms: f64,
    pub ttft_p95_ms: f64,
    /// Over every pair of consecutive tokens of every request (none if every answer is one
    /// token: then 0).
    pub gap_p50_ms: f64,
    pub gap_p95_ms: f64,
    pub gap_max_ms: f64,
    pub peak_reserved_bytes: f64,
    pub peak_used_bytes: f64,
    pub peak_batch: usize,
    pub preemptions: usize,
}

/// The nearest-rank `p`-th percentile (0 < p ≤ 100) of `values`; 0 for none.
pub fn nearest_rank(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Outcome {
    pub fn summary(&self) -> Summary {
        let ttft: Vec<f64> = self.requests.iter().map(|r| r.first_token_ms - r.arrival_ms).collect();
        let gaps: Vec<f64> = self.requests.iter().flat_map(|r| r.token_ms.windows(2).map(|w| w[1] - w[0])).collect();
        let first = self.requests.iter().map(|r| r.arrival_ms).fold(f64::INFINITY, f64::min);
        let last = self.requests.iter().map(|r| r.finish_ms).fold(f64::NEG_INFINITY, f64::max);
        let tokens: usize = self.requests.iter().map(|r| r.token_ms.len()).sum();
        let peak = |f: fn(&super::MemoryPoint) -> f64| self.timeline.iter().map(f).fold(0.0, f64::max);
        Summary {
            tokens_per_s: tokens as f64 / ((last - first) / 1000.0),
            ttft_p50_ms: nearest_rank(&ttft, 50.0),
            ttft_p95_ms: nearest_rank(&ttft, 95.0),
            gap_p50_ms: nearest_rank(&gaps, 50.0),
            gap_p95_ms: nearest_rank(&gaps, 95.0),
            gap_max_ms: gaps.iter().copied().fold(0.0, f64::max),
            peak_reserved_bytes: peak(|p| p.reserved_bytes),
            peak_used_bytes: peak(|p| p.used_bytes),
            peak_batch: self.timeline.iter().map(|p| p.batch).max().unwrap_or(0),
            preemptions: self.requests.iter().map(|r| r.preemptions).sum(),
        }
    }
}

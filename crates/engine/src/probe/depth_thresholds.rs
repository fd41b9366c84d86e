//! The thresholds of the deep-thinking ratio (Chen et al. 2026) and the unit they are read
//! in: a token settles at the first layer whose divergence from the last is at most g, and
//! is deep when that layer is ⌈ρ·L⌉ or later. Pure functions of the divergences that
//! `probe::depth` computes (kept in nats), so the page and the CLI apply any g, ρ and unit.

use crate::error::{EngineError, Result};
use serde::{Deserialize, Serialize};

/// The study's defaults: g = 0.5 in bits, ρ = 0.85.
pub const DEFAULT_G: f64 = 0.5;
pub const DEFAULT_RHO: f64 = 0.85;

/// The unit D and g are read in: bits (base-2 logarithms, D from 0 to 1, the study's) or
/// nats (natural logarithms, 0 to ln 2, as some other implementations use).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    #[default]
    Bits,
    Nats,
}

impl Unit {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "bits" => Some(Self::Bits),
            "nats" => Some(Self::Nats),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Bits => "bits",
            Self::Nats => "nats",
        }
    }

    /// The largest Jensen–Shannon divergence in this unit: 1 bit, or ln 2 nats.
    pub fn max(self) -> f64 {
        match self {
            Self::Bits => 1.0,
            Self::Nats => std::f64::consts::LN_2,
        }
    }

    /// A divergence computed in nats, in this unit.
    pub fn of_nats(self, d: f32) -> f64 {
        match self {
            // ln 2 rounded to f32 is a hair above ln 2 in f64: the largest D stays 1 bit.
            Self::Bits => (d as f64 / std::f64::consts::LN_2).min(1.0),
            Self::Nats => d as f64,
        }
    }
}

/// The two thresholds of the definition, checked: g in `unit` within the range of D (0 to 1
/// bit, 0 to ln 2 nats), ρ in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    pub g: f64,
    pub rho: f64,
    pub unit: Unit,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self { g: DEFAULT_G, rho: DEFAULT_RHO, unit: Unit::Bits }
    }
}

impl Thresholds {
    /// Refuses a g outside the range of D in `unit` or a ρ outside [0, 1], naming the range.
    pub fn new(g: f64, rho: f64, unit: Unit) -> Result<Self> {
        if !(0.0..=unit.max()).contains(&g) {
            let range = match unit {
                Unit::Bits => "0 to 1 bit",
                Unit::Nats => "0 to ln 2 = 0.6931 nats",
            };
            return Err(EngineError::InvalidState(format!(
                "g must be {range} (the range of a Jensen–Shannon divergence), got {g}"
            )));
        }
        if !(0.0..=1.0).contains(&rho) {
            return Err(EngineError::InvalidState(format!("rho must be 0 to 1, got {rho}")));
        }
        Ok(Self { g, rho, unit })
    }

    /// c_t under these thresholds: `settle` with `jsd` (kept in nats) read in `unit`.
    pub fn settle(&self, jsd: &[f32]) -> usize {
        settle(jsd.iter().map(|&d| self.unit.of_nats(d)), self.g)
    }

    /// ⌈ρ · L⌉, the first deep layer. ρ · L is computed in binary, so a product that is a
    /// whole number in decimal (0.1 × 30) may come out a hair above it; that hair is not
    /// rounded up to the next layer.
    pub fn first_deep_layer(&self, layers: usize) -> usize {
        (self.rho * layers as f64 - 1e-9).ceil().max(0.0) as usize
    }

    /// Whether a token with divergences `jsd` is deep-thinking.
    pub fn deep(&self, jsd: &[f32]) -> bool {
        self.settle(jsd) >= self.first_deep_layer(jsd.len())
    }

    /// Deep tokens and the DTR of a reply (`None` for a reply of no tokens).
    pub fn ratio<'a>(&self, tokens: impl IntoIterator<Item = &'a [f32]>) -> (usize, Option<f64>) {
        let (mut deep, mut n) = (0, 0);
        for jsd in tokens {
            n += 1;
            deep += usize::from(self.deep(jsd));
        }
        (deep, (n > 0).then(|| deep as f64 / n as f64))
    }
}

/// c_t: the smallest layer l (1-based) with min_{j ≤ l} D_j ≤ g, D and g in one unit. The
/// last layer's D is 0, so every token of a scored reply settles; divergences that never
/// come within g (not ones this module makes) give L + 1.
pub fn settle(jsd: impl IntoIterator<Item = f64>, g: f64) -> usize {
    let mut low = f64::INFINITY;
    let mut layers = 0;
    for (l, d) in jsd.into_iter().enumerate() {
        low = low.min(d);
        if low <= g {
            return l + 1;
        }
        layers = l + 1;
    }
    layers + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::LN_2;

    #[test]
    fn bits_are_nats_over_ln_2_and_g_is_read_in_the_chosen_unit() {
        assert_eq!(Unit::Bits.of_nats(std::f32::consts::LN_2), 1.0);
        assert_eq!(Unit::Bits.of_nats(0.0), 0.0);
        // 0.5 nats = 0.5 / 0.693147 = 0.721348 bits.
        assert!((Unit::Bits.of_nats(0.5) - 0.721_347_52).abs() < 1e-7);
        assert_eq!(Unit::Nats.of_nats(0.5), 0.5);
        // D by layer in nats: 0.6, 0.4, 0.3, 0.1, 0. In bits: 0.866, 0.577, 0.433, 0.144, 0.
        let jsd = [0.6f32, 0.4, 0.3, 0.1, 0.0];
        let at = |g, unit| Thresholds::new(g, 0.85, unit).unwrap().settle(&jsd);
        // g = 0.5 bits is 0.347 nats: D first within it at layer 3 (0.3 nats = 0.433 bits).
        assert_eq!(at(0.5, Unit::Bits), 3);
        assert_eq!(at(0.5 * LN_2, Unit::Nats), 3);
        // g = 0.5 nats is 0.721 bits: already at layer 2 (0.4 nats = 0.577 bits).
        assert_eq!(at(0.5, Unit::Nats), 2);
        assert_eq!(at(0.5 / LN_2, Unit::Bits), 2);
        // The study's g = 0.75 is 0.52 nats: layer 2 here. Read as nats it is above ln 2, so
        // it is refused (and no D could exceed it: every token would settle at layer 1).
        assert_eq!(at(0.75, Unit::Bits), 2);
        assert!(Thresholds::new(0.75, 0.85, Unit::Nats).is_err());
        assert_eq!(at(0.0, Unit::Bits), 5);
    }

    #[test]
    fn g_is_refused_outside_the_range_of_d_in_its_unit() {
        assert!(Thresholds::new(0.9, 0.85, Unit::Bits).is_ok());
        assert!(Thresholds::new(1.0, 0.85, Unit::Bits).is_ok());
        let e = Thresholds::new(0.9, 0.85, Unit::Nats).unwrap_err().to_string();
        assert!(e.contains("0 to ln 2 = 0.6931 nats"), "{e}");
        let e = Thresholds::new(1.01, 0.85, Unit::Bits).unwrap_err().to_string();
        assert!(e.contains("0 to 1 bit"), "{e}");
        assert_eq!((Unit::parse("bits"), Unit::parse("nats"), Unit::parse("bans")), (Some(Unit::Bits), Some(Unit::Nats), None));
    }
}

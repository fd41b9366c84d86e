//! Round numbers for an axis: what every chart's ticks are made of.

/// The smallest of 1, 2, 5 or 10 times a power of ten that is at least `raw`.
pub fn nice_step(raw: f64) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&s| s >= raw)
        .unwrap_or(raw)
}

/// Round tick values covering `min..=max`: steps of 1, 2 or 5 times a power of ten.
pub fn ticks(min: f64, max: f64) -> Vec<f64> {
    let step = nice_step((max - min) / 5.0);
    let first = (min / step).floor();
    let last = (max / step).ceil();
    (0..=(last - first) as usize)
        .map(|i| (first + i as f64) * step)
        .collect()
}

/// A tick's text, with as many decimals as the step needs.
pub fn label(v: f64, ticks: &[f64]) -> String {
    let step = ticks.get(1).map_or(1.0, |t| t - ticks[0]);
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10()).ceil() as usize
    };
    format!("{v:.decimals$}")
}

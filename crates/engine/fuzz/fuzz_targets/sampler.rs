//! The sampler on arbitrary logits (NaN and ±inf included) and arbitrary settings.
//! `distribution` and `draw` never panic; when the settings pass `validate`, the final
//! probabilities are finite and sum to 1 (±1e-3), at least one candidate is eligible, and
//! `draw(u)` for u in [0, 1) returns an eligible token, and temperature 0 leaves exactly one
//! in every order of the stages. Logits that are not finite are
//! fed too: the engine treats NaN as the lowest logit and ±inf as the extreme finite ones,
//! so the same invariants hold for them.
#![no_main]

use arbitrary::{Result, Unstructured};
use engine::sampler::{distribution, SamplerSettings, Stage, DEFAULT_ORDER};
use libfuzzer_sys::fuzz_target;

const SPECIAL: [f32; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    10.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MIN,
    f32::MAX,
    f32::MIN_POSITIVE,
    1e-45,
    1.0 + f32::EPSILON,
    10.000001,
];

/// Mostly a value in [lo, hi], sometimes a special value, sometimes any bit pattern.
fn float(u: &mut Unstructured, lo: f32, hi: f32) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=7)? {
        0 => f32::from_bits(u.arbitrary()?),
        1 => SPECIAL[u.choose_index(SPECIAL.len())?],
        _ => lo + (hi - lo) * (u.arbitrary::<u16>()? as f32 / 65535.0),
    })
}

fn settings(u: &mut Unstructured) -> Result<SamplerSettings> {
    const STAGES: [Stage; 5] = [Stage::Greedy, Stage::Temperature, Stage::TopK, Stage::TopP, Stage::MinP];
    Ok(SamplerSettings {
        temperature: float(u, 0.0, 10.0)?,
        top_k: match u.int_in_range(0u8..=3)? {
            0 => 0,
            1 => u.arbitrary()?,
            _ => u.int_in_range(1..=50)?,
        },
        top_p: float(u, 0.0, 1.0)?,
        min_p: float(u, 0.0, 1.0)?,
        repeat_penalty: float(u, 0.0, 10.0)?,
        repeat_last_n: u.int_in_range(0..=80)?,
        seed: 0,
        order: if u.ratio(1u8, 8)? {
            let n = u.int_in_range(0..=6)?;
            (0..n).map(|_| Ok(STAGES[u.choose_index(STAGES.len())?])).collect::<Result<_>>()?
        } else {
            // A permutation of the four stages: temperature anywhere among the cuts.
            let mut left = DEFAULT_ORDER.to_vec();
            let mut order = Vec::new();
            while !left.is_empty() {
                order.push(left.remove(u.choose_index(left.len())?));
            }
            order
        },
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(s) = settings(&mut u) else { return };
    let Ok(n) = u.int_in_range(1usize..=600) else { return };
    let spread = float(&mut u, 0.0, 50.0).unwrap_or(10.0);
    let mut logits = Vec::with_capacity(n);
    for _ in 0..n {
        let l = match u.int_in_range(0u8..=15).unwrap_or(2) {
            0 => f32::from_bits(u.arbitrary().unwrap_or(0)),
            1 => SPECIAL[u.choose_index(SPECIAL.len()).unwrap_or(0)],
            _ => (u.arbitrary::<u16>().unwrap_or(0) as f32 / 32767.5 - 1.0) * spread,
        };
        logits.push(l);
    }
    let history: Vec<u32> =
        (0..u.int_in_range(0..=100).unwrap_or(0)).map(|_| u.int_in_range(0..=n as u32 + 5).unwrap_or(0)).collect();
    let draws: Vec<f64> = (0..8).map(|_| u.arbitrary::<u32>().unwrap_or(0) as f64 / 4294967296.0).collect();

    let d = distribution(&logits, &s, &history);
    for &x in &draws {
        let _ = d.draw(x);
    }
    if s.validate().is_err() {
        return;
    }
    assert_eq!(d.candidates.len(), n);
    assert!(d.eligible >= 1, "no eligible token");
    if s.temperature == 0.0 {
        assert_eq!(d.eligible, 1, "greedy keeps one token in every order: {s:?}");
    }
    assert_eq!(d.eligible, d.candidates.iter().filter(|c| c.eligible()).count());
    assert!(d.candidates.iter().all(|c| c.final_prob.is_finite() && (0.0..=1.0).contains(&c.final_prob)), "{d:?}");
    let sum: f64 = d.candidates.iter().map(|c| c.final_prob as f64).sum();
    assert!((sum - 1.0).abs() <= 1e-3, "final probabilities sum to {sum}; settings {s:?}");
    for &x in draws.iter().chain(&[0.0, 0.5, 1.0 - f64::EPSILON]) {
        let t = d.draw(x);
        assert!(d.get(t).is_some_and(|c| c.eligible()), "draw({x}) gave ineligible token {t}");
    }
});

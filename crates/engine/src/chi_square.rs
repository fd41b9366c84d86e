//! Pearson's chi-square goodness of fit, with its p-value, and total variation distance:
//! do draws follow a distribution? Lesson 1's "Sample 1000×" and Lesson 2's speculative
//! sampling ask it of the page's own draws, and the native tests of the samplers.

/// A chi-square test of observed counts against expected probabilities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChiSquare {
    pub statistic: f64,
    pub dof: usize,
    /// The probability of a statistic at least this large if the draws follow the
    /// expected probabilities exactly.
    pub p_value: f64,
    pub categories: usize,
}

/// Pearson's test over `(observed, expected probability)` pairs that cover every outcome.
/// Outcomes expected fewer than 5 times are pooled (the chi-square approximation needs
/// about 5 per category); `None` when fewer than two categories remain.
pub fn chi_square(cells: &[(u64, f64)], n: u64) -> Option<ChiSquare> {
    let n = n as f64;
    let mut cats: Vec<(f64, f64)> = Vec::new();
    let mut pooled = (0.0, 0.0);
    for &(o, p) in cells {
        if p * n >= 5.0 {
            cats.push((o as f64, p * n));
        } else {
            pooled.0 += o as f64;
            pooled.1 += p * n;
        }
    }
    if pooled.1 >= 5.0 {
        cats.push(pooled);
    } else if let Some(last) = cats.last_mut() {
        last.0 += pooled.0;
        last.1 += pooled.1;
    }
    if cats.len() < 2 {
        return None;
    }
    let statistic: f64 = cats.iter().map(|(o, e)| (o - e).powi(2) / e).sum();
    let dof = cats.len() - 1;
    Some(ChiSquare {
        statistic,
        dof,
        p_value: gamma_q(dof as f64 / 2.0, statistic / 2.0),
        categories: cats.len(),
    })
}

/// Half the summed absolute difference between observed frequencies and probabilities:
/// the largest difference in probability that any set of outcomes can show.
pub fn total_variation(cells: &[(u64, f64)], n: u64) -> f64 {
    cells
        .iter()
        .map(|&(o, p)| (o as f64 / n as f64 - p).abs())
        .sum::<f64>()
        / 2.0
}

/// The total variation distance a correct sampler is expected to show: the mean of
/// `total_variation` over `n` draws that follow `probs` exactly (cells covering every
/// outcome). Each cell's count is binomial, and the mean absolute deviation of a
/// Binomial(n, p) has a closed form (De Moivre): with m = ⌊np⌋,
/// E|X − np| = 2 (m + 1) C(n, m + 1) p^(m+1) (1 − p)^(n−m),
/// so E[TVD] = Σ E|X − np| / (2n), exactly. For large np it is the normal approximation
/// σ·√(2/π) per cell, which for k equally likely outcomes sums to about ½·√(2k/(πn)):
/// at k = 10 and n = 1000, about 0.04. A correct sampler shows this much distance from
/// chance alone; only a distance well above it suggests a wrong one.
pub fn expected_total_variation(probs: &[f64], n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let nf = n as f64;
    let mean_abs_dev = |p: f64| -> f64 {
        if p <= 0.0 || p >= 1.0 {
            return 0.0;
        }
        let m = (nf * p).floor();
        if m >= nf {
            return 0.0;
        }
        // ln of (m + 1) C(n, m + 1) p^(m+1) (1 − p)^(n−m).
        let ln_choose = ln_gamma(nf + 1.0) - ln_gamma(m + 2.0) - ln_gamma(nf - m);
        2.0 * ((m + 1.0).ln() + ln_choose + (m + 1.0) * p.ln() + (nf - m) * (1.0 - p).ln()).exp()
    };
    probs.iter().map(|&p| mean_abs_dev(p)).sum::<f64>() / (2.0 * nf)
}

/// The regularised upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a): the
/// chi-square survival function is Q(dof/2, x/2). Series below a + 1, continued fraction
/// above (Numerical Recipes, 3rd ed., §6.2).
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let front = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (1.0 - sum * front).max(0.0)
    } else {
        // Lentz's method for the continued fraction.
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            d = if d.abs() < tiny { tiny } else { d };
            c = b + an / c;
            c = if c.abs() < tiny { tiny } else { c };
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (front * h).min(1.0)
    }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        return std::f64::consts::PI.ln()
            - (std::f64::consts::PI * x).sin().ln()
            - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum: f64 = G[0]
        + G[1..]
            .iter()
            .enumerate()
            .map(|(i, g)| g / (x + i as f64 + 1.0))
            .sum::<f64>();
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_total_variation_is_exact_for_one_draw_and_normal_for_many() {
        // One draw of a fair coin: the frequencies are (1, 0) or (0, 1), always ½ away.
        assert!((expected_total_variation(&[0.5, 0.5], 1) - 0.5).abs() < 1e-12);
        // One draw of (0.2, 0.8): TVD is 0.8 with probability 0.2 and 0.2 with 0.8.
        assert!((expected_total_variation(&[0.2, 0.8], 1) - 0.32).abs() < 1e-12);
        // Two draws of a fair coin: TVD 0.5 (both alike, probability ½) or 0.
        assert!((expected_total_variation(&[0.5, 0.5], 2) - 0.25).abs() < 1e-12);
        // Many draws of k equally likely outcomes: ½·√(2(k−1)/(πn)), within a percent.
        let (k, n) = (10usize, 1000u64);
        let normal = 0.5 * (2.0 * (k as f64 - 1.0) / (std::f64::consts::PI * n as f64)).sqrt();
        let exact = expected_total_variation(&vec![1.0 / k as f64; k], n);
        assert!((exact / normal - 1.0).abs() < 0.01, "{exact} against {normal}");
        // A certain outcome never deviates.
        assert_eq!(expected_total_variation(&[1.0, 0.0], 500), 0.0);
    }

    #[test]
    fn chi_square_survival_matches_tables() {
        // (statistic, degrees of freedom, upper tail) from standard chi-square tables.
        for (x, k, want) in [
            (3.841, 1.0, 0.05),
            (24.32, 7.0, 0.001),
            (10.0, 10.0, 0.4405),
            (1.0, 2.0, (-0.5f64).exp()),
            (0.5, 3.0, 0.9189),
        ] {
            let got = gamma_q(k / 2.0, x / 2.0);
            assert!((got - want).abs() < 2e-4, "x={x}, k={k}: {got} vs {want}");
        }
    }

    #[test]
    fn rare_outcomes_are_pooled() {
        // Expected 50, 30, 16, 3, 1 of 100: the last two (4 together) join the third.
        let cells = [(52, 0.5), (28, 0.3), (15, 0.16), (4, 0.03), (1, 0.01)];
        let c = chi_square(&cells, 100).unwrap();
        assert_eq!((c.categories, c.dof), (3, 2));
        let want = 0.04 * 2.0 + (4.0f64 / 30.0) + (0.0f64 / 20.0);
        assert!((c.statistic - want).abs() < 1e-9, "{}", c.statistic);
        assert_eq!(
            chi_square(&[(100, 1.0)], 100),
            None,
            "one outcome: nothing to test"
        );
        assert!((total_variation(&[(60, 0.5), (40, 0.5)], 100) - 0.1).abs() < 1e-12);
    }
}

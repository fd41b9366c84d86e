//! The statistics Lesson 3 reports: intervals for one accuracy, the paired test between two
//! strategies run on the same tasks, and the sampling curves (pass@k, majority@k) of a run
//! with N samples per task. All exact and pure, so they can be tested against known values.

/// 95% Wilson score interval for `correct` successes out of `n` trials.
///
/// Used instead of the normal approximation because lesson runs are small (10-120 tasks) and
/// accuracies near 0 or 1 are common; Wilson stays inside [0, 1] and is not degenerate at
/// 0/n or n/n. With no trials nothing is known, so the interval is (0, 1).
pub fn wilson_interval(correct: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.959_963_984_540_054; // two-sided 95% normal quantile
    let n_f = n as f64;
    let p = correct.min(n) as f64 / n_f;
    let z2 = Z * Z;
    let denom = 1.0 + z2 / n_f;
    let center = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    ((center - half).max(0.0), (center + half).min(1.0))
}

/// Two strategies' verdicts on the same tasks, compared pair by pair.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Paired {
    /// Tasks the first strategy got right and the second wrong.
    pub only_first: usize,
    /// Tasks the second got right and the first wrong.
    pub only_second: usize,
    pub both: usize,
    pub neither: usize,
    /// McNemar's exact test: the two-sided binomial p-value of the discordant split.
    pub p_value: f64,
}

/// Compares two verdict lists over the same tasks (`first[i]` and `second[i]` are one task).
/// Tasks both strategies judge alike say nothing about which is better; McNemar's exact test
/// asks whether the discordant ones split further from half-and-half than chance would.
pub fn paired(first: &[bool], second: &[bool]) -> Paired {
    let mut p = Paired { only_first: 0, only_second: 0, both: 0, neither: 0, p_value: 1.0 };
    for (&a, &b) in first.iter().zip(second) {
        match (a, b) {
            (true, false) => p.only_first += 1,
            (false, true) => p.only_second += 1,
            (true, true) => p.both += 1,
            (false, false) => p.neither += 1,
        }
    }
    p.p_value = mcnemar_exact(p.only_first, p.only_second);
    p
}

/// Two-sided exact McNemar p-value for discordant counts `b` and `c`: twice the binomial
/// (n = b + c, 1/2) probability of a split at least as uneven, capped at 1. No discordant
/// pair gives 1.
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    let tail: f64 = (0..=b.min(c)).map(|i| (ln_choose(n, i) - n as f64 * std::f64::consts::LN_2).exp()).sum();
    (2.0 * tail).min(1.0)
}

fn ln_choose(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (1..=k).map(|j| ((n - k + j) as f64).ln() - (j as f64).ln()).sum()
}

/// Unbiased pass@k for one task with `c` of `n` samples correct (Chen et al. 2021): the
/// probability that k samples drawn without replacement from the n include a correct one,
/// 1 - C(n-c, k) / C(n, k), computed as a product so that no factorial overflows.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> f64 {
    assert!(k >= 1 && k <= n && c <= n, "pass@k needs 1 <= k <= n and c <= n");
    if n - c < k {
        return 1.0;
    }
    1.0 - ((n - c + 1)..=n).map(|i| 1.0 - k as f64 / i as f64).product::<f64>()
}

/// majority@k for one task: the expected accuracy of a majority vote over k of its n samples
/// drawn without replacement, each subset equally likely.
///
/// `keys` are the samples' canonical answers (`None` abstains) and `right` the correct key.
/// The vote is the runner's: abstentions do not vote, a subset with no vote is wrong, and a
/// tie is broken by the first of the tied keys to appear; since a random subset comes in
/// random order, that makes a tie a fair lottery, so a tie between the right key and t others
/// counts 1/(t+1). Exact: for each number a of right samples drawn, a dynamic programme over
/// the other keys counts the subsets in which no key gets more than a votes, by how many get
/// exactly a.
pub fn majority_at_k(keys: &[Option<String>], right: &str, k: usize) -> f64 {
    let n = keys.len();
    assert!(k >= 1 && k <= n, "majority@k needs 1 <= k <= n");
    let c = keys.iter().filter(|x| x.as_deref() == Some(right)).count();
    let abstain = keys.iter().filter(|x| x.is_none()).count();
    let mut others: Vec<usize> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for key in keys.iter().flatten().filter(|x| x.as_str() != right) {
        match seen.iter().position(|s| s == key) {
            Some(p) => others[p] += 1,
            None => {
                seen.push(key);
                others.push(1);
            }
        }
    }
    let mut favourable = 0.0;
    for a in 1..=c.min(k) {
        let rest = k - a;
        // ways[s][t]: ways to draw s samples from the keys so far with each key <= a, t of them = a.
        let mut ways = vec![vec![0.0f64; rest / a + 2]; rest + 1];
        ways[0][0] = 1.0;
        for &b in &others {
            let mut next = vec![vec![0.0f64; rest / a + 2]; rest + 1];
            for s in 0..=rest {
                for t in 0..ways[s].len() {
                    if ways[s][t] == 0.0 {
                        continue;
                    }
                    for x in 0..=b.min(a).min(rest - s) {
                        let tt = t + usize::from(x == a);
                        next[s + x][tt] += ways[s][t] * choose(b, x);
                    }
                }
            }
            ways = next;
        }
        for s in 0..=rest {
            let drawn_abstentions = rest - s;
            if drawn_abstentions > abstain {
                continue;
            }
            let per_tie: f64 = ways[s].iter().enumerate().map(|(t, w)| w / (t + 1) as f64).sum();
            favourable += choose(c, a) * choose(abstain, drawn_abstentions) * per_tie;
        }
    }
    favourable / choose(n, k)
}

fn choose(n: usize, k: usize) -> f64 {
    if k > n {
        0.0
    } else {
        ln_choose(n, k).exp().round()
    }
}

/// The mean over tasks of pass@k and majority@k for k = 1..=n, index k-1. Each task gives its
/// samples' keys, which of them are right, and the right key; every task has n samples.
pub fn sampling_curves(tasks: &[(Vec<Option<String>>, String)]) -> (Vec<f64>, Vec<f64>) {
    let n = tasks.first().map_or(0, |t| t.0.len());
    assert!(tasks.iter().all(|t| t.0.len() == n), "every task needs the same number of samples");
    let m = tasks.len().max(1) as f64;
    let pass = (1..=n)
        .map(|k| {
            tasks
                .iter()
                .map(|(keys, right)| pass_at_k(n, keys.iter().filter(|x| x.as_deref() == Some(right)).count(), k))
                .sum::<f64>()
                / m
        })
        .collect();
    let majority =
        (1..=n).map(|k| tasks.iter().map(|(keys, right)| majority_at_k(keys, right, k)).sum::<f64>() / m).collect();
    (pass, majority)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    fn approx(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 1e-4 && (a.1 - b.1).abs() < 1e-4
    }

    #[test]
    fn wilson_interval_known_values() {
        assert!(approx(wilson_interval(5, 10), (0.2366, 0.7634)), "{:?}", wilson_interval(5, 10));
        assert!(approx(wilson_interval(0, 10), (0.0, 0.2775)), "{:?}", wilson_interval(0, 10));
        assert!(approx(wilson_interval(10, 10), (0.7225, 1.0)), "{:?}", wilson_interval(10, 10));
        assert!(approx(wilson_interval(8, 10), (0.4902, 0.9433)), "{:?}", wilson_interval(8, 10));
        assert!(approx(wilson_interval(50, 100), (0.4038, 0.5962)), "{:?}", wilson_interval(50, 100));
        assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
    }

    #[test]
    fn wilson_interval_is_ordered_and_contains_the_estimate() {
        for n in 1..=40 {
            for c in 0..=n {
                let (lo, hi) = wilson_interval(c, n);
                let p = c as f64 / n as f64;
                assert!(0.0 <= lo && lo <= p + 1e-12 && p <= hi + 1e-12 && hi <= 1.0, "{c}/{n}: ({lo}, {hi})");
            }
        }
    }

    #[test]
    fn mcnemar_known_values() {
        // Bin(15, 1/2): P(X <= 4) = 1941 / 32768; the example "4 against 11, p = 0.12".
        assert!(close(mcnemar_exact(4, 11), 2.0 * 1941.0 / 32768.0));
        assert!(close(mcnemar_exact(11, 4), mcnemar_exact(4, 11)));
        assert!(close(mcnemar_exact(0, 5), 2.0 / 32.0));
        assert!(close(mcnemar_exact(3, 3), 1.0));
        assert!(close(mcnemar_exact(0, 0), 1.0));
        // Bin(100, 1/2), split 40/60: two-sided 0.05689 (R: binom.test(40, 100)).
        assert!((mcnemar_exact(40, 60) - 0.056_887_933).abs() < 1e-6, "{}", mcnemar_exact(40, 60));
    }

    #[test]
    fn paired_counts_each_kind_of_pair() {
        let a = [true, true, false, false, true];
        let b = [true, false, true, false, false];
        let p = paired(&a, &b);
        assert_eq!((p.only_first, p.only_second, p.both, p.neither), (2, 1, 1, 1));
        assert!(close(p.p_value, 1.0));
    }

    #[test]
    fn pass_at_k_known_values() {
        assert!(close(pass_at_k(10, 3, 1), 0.3));
        assert!(close(pass_at_k(10, 3, 2), 1.0 - 21.0 / 45.0));
        assert!(close(pass_at_k(10, 3, 8), 1.0));
        assert!(close(pass_at_k(10, 0, 10), 0.0));
        assert!(close(pass_at_k(5, 5, 1), 1.0));
        // Large n stays finite: 1 - C(190,100)/C(200,100) without factorials.
        let p = pass_at_k(200, 10, 100);
        assert!(p > 0.99 && p < 1.0, "{p}");
        // Never decreases in k.
        for c in 0..=8 {
            let v: Vec<f64> = (1..=8).map(|k| pass_at_k(8, c, k)).collect();
            assert!(v.windows(2).all(|w| w[0] <= w[1] + 1e-12), "{c}: {v:?}");
        }
    }

    fn keys(v: &[&str]) -> Vec<Option<String>> {
        v.iter().map(|s| if s.is_empty() { None } else { Some(s.to_string()) }).collect()
    }

    #[test]
    fn majority_at_k_known_values() {
        // A A B: one draw is right 2/3; two draws: {A,A} right, {A,B} twice a fair tie.
        let k = keys(&["A", "A", "B"]);
        assert!(close(majority_at_k(&k, "A", 1), 2.0 / 3.0));
        assert!(close(majority_at_k(&k, "A", 2), (1.0 + 0.5 + 0.5) / 3.0));
        assert!(close(majority_at_k(&k, "A", 3), 1.0));
        // An abstention alone is wrong; beside a right vote it does not count.
        let k = keys(&["A", ""]);
        assert!(close(majority_at_k(&k, "A", 1), 0.5));
        assert!(close(majority_at_k(&k, "A", 2), 1.0));
        // No right sample: always 0.
        assert!(close(majority_at_k(&keys(&["B", "C", "B"]), "A", 2), 0.0));
    }

    /// Every subset, every tie-break order: the definition itself, slowly.
    fn brute_force(keys: &[Option<String>], right: &str, k: usize) -> f64 {
        let n = keys.len();
        let (mut total, mut subsets) = (0.0, 0.0);
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize != k {
                continue;
            }
            subsets += 1.0;
            let mut counts: Vec<(&str, usize)> = Vec::new();
            for (i, key) in keys.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    if let Some(key) = key {
                        match counts.iter_mut().find(|c| c.0 == key) {
                            Some(c) => c.1 += 1,
                            None => counts.push((key, 1)),
                        }
                    }
                }
            }
            let top = counts.iter().map(|c| c.1).max().unwrap_or(0);
            let tied: Vec<&str> = counts.iter().filter(|c| c.1 == top).map(|c| c.0).collect();
            if top > 0 && tied.contains(&right) {
                total += 1.0 / tied.len() as f64;
            }
        }
        total / subsets
    }

    #[test]
    fn majority_at_k_matches_enumeration() {
        let cases = [
            keys(&["A", "B", "B", "C", "A", "", "B", "A", "D"]),
            keys(&["B", "C", "D", "A", "E", "", "", "A"]),
            keys(&["A", "A", "A", "B", "B", "B", "C", "C", "C", "A"]),
            keys(&["", "", "", "A"]),
        ];
        for keys in &cases {
            for k in 1..=keys.len() {
                let (exact, slow) = (majority_at_k(keys, "A", k), brute_force(keys, "A", k));
                assert!(close(exact, slow), "{keys:?} k={k}: {exact} vs {slow}");
            }
        }
    }

    #[test]
    fn curves_average_over_tasks() {
        let tasks = vec![(keys(&["A", "B"]), "A".to_string()), (keys(&["B", "B"]), "A".to_string())];
        let (pass, majority) = sampling_curves(&tasks);
        assert_eq!(pass.len(), 2);
        assert!(close(pass[0], 0.25) && close(pass[1], 0.5));
        assert!(close(majority[0], 0.25) && close(majority[1], 0.25));
    }
}

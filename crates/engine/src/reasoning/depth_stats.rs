//! What Lesson 3 reports about depth against length: the point-biserial correlation of
//! correctness with a trace's length and with its deep-thinking ratio, each with a seeded
//! percentile-bootstrap interval over tasks, and Think@n (Chen et al. 2026): per task, vote
//! over the half of the samples whose first P tokens think deepest, against the plain vote
//! over all. Pure functions of the samples' verdicts, lengths and per-token depth flags, so
//! the page recomputes them for other g, ρ or P without the model.

use super::answer::majority_vote;
use super::stats::{paired, wilson_interval, Paired};
use crate::sampler::Rng;
use serde::{Deserialize, Serialize};

/// Bootstrap resamples: enough for the 2.5th and 97.5th percentiles to move by about 0.01.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// A correlation, its 95% percentile-bootstrap interval and its N.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    /// Points (traces).
    pub n: usize,
    /// The tasks they come from, the units the interval resamples.
    pub tasks: usize,
    /// `None` when it is undefined: fewer than two points, or all right, or all wrong, or
    /// every x the same.
    pub r: Option<f64>,
    /// `None` with `r`, or when too few resamples (under half) had an r of their own.
    pub interval: Option<(f64, f64)>,
}

/// Pearson's r of `x` and `y`; `None` when either does not vary.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let (mx, my) = (x[..n].iter().sum::<f64>() / n as f64, y[..n].iter().sum::<f64>() / n as f64);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxx > 0.0 && syy > 0.0).then(|| (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// The point-biserial r of a binary `correct` with `x`: (M₁ − M₀)/s · √(n₁n₀/n²), s the
/// population standard deviation of x. (Algebraically Pearson's r with correct as 0/1;
/// written from its own formula so that the tests can hold one against the other.)
pub fn point_biserial(correct: &[bool], x: &[f64]) -> Option<f64> {
    let n = correct.len().min(x.len());
    let n1 = correct[..n].iter().filter(|&&c| c).count();
    let n0 = n - n1;
    if n1 == 0 || n0 == 0 {
        return None;
    }
    let mean = |right: bool| {
        x.iter().zip(correct).filter(|(_, &c)| c == right).map(|(v, _)| v).sum::<f64>()
            / if right { n1 } else { n0 } as f64
    };
    let m = x[..n].iter().sum::<f64>() / n as f64;
    let s = (x[..n].iter().map(|v| (v - m).powi(2)).sum::<f64>() / n as f64).sqrt();
    if s == 0.0 {
        return None;
    }
    let r = (mean(true) - mean(false)) / s * ((n1 * n0) as f64 / (n * n) as f64).sqrt();
    Some(r.clamp(-1.0, 1.0))
}

/// `point_biserial` with a 95% percentile-bootstrap interval over `BOOTSTRAP_RESAMPLES`
/// resamples drawn with SplitMix64 from `seed`, so that the same data and seed give the
/// same interval on every platform. Point i belongs to task `task[i]`, and the resamples
/// draw tasks with replacement, each with all its points: a task's chain of thought and its
/// self-consistency samples share its difficulty, so they are not independent evidence,
/// and resampling single points would make the interval too narrow. A resample whose r is
/// undefined (all right or all wrong) is left out; with under half defined, no interval.
pub fn correlation<T: PartialEq>(correct: &[bool], x: &[f64], task: &[T], seed: u64) -> Correlation {
    let n = correct.len().min(x.len()).min(task.len());
    let r = point_biserial(&correct[..n], &x[..n]);
    // Each task's points, in order of first appearance.
    let mut tasks: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        match tasks.iter_mut().find(|t| task[t[0]] == task[i]) {
            Some(t) => t.push(i),
            None => tasks.push(vec![i]),
        }
    }
    let interval = r.and_then(|_| {
        let mut rng = Rng::new(seed);
        let (mut c, mut v) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut rs: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
            .filter_map(|_| {
                (c.clear(), v.clear());
                for _ in 0..tasks.len() {
                    for &i in &tasks[(rng.next_u64() % tasks.len() as u64) as usize] {
                        c.push(correct[i]);
                        v.push(x[i]);
                    }
                }
                point_biserial(&c, &v)
            })
            .collect();
        if rs.len() < BOOTSTRAP_RESAMPLES / 2 {
            return None;
        }
        rs.sort_by(f64::total_cmp);
        // The q-quantile of B sorted values as rank q·(B − 1): symmetric at both ends.
        let at = |q: f64| rs[(q * (rs.len() - 1) as f64).round() as usize];
        Some((at(0.025), at(0.975)))
    });
    Correlation { n, tasks: tasks.len(), r, interval }
}

/// One self-consistency sample as Think@n sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkSample {
    /// The checker's key (the vote's), `None` when it settled on no answer.
    pub key: Option<String>,
    /// Per generated token, whether it was deep-thinking (under the g and ρ in use).
    pub deep: Vec<bool>,
}

impl ThinkSample {
    /// The DTR of the first `prefix` tokens (of all, when shorter); 0 for no tokens.
    pub fn prefix_dtr(&self, prefix: usize) -> f64 {
        let head = &self.deep[..prefix.min(self.deep.len())];
        if head.is_empty() {
            0.0
        } else {
            head.iter().filter(|&&d| d).count() as f64 / head.len() as f64
        }
    }
}

/// One task's samples and the key of its right answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkTask {
    pub samples: Vec<ThinkSample>,
    pub right: String,
}

/// Think@n against the plain vote, on the same samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkAtN {
    pub prefix: usize,
    pub tasks: usize,
    /// Per task, whether the plain vote over all N was right, and Think@n's.
    pub plain: Vec<bool>,
    pub think: Vec<bool>,
    pub plain_correct: usize,
    pub think_correct: usize,
    /// 95% Wilson intervals of the two accuracies.
    pub plain_interval: (f64, f64),
    pub think_interval: (f64, f64),
    /// Tokens generated: every sample in full for the plain vote; for Think@n, the kept
    /// samples in full and the others stopped after their first `prefix` tokens.
    pub plain_tokens: usize,
    pub think_tokens: usize,
    /// McNemar, Think@n first.
    pub paired: Paired,
}

/// The indices of the ⌈N/2⌉ samples with the highest DTR on their first `prefix` tokens;
/// equal ratios keep the samples' order.
pub fn kept(samples: &[ThinkSample], prefix: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..samples.len()).collect();
    order.sort_by(|&a, &b| samples[b].prefix_dtr(prefix).total_cmp(&samples[a].prefix_dtr(prefix)));
    order.truncate(samples.len().div_ceil(2));
    order.sort_unstable();
    order
}

/// Think@n with prefix `prefix` over `tasks`: the vote is self-consistency's own
/// (`majority_vote`: abstentions do not vote, ties go to the key that appeared first).
pub fn think_at_n(tasks: &[ThinkTask], prefix: usize) -> ThinkAtN {
    let right = |keys: &[Option<String>], task: &ThinkTask| majority_vote(keys).is_some_and(|v| v.winner == task.right);
    let (mut plain, mut think, mut plain_tokens, mut think_tokens) = (vec![], vec![], 0, 0);
    for task in tasks {
        let keys: Vec<Option<String>> = task.samples.iter().map(|s| s.key.clone()).collect();
        plain.push(right(&keys, task));
        let keep = kept(&task.samples, prefix);
        think.push(right(&keep.iter().map(|&i| keys[i].clone()).collect::<Vec<_>>(), task));
        for (i, s) in task.samples.iter().enumerate() {
            plain_tokens += s.deep.len();
            think_tokens += if keep.contains(&i) { s.deep.len() } else { s.deep.len().min(prefix) };
        }
    }
    let count = |v: &[bool]| v.iter().filter(|&&c| c).count();
    let (plain_correct, think_correct) = (count(&plain), count(&think));
    ThinkAtN {
        prefix,
        tasks: tasks.len(),
        plain_interval: wilson_interval(plain_correct, tasks.len()),
        think_interval: wilson_interval(think_correct, tasks.len()),
        paired: paired(&think, &plain),
        plain,
        think,
        plain_correct,
        think_correct,
        plain_tokens,
        think_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn point_biserial_is_pearson_on_zero_one_data() {
        let mut rng = Rng::new(7);
        for n in [2, 3, 10, 57] {
            let correct: Vec<bool> = (0..n).map(|i| i % 3 == 0 || rng.next_f64() < 0.4).collect();
            let x: Vec<f64> = (0..n).map(|_| rng.next_f64() * 300.0).collect();
            let ones: Vec<f64> = correct.iter().map(|&c| f64::from(u8::from(c))).collect();
            match (point_biserial(&correct, &x), pearson(&ones, &x)) {
                (Some(a), Some(b)) => assert!(close(a, b), "n={n}: {a} vs {b}"),
                (a, b) => assert_eq!(a, b, "n={n}"),
            }
        }
        // Known value: x = 1..4, correct on 3 and 4: (3.5 − 1.5)/√1.25 · ½ = 0.894427…
        let r = point_biserial(&[false, false, true, true], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(close(r, 2.0 / 1.25f64.sqrt() * 0.5), "{r}");
    }

    #[test]
    fn an_undefined_correlation_is_none() {
        assert_eq!(point_biserial(&[true, true], &[1.0, 2.0]), None);
        assert_eq!(point_biserial(&[true, false], &[3.0, 3.0]), None);
        assert_eq!(point_biserial(&[], &[]), None);
        let c = correlation(&[true, true, true], &[1.0, 2.0, 3.0], &[0, 1, 2], 1);
        assert_eq!((c.n, c.tasks, c.r, c.interval), (3, 3, None, None));
    }

    #[test]
    fn the_bootstrap_interval_contains_r_and_is_repeatable() {
        let mut rng = Rng::new(3);
        // Longer traces are wrong more often: r clearly negative. One trace per task.
        let x: Vec<f64> = (0..40).map(|i| 20.0 + 5.0 * i as f64).collect();
        let correct: Vec<bool> = (0..40).map(|i| rng.next_f64() * 40.0 > i as f64).collect();
        let task: Vec<usize> = (0..40).collect();
        let c = correlation(&correct, &x, &task, 42);
        let (r, (lo, hi)) = (c.r.unwrap(), c.interval.unwrap());
        assert!(lo <= r && r <= hi && lo < hi, "{r} in ({lo}, {hi})");
        assert!(r < -0.3 && hi < 0.0, "{r} ({lo}, {hi})");
        assert_eq!(correlation(&correct, &x, &task, 42), c);
        assert_ne!(correlation(&correct, &x, &task, 43).interval, c.interval);
    }

    #[test]
    fn copies_of_a_tasks_trace_add_no_evidence() {
        // Each of 30 tasks' trace, then the same 30 again five more times under the same
        // task: r is unchanged (every point counted six times), and, as the resamples draw
        // tasks, so is the interval. Resampling single traces would narrow it.
        let mut rng = Rng::new(5);
        let x: Vec<f64> = (0..30).map(|i| 10.0 + 3.0 * i as f64).collect();
        let correct: Vec<bool> = (0..30).map(|i| rng.next_f64() * 30.0 > i as f64).collect();
        let task: Vec<usize> = (0..30).collect();
        let one = correlation(&correct, &x, &task, 7);
        let six = correlation(&correct.repeat(6), &x.repeat(6), &task.repeat(6), 7);
        assert_eq!((one.tasks, six.tasks, six.n), (30, 30, 180));
        let (r1, r6) = (one.r.unwrap(), six.r.unwrap());
        assert!(close(r1, r6), "{r1} vs {r6}");
        let ((lo1, hi1), (lo6, hi6)) = (one.interval.unwrap(), six.interval.unwrap());
        assert!(close(lo1, lo6) && close(hi1, hi6), "({lo1}, {hi1}) vs ({lo6}, {hi6})");
        assert!(hi1 - lo1 > 0.1, "a real interval: ({lo1}, {hi1})");
    }

    fn sample(key: &str, deep: &[u8]) -> ThinkSample {
        ThinkSample { key: (!key.is_empty()).then(|| key.to_string()), deep: deep.iter().map(|&d| d == 1).collect() }
    }

    #[test]
    fn think_at_n_votes_over_the_deepest_half_of_each_tasks_samples() {
        // Task 1: the plain vote goes to the shallow "5"s; the two deepest say "7".
        let t1 = ThinkTask {
            samples: vec![
                sample("5", &[0, 0, 0, 1]),
                sample("7", &[1, 1, 0, 0, 0, 0]),
                sample("5", &[0, 0, 0, 0, 1]),
                sample("7", &[1, 0, 1, 0]),
                sample("5", &[0, 1, 0, 0]),
            ],
            right: "7".into(),
        };
        // Task 2: both votes right; task 3: the deepest sample abstains, so Think@n loses.
        let t2 = ThinkTask { samples: vec![sample("1", &[1, 1]), sample("1", &[0, 0])], right: "1".into() };
        let t3 = ThinkTask { samples: vec![sample("", &[1, 1, 1]), sample("2", &[0, 0, 0])], right: "2".into() };
        // Prefix 2: DTRs 0, 1, 0, 0.5, 0.5; the kept ⌈5/2⌉ = 3 are samples 1, 3, 4 (ties keep order).
        assert_eq!(kept(&t1.samples, 2), vec![1, 3, 4]);
        assert_eq!(t1.samples[1].prefix_dtr(2), 1.0);
        assert_eq!(t1.samples[1].prefix_dtr(100), 2.0 / 6.0);
        let r = think_at_n(&[t1.clone(), t2, t3], 2);
        assert_eq!((r.plain.clone(), r.think.clone()), (vec![false, true, true], vec![true, true, false]));
        assert_eq!((r.plain_correct, r.think_correct, r.tasks), (2, 2, 3));
        // Plain: every token (23 + 4 + 6); Think@n: kept in full (6+4+4, 2, 3), others cut at 2 (2+2, 2, 2).
        assert_eq!((r.plain_tokens, r.think_tokens), (33, 14 + 4 + 2 + 2 + 3 + 2));
        assert_eq!((r.paired.only_first, r.paired.only_second, r.paired.both), (1, 1, 1));
        // A longer prefix changes the ranking: at 6 tokens the DTRs are ¼, ⅓, ⅕, ½, ¼.
        assert_eq!(kept(&t1.samples, 6), vec![0, 1, 3]);
    }
}

//! DTR within a task. Across tasks, difficulty drives both correctness and the traces'
//! shape, so a correlation over all traces mixes the two. Within one task the difficulty is
//! fixed: for each task with both right and wrong samples, the mean DTR of its right samples
//! minus that of its wrong ones. Think@n relies on exactly this, ranking one task's samples
//! against each other. The mean of those differences comes with a paired 95% t-interval
//! over the tasks (each task one difference).

use serde::{Deserialize, Serialize};

/// The within-task difference of right minus wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WithinTask {
    /// Per task that has both right and wrong samples, in order of first appearance.
    pub differences: Vec<f64>,
    /// How many tasks that is.
    pub n: usize,
    /// `None` with no such task.
    pub mean: Option<f64>,
    /// mean ± t(0.975, n − 1) · s/√n; `None` with fewer than 2 tasks.
    pub interval: Option<(f64, f64)>,
}

/// Student's t at 0.975 for `df` degrees of freedom (df ≥ 1): the table's values to df = 30,
/// then the Cornish–Fisher expansion in 1/df, within 0.001 of the exact value there.
pub fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    if (1..=30).contains(&df) {
        return TABLE[df - 1];
    }
    let (z, d): (f64, f64) = (1.959_964, df.max(1) as f64);
    z + (z.powi(3) + z) / (4.0 * d) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
}

/// The within-task difference of `x` (a sample's DTR) between right and wrong samples;
/// sample i belongs to task `task[i]`.
pub fn within_task<T: PartialEq>(task: &[T], correct: &[bool], x: &[f64]) -> WithinTask {
    let n = task.len().min(correct.len()).min(x.len());
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        match groups.iter_mut().find(|g| task[g[0]] == task[i]) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    let mean_of = |g: &[usize], right: bool| {
        let v: Vec<f64> = g.iter().filter(|&&i| correct[i] == right).map(|&i| x[i]).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let differences: Vec<f64> =
        groups.iter().filter_map(|g| Some(mean_of(g, true)? - mean_of(g, false)?)).collect();
    let k = differences.len();
    let mean = (k > 0).then(|| differences.iter().sum::<f64>() / k as f64);
    let interval = mean.filter(|_| k >= 2).map(|m| {
        let s = (differences.iter().map(|d| (d - m).powi(2)).sum::<f64>() / (k - 1) as f64).sqrt();
        let half = t_975(k - 1) * s / (k as f64).sqrt();
        (m - half, m + half)
    });
    WithinTask { differences, n: k, mean, interval }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_task_with_both_verdicts_gives_one_difference() {
        // Task a: right 0.5, 0.3, wrong 0.1 → 0.4 − 0.1 = 0.3. Task b: right 0.2, wrong 0.4,
        // 0.6 → 0.2 − 0.5 = −0.3. Task c: all right, left out. Task d: right 0.9, wrong 0.4 → 0.5.
        let task = ["a", "a", "b", "c", "b", "a", "b", "c", "d", "d"];
        let correct = [true, true, true, true, false, false, false, true, true, false];
        let x = [0.5, 0.3, 0.2, 0.7, 0.4, 0.1, 0.6, 0.8, 0.9, 0.4];
        let w = within_task(&task, &correct, &x);
        assert_eq!(w.n, 3);
        let want = [0.3, -0.3, 0.5];
        assert!(w.differences.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12), "{:?}", w.differences);
        // Mean 0.5/3 = 0.1667; s² = ((0.1333)² + (0.4667)² + (0.3333)²)/2 = 0.17333, s = 0.41633;
        // half-width 4.303 · 0.41633/√3 = 1.03431.
        let m = w.mean.unwrap();
        assert!((m - 0.5 / 3.0).abs() < 1e-12);
        let (lo, hi) = w.interval.unwrap();
        let half = 4.303 * (0.52f64 / 3.0).sqrt() / 3f64.sqrt();
        assert!((hi - m - half).abs() < 1e-12 && (m - lo - half).abs() < 1e-12, "({lo}, {hi})");
        assert!((half - 1.034_312).abs() < 1e-6, "{half}");
    }

    #[test]
    fn one_task_has_a_mean_but_no_interval_and_none_has_neither() {
        let w = within_task(&[1, 1], &[true, false], &[0.25, 0.5]);
        assert_eq!((w.n, w.mean, w.interval), (1, Some(-0.25), None));
        let w = within_task(&[1, 2], &[true, false], &[0.25, 0.5]);
        assert_eq!((w.n, w.mean, w.interval), (0, None, None));
    }

    #[test]
    fn t_quantiles_meet_the_normal_one_as_df_grows() {
        assert_eq!((t_975(1), t_975(30)), (12.706, 2.042));
        // Exact values: 2.0211 at df 40, 1.9840 at 100.
        assert!((t_975(40) - 2.0211).abs() < 1e-3 && (t_975(100) - 1.9840).abs() < 1e-3);
        assert!(t_975(31) < 2.042 && t_975(31) > t_975(32));
    }
}

//! The study's own correlation (Chen et al. 2026): the traces are split into 5 quantile bins
//! of a measure (DTR, or length), and r is Pearson's over the bins, each bin's mean accuracy
//! against its mean measure. Over 5 points, not over the traces: averaging within bins
//! removes most of the trace-to-trace noise, so a binned r is far larger in size than the
//! per-trace point-biserial r of the same data (`depth_stats::correlation`). The page shows
//! both and says which one the study's r = 0.683 and −0.594 are.

use super::depth_stats::pearson;
use serde::{Deserialize, Serialize};

/// The study's number of bins.
pub const STUDY_BINS: usize = 5;

/// One quantile bin: its traces, their mean measure and the share of them that were right.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    pub n: usize,
    pub mean_x: f64,
    pub accuracy: f64,
}

/// The bins that hold traces, in order of the measure, and Pearson's r over them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Binned {
    pub bins: Vec<Bin>,
    /// `None` with fewer than 3 bins (r over 2 points is ±1 whatever the data), or when the
    /// bins' accuracies or means do not vary.
    pub r: Option<f64>,
}

/// Which of `bins` quantile bins each value falls in: the value's bin is
/// ⌊bins · (values below it) / n⌋, so equal values always share a bin (a tie is never split
/// by the order the traces came in), and a run of ties may leave the next bins empty.
pub fn quantile_bins(x: &[f64], bins: usize) -> Vec<usize> {
    let n = x.len();
    x.iter().map(|v| bins * x.iter().filter(|&&w| w < *v).count() / n.max(1)).collect()
}

/// The study's binned r of correctness with `x` over `bins` quantile bins.
pub fn binned_r(correct: &[bool], x: &[f64], bins: usize) -> Binned {
    let n = correct.len().min(x.len());
    let of = quantile_bins(&x[..n], bins);
    let bins: Vec<Bin> = (0..bins)
        .filter_map(|b| {
            let members: Vec<usize> = (0..n).filter(|&i| of[i] == b).collect();
            let k = members.len() as f64;
            (!members.is_empty()).then(|| Bin {
                n: members.len(),
                mean_x: members.iter().map(|&i| x[i]).sum::<f64>() / k,
                accuracy: members.iter().filter(|&&i| correct[i]).count() as f64 / k,
            })
        })
        .collect();
    let r = if bins.len() < 3 {
        None
    } else {
        let (xs, ys): (Vec<f64>, Vec<f64>) = bins.iter().map(|b| (b.mean_x, b.accuracy)).unzip();
        pearson(&xs, &ys)
    };
    Binned { bins, r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_a_bin_and_the_next_bins_may_stay_empty() {
        // Ten traces, three at DTR 0: values below each are 0,0,0,3,4,5,6,7,8,9, so the bins
        // ⌊5·below/10⌋ are 0,0,0,1,2,2,3,3,4,4.
        let x = [0.0, 0.0, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
        assert_eq!(quantile_bins(&x, 5), vec![0, 0, 0, 1, 2, 2, 3, 3, 4, 4]);
        // Six of ten tied at 0: ⌊5·6/10⌋ = 3 for the rest; bins 1 and 2 stay empty.
        let y = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.4, 0.6, 0.8];
        assert_eq!(quantile_bins(&y, 5), vec![0, 0, 0, 0, 0, 0, 3, 3, 4, 4]);
        // The order of the traces does not matter.
        assert_eq!(quantile_bins(&[0.7, 0.0, 0.3], 5), vec![3, 0, 1]);
    }

    #[test]
    fn binned_r_is_pearson_over_the_bins_means() {
        let x = [0.0, 0.0, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
        let correct = [false, true, false, false, true, false, true, true, true, false];
        let b = binned_r(&correct, &x, 5);
        // Bins: {0,0,0} 1/3 right, {0.1} 0, {0.2,0.3} 1/2, {0.4,0.5} 1, {0.6,0.7} 1/2.
        let want = [(3, 0.0, 1.0 / 3.0), (1, 0.1, 0.0), (2, 0.25, 0.5), (2, 0.45, 1.0), (2, 0.65, 0.5)];
        assert_eq!(b.bins.len(), 5);
        for (bin, (n, m, a)) in b.bins.iter().zip(want) {
            assert_eq!(bin.n, n);
            assert!((bin.mean_x - m).abs() < 1e-12 && (bin.accuracy - a).abs() < 1e-12, "{bin:?}");
        }
        // By hand: mean x = 0.29, mean accuracy = 7/15. Deviations dx = −.29, −.19, −.04,
        // .16, .36; dy = −2/15, −7/15, 1/30, 8/15, 1/30. Σdxdy = 0.67/3 = 0.2233…,
        // Σdx² = 0.277, Σdy² = 47/90 = 0.5222…, r = 0.2233 / √(0.277 · 0.5222) = 0.5872.
        let (sxy, sxx, syy): (f64, f64, f64) = (0.67 / 3.0, 0.277, 47.0 / 90.0);
        let r = b.r.unwrap();
        assert!((r - sxy / (sxx * syy).sqrt()).abs() < 1e-9, "{r}");
        assert!((r - 0.5872).abs() < 1e-4, "{r}");
    }

    #[test]
    fn fewer_than_three_bins_give_no_r() {
        // Eight of ten tied: two bins, 0 and 4.
        let x = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.9];
        let correct = [true, false, true, false, true, false, true, false, true, true];
        let b = binned_r(&correct, &x, 5);
        assert_eq!((b.bins.len(), b.r), (2, None));
        assert_eq!(binned_r(&[], &[], 5), Binned { bins: vec![], r: None });
    }
}

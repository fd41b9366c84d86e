//! Which loop decode's matrix-vector products run, per block family, chosen by timing the
//! candidates on the loaded model's own matrices at the current thread count (issue 38).
//!
//! Why measure: the order in which a product reads its rows is a bet on the hardware
//! prefetcher and on what the unpacking costs, and the bets differ between CPUs. Two rows
//! at a time halved Q8_0's speed on AMD EPYC (docs/BENCHMARKS.md, 2026-12-07), while the
//! 4-bit families gained by it there; an Intel Xeon lost a fifth to two fifths of its
//! decode speed after those choices. Every candidate forms each row's sum with the same
//! operations in the same order (`kernels::in_rows`), so the logits are the same to the bit
//! whichever loop runs: the choice changes speed only.
//!
//! The choice is small and serialisable, keyed by the model and the thread count, so that a
//! host can keep it (the page in the browser's storage) and hand it back on the next load
//! instead of timing again (`Model::kernels`).

use super::QMatrix;
use crate::parallel;
use serde::{Deserialize, Serialize};

/// The order in which a decode product reads its rows (`kernels::in_rows`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecodeLoop {
    /// One row after another: the weights are read as one sequential stream.
    OneRow,
    /// Rows r and r + 1 together, so that each load of the activations serves both: two
    /// streams a row apart, in the same memory pages.
    TwoRows,
    /// Rows r and r + h together, h half the rows a thread takes: the activations' loads are
    /// shared as in `TwoRows`, and the two streams lie apart, each sequential in its own pages.
    TwoHalves,
}

impl DecodeLoop {
    /// Every loop the engine can run, in the order they are timed and listed.
    pub const ALL: [DecodeLoop; 3] = [DecodeLoop::OneRow, DecodeLoop::TwoRows, DecodeLoop::TwoHalves];

    pub fn name(self) -> &'static str {
        match self {
            DecodeLoop::OneRow => "one-row",
            DecodeLoop::TwoRows => "two-rows",
            DecodeLoop::TwoHalves => "two-halves",
        }
    }

    pub fn from_name(name: &str) -> Option<DecodeLoop> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }

    pub(super) fn to_u8(self) -> u8 {
        self as u8
    }

    pub(super) fn from_u8(v: u8) -> DecodeLoop {
        Self::ALL[v as usize]
    }
}

/// A block family as decode's kernels see it: one per in-memory layout (F16 and BF16 are
/// widened to f32 at load, so they run as F32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Family {
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q8_0,
    Q2K,
    Q3K,
    Q4K,
    Q5K,
    Q6K,
    /// F32, F16 and BF16.
    F32,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Q4_0 => "Q4_0",
            Family::Q4_1 => "Q4_1",
            Family::Q5_0 => "Q5_0",
            Family::Q5_1 => "Q5_1",
            Family::Q8_0 => "Q8_0",
            Family::Q2K => "Q2_K",
            Family::Q3K => "Q3_K",
            Family::Q4K => "Q4_K",
            Family::Q5K => "Q5_K",
            Family::Q6K => "Q6_K",
            Family::F32 => "F32/F16/BF16",
        }
    }
}

/// What a choice holds for: the model (a name the host gives it, such as its file's SHA-256
/// or its file name, and the file's size), the thread count, and the loops that were
/// candidates. A stored choice whose key differs from the one at hand is timed again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelKey {
    pub model: String,
    pub file_bytes: u64,
    pub threads: usize,
    pub candidates: Vec<DecodeLoop>,
}

impl KernelKey {
    /// The key for `model` (`file_bytes` long) at the current thread count, with every loop
    /// this engine has as a candidate.
    pub fn now(model: impl Into<String>, file_bytes: u64) -> KernelKey {
        KernelKey {
            model: model.into(),
            file_bytes,
            threads: parallel::threads(),
            candidates: DecodeLoop::ALL.to_vec(),
        }
    }
}

/// One loop's times on one family: the time of each round (milliseconds to multiply the
/// same number of that family's bytes, `FamilyChoice::bytes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopTiming {
    pub decode_loop: DecodeLoop,
    pub rounds_ms: Vec<f64>,
}

impl LoopTiming {
    /// The fastest round: what the loop can do when nothing else interferes.
    pub fn best_ms(&self) -> f64 {
        self.rounds_ms.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The median round.
    pub fn median_ms(&self) -> f64 {
        let mut v = self.rounds_ms.clone();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::INFINITY)
    }
}

/// One family's choice: the loop it runs, the loop it ran before measuring, the weight
/// bytes each timing multiplied, every candidate's timings, and the noise they show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FamilyChoice {
    pub family: Family,
    pub chosen: DecodeLoop,
    pub default: DecodeLoop,
    pub bytes: u64,
    pub timings: Vec<LoopTiming>,
    /// `noise(timings)`: a candidate within this share of the fastest counts as as fast.
    pub noise: f64,
}

/// The loop of each block family a model uses, and how that was decided: timed on this
/// device (`timings` in each family), or forced by the host (no timings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelChoice {
    pub key: KernelKey,
    pub families: Vec<FamilyChoice>,
    /// The milliseconds the timing took in all, 0 when forced.
    pub took_ms: f64,
}

impl KernelChoice {
    /// The loop chosen for `family`, if the choice covers it.
    pub fn loop_for(&self, family: Family) -> Option<DecodeLoop> {
        self.families.iter().find(|f| f.family == family).map(|f| f.chosen)
    }

    /// Whether this choice can be used as it is for `key` on a model whose matrices are of
    /// `families`: the same key, and every family covered.
    pub fn fits(&self, key: &KernelKey, families: &[Family]) -> bool {
        self.key == *key && families.iter().all(|&f| self.loop_for(f).is_some())
    }
}

/// Rounds each candidate is timed, alternating with the others.
pub const ROUNDS: usize = 4;

/// Weight bytes of one family multiplied per timing, at most: enough, taken from a different
/// part of the model each time, that the weights come from memory as in a decode step (which
/// reads the whole model once) rather than from a cache that the last timing filled.
pub const BYTES_PER_TIMING: u64 = 8 << 20;

/// How far apart rounds of one loop fall: the largest relative gap between a candidate's
/// median and best round. A difference smaller than that between two loops' best rounds is
/// not evidence that one is faster.
pub fn noise(timings: &[LoopTiming]) -> f64 {
    timings.iter().map(|t| (t.median_ms() - t.best_ms()) / t.best_ms()).filter(|v| v.is_finite()).fold(0.0, f64::max)
}

/// The loop to run, from each candidate's timings: the one with the fastest best round,
/// unless `default` (the loop that ran before measuring) is within `noise` of it, in which
/// case `default` stays. So a family changes loop only on evidence beyond the noise.
pub fn pick(timings: &[LoopTiming], default: DecodeLoop) -> DecodeLoop {
    let fastest = timings.iter().min_by(|a, b| a.best_ms().total_cmp(&b.best_ms()));
    let Some(fastest) = fastest else { return default };
    let tolerance = fastest.best_ms() * (1.0 + noise(timings));
    match timings.iter().find(|t| t.decode_loop == default) {
        Some(d) if d.best_ms() <= tolerance => default,
        _ => fastest.decode_loop,
    }
}

/// Times every candidate loop on the matrices of each family in `matrices` (decode's
/// products: one activation row, split over the current threads as decode splits them),
/// picks each family's loop (`pick`) and sets it on those matrices. `clock` is in milliseconds.
pub(crate) fn choose(matrices: &[&QMatrix], key: KernelKey, clock: &dyn Fn() -> f64) -> KernelChoice {
    let start = clock();
    let mut families = Vec::new();
    for family in families_of(matrices) {
        let of: Vec<&QMatrix> = matrices.iter().copied().filter(|m| m.family() == family).collect();
        families.push(time_family(family, &of, &key.candidates, clock));
    }
    let choice = KernelChoice { key, families, took_ms: clock() - start };
    apply(matrices, &choice);
    choice
}

/// A choice of `decode_loop` for every family of `matrices`, untimed.
pub(crate) fn force(matrices: &[&QMatrix], key: KernelKey, decode_loop: DecodeLoop) -> KernelChoice {
    let families = families_of(matrices)
        .into_iter()
        .map(|family| FamilyChoice {
            family,
            chosen: decode_loop,
            default: default_of(matrices, family),
            bytes: 0,
            timings: Vec::new(),
            noise: 0.0,
        })
        .collect();
    let choice = KernelChoice { key, families, took_ms: 0.0 };
    apply(matrices, &choice);
    choice
}

/// Sets each matrix's loop to its family's in `choice` (a family the choice lacks keeps its own).
pub(crate) fn apply(matrices: &[&QMatrix], choice: &KernelChoice) {
    for m in matrices {
        if let Some(l) = choice.loop_for(m.family()) {
            m.set_decode_loop(l);
        }
    }
}

/// The families of `matrices`, each once, in `Family` order.
pub(crate) fn families_of(matrices: &[&QMatrix]) -> Vec<Family> {
    let mut f: Vec<Family> = matrices.iter().map(|m| m.family()).collect();
    f.sort();
    f.dedup();
    f
}

fn default_of(matrices: &[&QMatrix], family: Family) -> DecodeLoop {
    matrices.iter().find(|m| m.family() == family).map_or(DecodeLoop::OneRow, |m| m.default_decode_loop())
}

/// `ROUNDS` rounds; in each, every candidate multiplies the next `BYTES_PER_TIMING` of the
/// family's weights (its matrices' rows taken in turn, across matrices, so that every timing
/// reads as many bytes as the others, and different ones from the timing before), the
/// candidates in an order that rotates from round to round, so that a slow moment of the
/// machine does not fall on the same one each time.
fn time_family(
    family: Family,
    matrices: &[&QMatrix],
    candidates: &[DecodeLoop],
    clock: &dyn Fn() -> f64,
) -> FamilyChoice {
    let total: u64 = matrices.iter().map(|m| m.bytes() as u64).sum();
    let budget = BYTES_PER_TIMING.min(total);
    let mut timings: Vec<LoopTiming> =
        candidates.iter().map(|&l| LoopTiming { decode_loop: l, rounds_ms: Vec::new() }).collect();
    let inputs: Vec<Vec<f32>> = matrices.iter().map(|m| activations(m.cols)).collect();
    let mut out = vec![0f32; matrices.iter().map(|m| m.rows).max().unwrap_or(0)];
    // Where the next timing starts: a matrix, and a row in it.
    let (mut at, mut row) = (0, 0);
    for round in 0..ROUNDS {
        for k in 0..candidates.len() {
            let t = &mut timings[(round + k) % candidates.len()];
            let (t0, mut read) = (clock(), 0u64);
            while read < budget {
                let m = matrices[at];
                let row_bytes = (m.bytes() / m.rows).max(1) as u64;
                let n = ((budget - read).div_ceil(row_bytes) as usize).min(m.rows - row);
                m.matvec_using(&inputs[at], t.decode_loop, row..row + n, &mut out[..n]);
                read += n as u64 * row_bytes;
                row += n;
                if row == m.rows {
                    (at, row) = ((at + 1) % matrices.len(), 0);
                }
            }
            t.rounds_ms.push(clock() - t0);
        }
    }
    // The products must be computed: keep their result observable.
    std::hint::black_box(&out);
    let default = default_of(matrices, family);
    FamilyChoice { family, chosen: pick(&timings, default), default, bytes: budget, noise: noise(&timings), timings }
}

/// An activation row of `n` ordinary values (no zeros, no subnormals: speed does not depend
/// on them, and these are what a pass multiplies).
fn activations(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i as f32) * 0.618_034).sin() + 0.01).collect()
}

//! What the depth panels read from the depth a run measured (`Run::depth`, one record per
//! scored task run) under the learner's g and ρ: one point per trace, the cost of
//! measuring, the Think@n input, and the lens's own readings (the mean D by layer, the
//! prompts' baseline DTR).

use super::run::Run;
use engine::probe::depth::{Thresholds, Unit};
use engine::reasoning::depth_stats::{ThinkSample, ThinkTask};
use engine::reasoning::strategy::Strategy;
use engine::reasoning::trace_depth::{mean_by_layer, SampleDepth};
use super::run::DepthRecord;

/// One scored trace: a chain of thought or one self-consistency sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub task_id: String,
    pub strategy: Strategy,
    /// The sample's place among its task's samples, from 0.
    pub sample: usize,
    pub correct: bool,
    pub depth: SampleDepth,
    /// Its settling layer per token, and whether that token is deep, under the thresholds.
    pub settle: Vec<usize>,
    pub deep: Vec<bool>,
}

impl Point {
    pub fn tokens(&self) -> usize {
        self.deep.len()
    }

    pub fn dtr(&self) -> f64 {
        self.deep.iter().filter(|&&d| d).count() as f64 / self.tokens().max(1) as f64
    }
}

/// The records of the run's complete tasks (those the results show).
fn shown(run: &Run) -> impl Iterator<Item = &DepthRecord> {
    let complete = run.complete_results().len();
    run.depth.iter().filter(move |r| r.result < complete)
}

/// Every scored trace of the run, in the run's order.
pub fn points(run: &Run, t: Thresholds) -> Vec<Point> {
    let mut out = Vec::new();
    for record in shown(run) {
        let result = &run.results[record.result];
        for (i, (depth, sample)) in record.samples.iter().zip(&result.samples).enumerate() {
            let Some(depth) = depth else { continue };
            out.push(Point {
                task_id: result.task_id.clone(),
                strategy: result.strategy,
                sample: i,
                correct: sample.correct,
                settle: depth.tokens.iter().map(|d| t.settle(&d.jsd)).collect(),
                deep: depth.tokens.iter().map(|d| t.deep(&d.jsd)).collect(),
                depth: depth.clone(),
            });
        }
    }
    out
}

/// What measuring depth cost on this run: the generation time of the scored task runs and
/// the scoring time, in ms.
pub fn cost(run: &Run) -> (f64, f64) {
    shown(run).fold((0.0, 0.0), |(gen, depth), r| (gen + run.results[r.result].latency_ms, depth + r.depth_ms))
}

/// Self-consistency's tasks with their samples' answers and deep tokens, for Think@n.
pub fn think_tasks(run: &Run, t: Thresholds) -> Vec<ThinkTask> {
    shown(run)
        .filter_map(|record| {
            let result = &run.results[record.result];
            (result.strategy == Strategy::SelfConsistency).then(|| ThinkTask {
                samples: result
                    .samples
                    .iter()
                    .zip(&record.samples)
                    .map(|(s, d)| ThinkSample {
                        key: s.canonical.clone(),
                        deep: d.as_ref().map_or_else(Vec::new, |d| d.tokens.iter().map(|x| t.deep(&x.jsd)).collect()),
                    })
                    .collect(),
                right: result.expected.clone().unwrap_or_default(),
            })
        })
        .collect()
}

/// Think@n's rates on this run, from its self-consistency task runs: generation, ms per
/// generated token; depth scoring, ms per scored token. `None` without such runs.
pub fn think_rates(run: &Run) -> Option<(f64, f64)> {
    let (mut gen_ms, mut generated, mut depth_ms, mut scored) = (0.0, 0usize, 0.0, 0usize);
    for r in shown(run).filter(|r| run.results[r.result].strategy == Strategy::SelfConsistency) {
        let result = &run.results[r.result];
        gen_ms += result.latency_ms;
        generated += result.samples.iter().map(|s| s.tokens.len()).sum::<usize>();
        depth_ms += r.depth_ms;
        scored += r.samples.iter().flatten().map(|d| d.tokens.len()).sum::<usize>();
    }
    (generated > 0 && scored > 0).then(|| (gen_ms / generated as f64, depth_ms / scored as f64))
}

/// The DTR of each task's prompt, scored teacher-forced (the baseline), in task order.
pub fn prompt_dtrs(run: &Run, t: Thresholds) -> Vec<f64> {
    shown(run)
        .filter_map(|r| r.prompt.as_ref())
        .filter_map(|p| t.ratio(p.tokens.iter().map(|d| d.jsd.as_slice())).1)
        .collect()
}

/// The mean D by layer, in `unit`, over every scored trace token, and over every prompt token.
pub fn layer_means(run: &Run, unit: Unit) -> (Vec<f64>, Vec<f64>) {
    let traces = mean_by_layer(shown(run).flat_map(|r| r.samples.iter().flatten()).flat_map(|d| &d.tokens), unit);
    let prompts = mean_by_layer(shown(run).filter_map(|r| r.prompt.as_ref()).flat_map(|d| &d.tokens), unit);
    (traces, prompts)
}

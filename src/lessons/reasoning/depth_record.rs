//! The depth a run measured (`Response::ExperimentDepth`, one record per scored task run),
//! and what the depth panels read from it under the learner's g and ρ: one point per trace,
//! the cost of measuring, the Think@n input. Shared by the lab, which stores the records,
//! and the panels, which draw them.

use super::run::Run;
use engine::probe::depth::{settle, Thresholds};
use engine::reasoning::depth_stats::{ThinkSample, ThinkTask};
use engine::reasoning::strategy::Strategy;
use engine::reasoning::trace_depth::SampleDepth;

/// The depth of one task run's samples, in sample order.
#[derive(Debug, Clone, PartialEq)]
pub struct DepthRecord {
    /// The index of its result in `Run::results`.
    pub result: usize,
    pub samples: Vec<Option<SampleDepth>>,
    /// What scoring them took in the worker.
    pub depth_ms: f64,
}

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
fn shown<'a>(run: &'a Run, records: &'a [DepthRecord]) -> impl Iterator<Item = &'a DepthRecord> {
    let complete = run.complete_results().len();
    records.iter().filter(move |r| r.result < complete)
}

/// Every scored trace of the run, in the run's order.
pub fn points(run: &Run, records: &[DepthRecord], t: Thresholds) -> Vec<Point> {
    let mut out = Vec::new();
    for record in shown(run, records) {
        let result = &run.results[record.result];
        for (i, (depth, sample)) in record.samples.iter().zip(&result.samples).enumerate() {
            let Some(depth) = depth else { continue };
            out.push(Point {
                task_id: result.task_id.clone(),
                strategy: result.strategy,
                sample: i,
                correct: sample.correct,
                settle: depth.tokens.iter().map(|d| settle(&d.jsd, t.g)).collect(),
                deep: depth.tokens.iter().map(|d| t.deep(&d.jsd)).collect(),
                depth: depth.clone(),
            });
        }
    }
    out
}

/// What measuring depth cost on this run: the generation time of the scored task runs and
/// the scoring time, in ms.
pub fn cost(run: &Run, records: &[DepthRecord]) -> (f64, f64) {
    shown(run, records).fold((0.0, 0.0), |(gen, depth), r| (gen + run.results[r.result].latency_ms, depth + r.depth_ms))
}

/// Self-consistency's tasks with their samples' answers and deep tokens, for Think@n.
pub fn think_tasks(run: &Run, records: &[DepthRecord], t: Thresholds) -> Vec<ThinkTask> {
    shown(run, records)
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

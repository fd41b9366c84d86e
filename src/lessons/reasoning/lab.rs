//! The experiment runner: it sends the experiment to the worker, follows its progress, and
//! keeps the latest run and every finished one (the exercises check those), saved in the
//! browser (`saved_runs.rs`) so that they outlive the page. Leaving the page stops a run;
//! the tasks it had finished are saved, and shown on return.

use super::run::{DepthRecord, Run, RunState, SweepItem};
use super::saved_runs;
use super::settings::Settings;
use crate::protocol::{Request, Response};
use crate::ui::lab::LabEngine;
use crate::ui::store::MadeBy;
use leptos::prelude::*;

/// The worker's last progress report.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Progress {
    /// Finished task runs (one task under one strategy), of `total`.
    pub done: usize,
    pub total: usize,
    /// Tokens the running task run has generated so far.
    pub tokens: usize,
    /// When the run started (`performance.now()`, ms), for the time left.
    pub started_ms: f64,
    /// While the faithfulness tests run on the last trace: the variants finished, of how many.
    pub testing: Option<(usize, usize)>,
}

impl Progress {
    /// The time left, in seconds, at the pace of the task runs finished so far; unknown
    /// until one has finished.
    pub fn seconds_left(&self, now_ms: f64) -> Option<f64> {
        (self.done > 0 && self.done < self.total).then(|| {
            let per_item = (now_ms - self.started_ms) / self.done as f64;
            per_item * (self.total - self.done) as f64 / 1000.0
        })
    }
}

#[derive(Clone, Copy)]
pub struct Lab {
    pub settings: Settings,
    /// The latest run, running or ended.
    pub run: RwSignal<Option<Run>>,
    pub progress: RwSignal<Progress>,
    /// Every finished run, the saved ones included, oldest first (not those stopped when
    /// the learner left the page: the exercises judge whole runs).
    pub history: RwSignal<Vec<Run>>,
    /// Why the last Run did not start, if it did not.
    pub problem: RwSignal<Option<String>>,
    /// Why the last finished run could not be saved (or the saved ones read).
    pub save_problem: RwSignal<Option<String>>,
    /// The engine, one experiment at a time; leaving the page cancels the running one.
    pub engine: LabEngine,
    /// When the run shown is a saved one, what made it (a new run takes it off):
    /// "Measured on" must not name the model loaded now for it.
    pub restored_from: RwSignal<Option<MadeBy>>,
}

// No `Default`: a lab needs the app's context (the bridge), which only a component has.
#[allow(clippy::new_without_default)]
impl Lab {
    pub fn new() -> Self {
        let lab = Lab {
            settings: Settings::new(),
            run: RwSignal::new(None),
            progress: RwSignal::new(Progress::default()),
            history: RwSignal::new(Vec::new()),
            problem: RwSignal::new(None),
            save_problem: RwSignal::new(None),
            engine: LabEngine::new(),
            restored_from: RwSignal::new(None),
        };
        saved_runs::restore(lab.save_problem, move |runs| lab.restore(runs));
        // After the engine's own cleanup, which stops the run.
        on_cleanup(move || lab.leave());
        lab
    }

    /// The saved runs come before this visit's; the newest is shown unless one was started.
    fn restore(self, runs: Vec<(Run, MadeBy)>) {
        let newest = runs.last().cloned();
        let runs = runs
            .into_iter()
            .map(|(run, _)| run)
            .filter(|run| run.state == RunState::Finished)
            .collect();
        self.history.try_update(|h| {
            let started = std::mem::replace(h, runs);
            h.extend(started);
        });
        if let (Some((run, model)), Some(None)) = (newest, self.run.try_get_untracked()) {
            let (done, total) = run.task_runs();
            self.progress.try_set(Progress {
                done,
                total,
                ..Progress::default()
            });
            self.run.try_set(Some(run));
            self.restored_from.try_set(Some(model));
        }
    }

    pub fn is_running(&self) -> bool {
        self.engine.busy()
    }

    pub fn start(self) {
        // A second press before Run is disabled (effects run a tick later) is ignored.
        if self.engine.busy_untracked() {
            return;
        }
        if !self.engine.chat_model() {
            // Run is off then; this is for a submit that bypasses the button.
            return self.problem.set(Some(needs_chat("The loaded model", crate::model_file::default_built_in().name)));
        }
        let experiment = match self.settings.experiment() {
            Ok(e) => e,
            Err(message) => return self.problem.set(Some(message)),
        };
        self.problem.set(None);
        let number = self
            .run
            .with_untracked(|r| r.as_ref().map_or(0, |r| r.number))
            + 1;
        let run = Run::new(number, experiment.clone());
        self.restored_from.set(None);
        self.progress.set(Progress {
            done: 0,
            total: run.tasks.len() * run.experiment.runs_per_task(),
            tokens: 0,
            started_ms: now_ms(),
            testing: None,
        });
        self.run.set(Some(run));
        let lab = self;
        // The page may be left mid-run: the signals may be gone when a response arrives.
        self.engine.send(
                "experiment",
                Request::RunExperiment { experiment },
                move |response| match response {
                    Response::ExperimentProgress {
                        done,
                        total,
                        tokens,
                    } => {
                        lab.progress.try_update(|p| (p.done, p.total, p.tokens) = (done, total, tokens));
                    }
                    Response::ExperimentItem { result } => {
                        lab.progress
                            .try_update(|p| (p.done, p.tokens) = (p.done + 1, 0));
                        lab.run
                            .try_update(|run| run.as_mut().map(|r| r.results.push(result)));
                    }
                    Response::ExperimentDepth { samples, depth_ms, prompt } => {
                        // It follows its item's `ExperimentItem`, the last result so far.
                        lab.run.try_update(|run| {
                            run.as_mut().map(|r| {
                                let result = r.results.len().saturating_sub(1);
                                r.depth.push(DepthRecord { result, samples, depth_ms, prompt })
                            })
                        });
                    }
                    Response::ExperimentSweepItem { budget, result } => {
                        lab.progress.try_update(|p| (p.done, p.tokens) = (p.done + 1, 0));
                        lab.run.try_update(|run| run.as_mut().map(|r| r.sweep.push(SweepItem { budget, result })));
                    }
                    Response::FaithfulnessProgress { finished, variants, tokens } => {
                        lab.progress.try_update(|p| (p.testing, p.tokens) = (Some((finished, variants)), tokens));
                    }
                    Response::ExperimentFaithfulness { faith } => {
                        lab.progress.try_update(|p| (p.testing, p.tokens) = (None, 0));
                        lab.run.try_update(|run| run.as_mut().map(|r| r.faithfulness.push(faith)));
                    }
                    Response::ExperimentDone { cancelled } => lab.end(if cancelled {
                        RunState::Cancelled
                    } else {
                        RunState::Finished
                    }),
                    Response::Error { message } => lab.end(RunState::Failed(message)),
                    other => lab.end(RunState::Failed(format!(
                        "Unexpected answer from the engine: {other:?}"
                    ))),
                },
            );
    }

    pub fn cancel(&self) {
        self.engine.stop();
    }

    /// The learner leaves the page while a run goes on: the tasks it finished are saved (the
    /// rest is stopped with the page), so that the page shows them on return.
    fn leave(self) {
        let Some(Some(run)) = self.run.try_get_untracked() else { return };
        if run.state != RunState::Running {
            return;
        }
        if let Some(kept) = run.kept_when_left() {
            saved_runs::save(&kept, self.engine.made_by(), self.save_problem);
        }
    }

    fn end(&self, state: RunState) {
        let finished = state == RunState::Finished;
        self.run
            .try_update(|run| run.as_mut().map(|r| r.state = state));
        if finished {
            if let Some(run) = self.run.try_get_untracked().flatten() {
                saved_runs::save(&run, self.engine.made_by(), self.save_problem);
                self.history.try_update(|h| h.push(run));
            }
        }
    }
}

/// Why a base model cannot run this lab, in one sentence.
pub fn needs_chat(model: &str, default: &str) -> String {
    format!("{model} is a base model with no chat template, and every strategy here is a chat prompt (a question with an instruction to answer, or to think step by step first), so Run is off: pick {default} or another chat model above.")
}

/// The page's clock, in milliseconds.
pub fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

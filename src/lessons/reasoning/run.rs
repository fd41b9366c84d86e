//! One experiment as the page knows it: its settings, its tasks, the results the worker
//! streamed, and how it ended. Every figure the page shows is computed from these results.

use crate::protocol::Experiment;
use serde::{Deserialize, Serialize};
use engine::reasoning::faithfulness::Faithfulness;
use engine::reasoning::stats::wilson_interval;
use engine::reasoning::strategy::{summarize, ItemResult, Strategy, Summary};
use engine::reasoning::task::Task;
use engine::reasoning::trace_depth::SampleDepth;

#[derive(Debug, Clone, PartialEq)]
pub enum RunState {
    Running,
    Finished,
    Cancelled,
    /// The learner left the page while it ran: the tasks it had finished were kept.
    Left,
    Failed(String),
}

impl RunState {
    /// The `data-state` the page and the tests see.
    pub fn name(&self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Finished => "finished",
            RunState::Cancelled => "cancelled",
            RunState::Left => "left",
            RunState::Failed(_) => "failed",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// 1 for the visit's first run, and so on: how the page and the checks name a run.
    pub number: usize,
    pub experiment: Experiment,
    pub tasks: Vec<Task>,
    /// In the worker's order: task by task, each under every strategy.
    pub results: Vec<ItemResult>,
    /// The faithfulness tests on each chain-of-thought trace, in task order, when the
    /// experiment asked for them.
    pub faithfulness: Vec<Faithfulness>,
    /// The budget sweep's results, task by task, each task at every budget in order.
    pub sweep: Vec<SweepItem>,
    /// The depth of its traces, task run by task run, when the experiment measured depth.
    pub depth: Vec<DepthRecord>,
    pub state: RunState,
}

/// The depth of one task run's samples, in sample order (`Response::ExperimentDepth`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DepthRecord {
    /// The index of its result in `Run::results`.
    pub result: usize,
    pub samples: Vec<Option<SampleDepth>>,
    /// What scoring them took in the worker.
    pub depth_ms: f64,
    /// The task's prompt scored as a baseline, on the task's first scored run only; runs
    /// saved before it was measured have none.
    #[serde(default)]
    pub prompt: Option<SampleDepth>,
}

/// One task under chain of thought at one budget of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepItem {
    pub budget: usize,
    pub result: ItemResult,
}

/// Correct answers out of n, with the 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    pub correct: usize,
    pub n: usize,
    pub tokens: usize,
}

impl Score {
    pub fn interval(&self) -> (f64, f64) {
        wilson_interval(self.correct, self.n)
    }

    /// "2/5 (40%, 95% interval 12–77%)".
    pub fn text(&self) -> String {
        let (low, high) = self.interval();
        let pct = |x: f64| format!("{:.0}", x * 100.0);
        let accuracy = if self.n > 0 {
            self.correct as f64 / self.n as f64
        } else {
            0.0
        };
        format!(
            "{}/{} ({}%, 95% interval {}–{}%)",
            self.correct,
            self.n,
            pct(accuracy),
            pct(low),
            pct(high)
        )
    }
}

impl Run {
    pub fn new(number: usize, experiment: Experiment) -> Self {
        Run {
            number,
            tasks: experiment.tasks(),
            experiment,
            results: Vec::new(),
            faithfulness: Vec::new(),
            sweep: Vec::new(),
            depth: Vec::new(),
            state: RunState::Running,
        }
    }

    /// What the results show: the complete tasks only, so that it changes once per task.
    /// Without the depth records, which the depth panels read from the run itself: they are
    /// most of a run's size, and each part of the evidence takes its own snapshot.
    pub fn snapshot(&self) -> Run {
        Run {
            number: self.number,
            experiment: self.experiment.clone(),
            tasks: self.tasks.clone(),
            results: self.complete_results().to_vec(),
            faithfulness: self.complete_faithfulness().to_vec(),
            sweep: self.sweep.clone(),
            depth: Vec::new(),
            state: self.state.clone(),
        }
    }

    /// What a running run keeps when the learner leaves the page: the tasks finished under
    /// every strategy and at every budget of the sweep, with their faithfulness tests and
    /// depth; none when no task has finished.
    pub fn kept_when_left(&self) -> Option<Run> {
        let budgets = self.experiment.sweep_budgets().len();
        let mut tasks = self.complete_tasks();
        if budgets > 0 {
            tasks = tasks.min(self.sweep.len() / budgets);
        }
        if tasks == 0 {
            return None;
        }
        let results = tasks * self.strategies().len();
        let ids = &self.task_ids()[..tasks];
        let faithful = self.faithfulness.iter().take_while(|f| ids.contains(&f.task.as_str())).count();
        Some(Run {
            number: self.number,
            experiment: self.experiment.clone(),
            tasks: self.tasks.clone(),
            results: self.results[..results].to_vec(),
            faithfulness: self.faithfulness[..faithful].to_vec(),
            sweep: self.sweep[..tasks * budgets].to_vec(),
            depth: self.depth.iter().filter(|d| d.result < results).cloned().collect(),
            state: RunState::Left,
        })
    }

    /// The task runs (a task under one strategy or at one budget) it has results for, of
    /// how many the experiment asks: the progress a run read back shows.
    pub fn task_runs(&self) -> (usize, usize) {
        (self.results.len() + self.sweep.len(), self.tasks.len() * self.experiment.runs_per_task())
    }

    /// The sweep's results on the tasks it finished at every budget, in the worker's order.
    pub fn complete_sweep(&self) -> &[SweepItem] {
        let budgets = self.experiment.sweep_budgets().len().max(1);
        &self.sweep[..self.sweep.len() / budgets * budgets]
    }

    /// The faithfulness tests of the complete tasks (they come task by task, in order).
    pub fn complete_faithfulness(&self) -> &[Faithfulness] {
        let ids = self.task_ids();
        let complete = &ids[..self.complete_tasks()];
        let n = self.faithfulness.iter().take_while(|f| complete.contains(&f.task.as_str())).count();
        &self.faithfulness[..n]
    }

    pub fn strategies(&self) -> &[Strategy] {
        &self.experiment.strategies
    }

    /// How many tasks have a result under every strategy. The worker goes task by task,
    /// so these are the first ones; a cancelled run compares the strategies on them only.
    pub fn complete_tasks(&self) -> usize {
        self.results.len() / self.strategies().len().max(1)
    }

    /// The results on the complete tasks, in the worker's order.
    pub fn complete_results(&self) -> &[ItemResult] {
        &self.results[..self.complete_tasks() * self.strategies().len()]
    }

    pub fn results_of(&self, strategy: Strategy) -> Vec<ItemResult> {
        self.complete_results()
            .iter()
            .filter(|r| r.strategy == strategy)
            .cloned()
            .collect()
    }

    /// The results table: one summary per strategy, on the same tasks.
    pub fn summaries(&self) -> Vec<Summary> {
        self.strategies().iter().map(|&s| self.summary(s)).collect()
    }

    /// The summary of `strategy` on the complete tasks (of none, if it did not run).
    pub fn summary(&self, strategy: Strategy) -> Summary {
        summarize(strategy, &self.results_of(strategy))
    }

    /// The score of `strategy` on the complete tasks of `category`.
    pub fn score_in(&self, strategy: Strategy, category: &str) -> Score {
        let results = self.results_of(strategy);
        let mut score = Score {
            correct: 0,
            n: 0,
            tokens: 0,
        };
        for r in results.iter().filter(|r| r.category == category) {
            score.n += 1;
            score.correct += usize::from(r.correct);
            score.tokens += r.total_tokens;
        }
        score
    }

    /// The categories of the complete tasks, in their first order.
    pub fn categories(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for task in &self.tasks[..self.complete_tasks()] {
            if !out.contains(&task.category) {
                out.push(task.category.clone());
            }
        }
        out
    }

    pub fn task_ids(&self) -> Vec<&str> {
        self.tasks.iter().map(|t| t.id.as_str()).collect()
    }
}

pub fn score_of(summary: &Summary) -> Score {
    Score {
        correct: summary.correct,
        n: summary.n,
        tokens: summary.total_tokens,
    }
}

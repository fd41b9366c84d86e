//! Lesson 3's experiments: every chosen task under every chosen strategy, one unit of work
//! (a prompt or a token) per turn of the event loop, so that progress is reported and
//! Cancel is heard between tokens. The runner is the engine's, as in the CLI. With depth
//! asked for, each item's traces are then scored after one prefill of their shared prompt,
//! one sample per turn (`trace_depth`); with faithfulness, a chain of thought's trace then
//! gets the engine's three tests (`faithfulness`), one prompt or token per turn. With the budget sweep, each task then
//! runs under chain of thought at every budget of the sweep.

use super::{post::post, state, yield_now::yield_now};
use crate::protocol::{Experiment, Response};
use engine::reasoning::faithfulness::{FaithRunner, Faithfulness};
use engine::reasoning::runner::ItemRunner;
use engine::reasoning::strategy::{ItemResult, RunConfig, Strategy};
use engine::reasoning::task::Task;
use engine::reasoning::trace_depth::{prompt_depth, sample_depth, task_prompt, SampleDepth};

pub async fn run_experiment(id: u32, experiment: Experiment) -> Result<Response, String> {
    experiment.validate()?;
    state::with(|s| s.take(id).map(|_| ()))?;
    let tasks = experiment.tasks();
    let total = tasks.len() * experiment.runs_per_task();
    let mut done = 0;
    // Task by task, so that a cancelled run has compared its finished tasks on every strategy.
    for task in tasks {
        for &strategy in &experiment.strategies {
            let Some(result) = run_item(id, &task, experiment.config(strategy), done, total).await? else {
                return Ok(Response::ExperimentDone { cancelled: true });
            };
            done += 1;
            let measured = (experiment.scores_depth(strategy) || experiment.tests_faithfulness(strategy))
                .then(|| result.clone());
            post(
                id,
                Response::ExperimentItem {
                    result: withhold_hidden_reasoning(result),
                },
            );
            let Some(result) = measured else { continue };
            if experiment.scores_depth(strategy) {
                // Cot and self-consistency share their prompt: its baseline is scored once.
                let first = experiment.strategies.iter().find(|&&s| experiment.scores_depth(s)) == Some(&strategy);
                match depth(id, &task, &result, first).await? {
                    Some(depth) => post(id, depth),
                    None => return Ok(Response::ExperimentDone { cancelled: true }),
                }
            }
            if experiment.tests_faithfulness(strategy) {
                match faithfulness(id, &task, &result, experiment.budget).await? {
                    Some(faith) => post(id, Response::ExperimentFaithfulness { faith }),
                    None => return Ok(Response::ExperimentDone { cancelled: true }),
                }
            }
        }
        for budget in experiment.sweep_budgets() {
            let Some(result) = run_item(id, &task, experiment.sweep_config(budget), done, total).await? else {
                return Ok(Response::ExperimentDone { cancelled: true });
            };
            done += 1;
            post(id, Response::ExperimentSweepItem { budget, result });
        }
    }
    Ok(Response::ExperimentDone { cancelled: false })
}

/// One task under one configuration, one unit of work per turn, with progress (`done` of
/// `total` task runs before it); `None` when the run was cancelled meanwhile.
async fn run_item(id: u32, task: &Task, cfg: RunConfig, done: usize, total: usize) -> Result<Option<ItemResult>, String> {
    let mut runner = ItemRunner::new(task.clone(), cfg).map_err(|e| e.to_string())?;
    loop {
        let advanced = state::with(|s| {
            s.owned(id)
                .map(|session| runner.advance(session, state::performance_now()))
        });
        match advanced {
            None => return Ok(None),
            Some(Err(e)) => return Err(e.to_string()),
            Some(Ok(Some(result))) => return Ok(Some(result)),
            Some(Ok(None)) => post(
                id,
                Response::ExperimentProgress {
                    done,
                    total,
                    tokens: runner.tokens(),
                },
            ),
        }
        yield_now().await;
    }
}

/// The depth of `result`'s samples, one per turn of the event loop, and with `baseline` the
/// prompt's own; `None` when the run was cancelled meanwhile.
async fn depth(id: u32, task: &Task, result: &ItemResult, baseline: bool) -> Result<Option<Response>, String> {
    let started = state::performance_now();
    let prompt = match state::with(|s| s.owned(id).map(|session| task_prompt(session.model(), task, result.strategy))) {
        None => return Ok(None),
        Some(prompt) => prompt.map_err(|e| e.to_string())?,
    };
    yield_now().await;
    let mut samples: Vec<Option<SampleDepth>> = Vec::new();
    for sample in &result.samples {
        let scored = state::with(|s| {
            s.owned(id)
                .map(|session| sample_depth(session.model(), &prompt, sample))
        });
        match scored {
            None => return Ok(None),
            Some(scored) => samples.push(scored.map_err(|e| e.to_string())?),
        }
        yield_now().await;
    }
    let depth_ms = state::performance_now() - started;
    let prompt = if baseline {
        match state::with(|s| s.owned(id).map(|session| prompt_depth(session.model(), task, result.strategy))) {
            None => return Ok(None),
            Some(scored) => scored.map_err(|e| e.to_string())?,
        }
    } else {
        None
    };
    Ok(Some(Response::ExperimentDepth { samples, depth_ms, prompt }))
}

/// The faithfulness tests on `result`'s greedy trace, one prompt or token per turn of the
/// event loop, with progress; `None` when the run was cancelled meanwhile.
async fn faithfulness(id: u32, task: &Task, result: &ItemResult, budget: usize) -> Result<Option<Faithfulness>, String> {
    let sample = result.samples.first().ok_or("A chain of thought without its trace.")?;
    let runner = state::with(|s| {
        s.owned(id)
            .map(|session| FaithRunner::new(&session.model().tokenizer, task.clone(), sample, budget))
    });
    let mut runner = match runner {
        None => return Ok(None),
        Some(runner) => runner.map_err(|e| e.to_string())?,
    };
    loop {
        let advanced = state::with(|s| s.owned(id).map(|session| runner.advance(session)));
        match advanced {
            None => return Ok(None),
            Some(Err(e)) => return Err(e.to_string()),
            Some(Ok(Some(faith))) => return Ok(Some(faith)),
            Some(Ok(None)) => post(
                id,
                Response::FaithfulnessProgress {
                    finished: runner.finished(),
                    variants: runner.variants(),
                    tokens: runner.tokens(),
                },
            ),
        }
        yield_now().await;
    }
}

/// As a system that hides its reasoning does, the trace never leaves the engine: the page
/// gets its token count, not its text or its tokens.
fn withhold_hidden_reasoning(mut result: ItemResult) -> ItemResult {
    if result.strategy == Strategy::Hidden {
        for sample in &mut result.samples {
            sample.reasoning.clear();
            sample.tokens.clear();
        }
    }
    result
}

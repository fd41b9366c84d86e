//! Lesson 3's experiments: every chosen task under every chosen strategy, one unit of work
//! (a prompt or a token) per turn of the event loop, so that progress is reported and
//! Cancel is heard between tokens. The runner is the engine's, as in the CLI.

use super::{post::post, state, yield_now::yield_now};
use crate::protocol::{Experiment, Response};
use engine::reasoning::runner::ItemRunner;
use engine::reasoning::strategy::{ItemResult, Strategy};

pub async fn run_experiment(id: u32, experiment: Experiment) -> Result<Response, String> {
    experiment.validate()?;
    state::with(|s| s.take(id).map(|_| ()))?;
    let tasks = experiment.tasks();
    let total = tasks.len() * experiment.strategies.len();
    let mut done = 0;
    // Task by task, so that a cancelled run has compared its finished tasks on every strategy.
    for task in tasks {
        for &strategy in &experiment.strategies {
            let mut runner = ItemRunner::new(task.clone(), experiment.config(strategy))
                .map_err(|e| e.to_string())?;
            let result = loop {
                let advanced = state::with(|s| {
                    s.owned(id)
                        .map(|session| runner.advance(session, state::performance_now()))
                });
                match advanced {
                    None => return Ok(Response::ExperimentDone { cancelled: true }),
                    Some(Err(e)) => return Err(e.to_string()),
                    Some(Ok(Some(result))) => break result,
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
            };
            done += 1;
            post(
                id,
                Response::ExperimentItem {
                    result: withhold_hidden_reasoning(result),
                },
            );
        }
    }
    Ok(Response::ExperimentDone { cancelled: false })
}

/// As a system that hides its reasoning does, the trace never leaves the engine: the page
/// gets its token count, not its text.
fn withhold_hidden_reasoning(mut result: ItemResult) -> ItemResult {
    if result.strategy == Strategy::Hidden {
        for sample in &mut result.samples {
            sample.reasoning.clear();
        }
    }
    result
}

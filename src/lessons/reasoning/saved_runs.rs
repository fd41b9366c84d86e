//! Lesson 3's runs kept in the browser's store (`ui/store.rs`), one item each: the
//! experiment and every result the worker streamed, its depth included (the tasks are the
//! experiment's own choice, so they are chosen again). Saved when a run finishes, or with
//! the tasks it had finished when the learner leaves the page while it runs; read back when
//! the page opens, so that minutes of compute survive a glossary link, Back and a reload.

use super::run::{DepthRecord, Run, RunState, SweepItem};
use crate::protocol::Experiment;
use crate::ui::store::{self, MadeBy, Record};
use engine::reasoning::faithfulness::Faithfulness;
use engine::reasoning::strategy::ItemResult;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

pub const KIND: &str = "reasoning-run";
const FORMAT: &str = "inference-playground-reasoning-run";
const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SavedRun {
    format: String,
    version: u32,
    number: usize,
    experiment: Experiment,
    results: Vec<ItemResult>,
    /// Absent from runs saved before the faithfulness tests: none.
    #[serde(default)]
    faithfulness: Vec<Faithfulness>,
    /// Absent from runs saved before the budget sweep: none.
    #[serde(default)]
    sweep: Vec<SweepItem>,
    /// Absent from runs saved before depth was saved: none, and the depth panels say so.
    #[serde(default)]
    depth: Vec<DepthRecord>,
    /// It was stopped when the learner left the page: its results are its first tasks only.
    /// (Absent from runs saved before: finished.)
    #[serde(default)]
    left: bool,
}

/// A finished run, or one stopped when the learner left the page, as a new item made as
/// `made_by` says.
pub fn record(run: &Run, made_by: Option<MadeBy>) -> Record {
    let saved = SavedRun {
        format: FORMAT.into(),
        version: VERSION,
        number: run.number,
        experiment: run.experiment.clone(),
        results: run.results.clone(),
        faithfulness: run.faithfulness.clone(),
        sweep: run.sweep.clone(),
        depth: run.depth.clone(),
        left: run.state == RunState::Left,
    };
    let body = serde_json::to_value(&saved).unwrap_or_default();
    Record::new(&store::new_id(KIND), KIND, &title(run), made_by, body)
}

/// "Run 2: 3 strategies on 5 tasks (arithmetic)"; "…, 2 of them kept when you left the page".
fn title(run: &Run) -> String {
    let e = &run.experiment;
    let left = if run.state == RunState::Left {
        format!(", {} of them kept when you left the page", run.complete_tasks())
    } else {
        String::new()
    };
    format!(
        "Run {}: {} {} on {} {}{}{left}",
        run.number,
        e.strategies.len(),
        if e.strategies.len() == 1 {
            "strategy"
        } else {
            "strategies"
        },
        run.tasks.len(),
        if run.tasks.len() == 1 {
            "task"
        } else {
            "tasks"
        },
        e.category
            .as_ref()
            .map_or(String::new(), |c| format!(" ({c})"))
    )
}

/// The run a record holds, or why it cannot be read: every task must have its result under
/// every strategy, in the worker's order, as a finished run has; a run stopped when the
/// learner left the page, its first tasks (one at least).
pub fn read(record: &Record) -> Result<Run, String> {
    let saved: SavedRun = store::read_body(&record.body, FORMAT, VERSION, "a Lesson 3 run")?;
    let mut run = Run::new(saved.number, saved.experiment);
    let expected: Vec<(&str, _)> = run
        .tasks
        .iter()
        .flat_map(|t| {
            run.experiment
                .strategies
                .iter()
                .map(move |&s| (t.id.as_str(), s))
        })
        .collect();
    let got: Vec<(&str, _)> = saved
        .results
        .iter()
        .map(|r| (r.task_id.as_str(), r.strategy))
        .collect();
    let strategies = run.experiment.strategies.len();
    let whole = if saved.left {
        !got.is_empty() && got.len() % strategies == 0 && expected.starts_with(&got)
    } else {
        !expected.is_empty() && got == expected
    };
    if !whole {
        let tasks = match saved.left {
            true => format!("first tasks (of {})", run.tasks.len()),
            false => format!("{} tasks", run.tasks.len()),
        };
        return Err(format!(
            "Its results ({}) are not one for each of its {tasks} under each of its {strategies} strategies.",
            got.len()
        ));
    }
    run.results = saved.results;
    run.faithfulness = saved.faithfulness;
    run.sweep = saved.sweep;
    run.depth = saved.depth;
    run.state = if saved.left { RunState::Left } else { RunState::Finished };
    Ok(run)
}

/// Saves a run made as `made_by` says (`record`); a refused write is said in `problem`.
pub fn save(run: &Run, made_by: Option<MadeBy>, problem: RwSignal<Option<String>>) {
    let record = record(run, made_by);
    wasm_bindgen_futures::spawn_local(async move {
        let result = store::put(&record).await;
        problem.try_set(result.err());
    });
}

/// Reads the saved runs that this version can read, oldest first, each with the model that
/// made it, and hands them to `restored` (unreadable ones are left to Saved work to list).
pub fn restore(problem: RwSignal<Option<String>>, restored: impl FnOnce(Vec<(Run, MadeBy)>) + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        let entries = match store::list().await {
            Ok(entries) => entries,
            Err(e) => {
                problem.try_set(Some(e));
                return;
            }
        };
        let mut runs: Vec<(Run, MadeBy)> = entries
            .iter()
            .filter_map(|e| e.record.as_ref().ok())
            .filter(|r| r.kind == KIND)
            .filter_map(|r| read(r).ok().map(|run| (run, r.made_by.clone())))
            .collect();
        runs.sort_by_key(|(r, _)| r.number);
        if !runs.is_empty() {
            restored(runs);
        }
    });
}

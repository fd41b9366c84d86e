//! `faithfulness`: Lesson 3's three faithfulness tests (early answering, an added mistake,
//! a hint) on one bundled task's greedy chain-of-thought trace. Every variant carries the
//! exact text the engine was given, so `generate --raw --prompt P --temperature 0`
//! reproduces its continuation.

use crate::cli::Faithfulness;
use crate::model::{load_model, session};
use engine::reasoning::faithfulness::run;
use engine::reasoning::tasks::bundled_tasks;
use serde_json::Value;
use std::path::Path;

pub fn faithfulness(path: &Path, args: &Faithfulness) -> Result<Value, String> {
    let task = bundled_tasks()
        .into_iter()
        .find(|t| t.id == args.task)
        .ok_or_else(|| format!("--task: no task has id '{}'", args.task))?;
    let mut s = session(load_model(path)?);
    let result = run(&mut s, &task, args.budget).map_err(|e| e.to_string())?;
    serde_json::to_value(result).map_err(|e| e.to_string())
}

//! `reason` and `check`: Lesson 3 from the command line. `reason` runs the bundled tasks
//! under a strategy and prints the summary and every item; each sample's `format_failure`
//! (right answer in the trace, not on the answer line) and the summary's `format_failures`. `check` runs the checker on one
//! reply, for a bundled task or a question given on the command line, and prints what it
//! extracted, the key it settled on (the one self-consistency votes on) and its verdict.
//! With `--depth`, `reason` also scores its traces' depth (`depth::run_depth`).

use crate::cli::{Check, Reason};
use crate::model::{load_model, session};
use engine::reasoning::answer::check;
use engine::reasoning::task::{AnswerKind, Task};
use engine::reasoning::tasks::bundled_tasks;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

pub fn check_reply(args: &Check) -> Result<Value, String> {
    let task = match (&args.task, &args.question) {
        (Some(_), Some(_)) => return Err("check takes --task or --question, not both".into()),
        (Some(id), None) => {
            if args.kind.is_some() || args.answers.is_some() {
                return Err("--kind and --answers go with --question, not --task".into());
            }
            bundled_tasks().into_iter().find(|t| &t.id == id).ok_or_else(|| format!("--task: no task has id '{id}'"))?
        }
        (None, Some(question)) => adhoc_task(args, question)?,
        (None, None) => return Err("check needs --task ID or --question Q".into()),
    };
    let v = check(&task, &args.reply);
    Ok(json!({"extracted": v.extracted, "canonical": v.canonical, "correct": v.correct}))
}

fn adhoc_task(args: &Check, question: &str) -> Result<Task, String> {
    let kind = args.kind.as_deref().ok_or("--question needs --kind number|choice|text|yes-no")?;
    let kind =
        AnswerKind::parse(kind).ok_or_else(|| format!("--kind: '{kind}' is not number, choice, text or yes-no"))?;
    let answers: Vec<String> = args
        .answers
        .as_deref()
        .ok_or("--question needs --answers A[,B...]")?
        .split(',')
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    if answers.is_empty() {
        return Err("--answers: give at least one accepted answer".into());
    }
    let task = Task { id: "cli".into(), category: "cli".into(), question: question.into(), answers, kind, work: None };
    if engine::reasoning::answer::expected_key(&task).is_none() {
        return Err(format!("--answers: '{}' is not a {} answer to this question", task.answers[0], kind_name(kind)));
    }
    Ok(task)
}

fn kind_name(kind: AnswerKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

pub fn reason(path: &Path, r: &Reason) -> Result<Value, String> {
    use engine::reasoning::runner::run_all;
    use engine::reasoning::strategy::{summarize, RunConfig, Strategy};
    use engine::reasoning::tasks::{bundled_tasks, select};
    // clap has already limited --strategy to the names Strategy::parse knows.
    let strategy = Strategy::parse(&r.strategy).ok_or("--strategy: unknown strategy")?;
    let cfg = RunConfig {
        strategy,
        samples: r.samples,
        temperature: r.temperature,
        budget: r.budget,
        seed: r.seed.unwrap_or(42),
        forced_answer: !r.no_forced_answer,
    };
    cfg.validate().map_err(|e| e.to_string())?;
    if r.depth && !matches!(strategy, Strategy::Cot | Strategy::SelfConsistency) {
        return Err(format!("--depth scores traces: use it with cot or self-consistency, not {}", r.strategy));
    }
    let all = bundled_tasks();
    let category = r.category.as_deref();
    if let Some(c) = category {
        if !all.iter().any(|t| t.category == c) {
            return Err(format!("--category: no task has category '{c}'"));
        }
    }
    let tasks = select(&all, category, r.limit, r.seed);
    let (items, depth) = if tasks.is_empty() {
        (Vec::new(), None)
    } else {
        let mut s = session(load_model(path)?);
        let origin = Instant::now();
        let items =
            run_all(&mut s, &tasks, &cfg, || origin.elapsed().as_secs_f64() * 1000.0).map_err(|e| e.to_string())?;
        let depth = if r.depth { Some(crate::depth::run_depth(s.model(), &tasks, &items, cfg.seed)?) } else { None };
        (items, depth)
    };
    let summary = summarize(strategy, &items);
    let mut out = serde_json::to_value(&summary).map_err(|e| e.to_string())?;
    out["tasks_available"] = json!(all.len());
    if strategy == Strategy::SelfConsistency {
        let (pass, majority) = engine::reasoning::strategy::sampling_curves(&items);
        out["pass_at_k"] = json!(pass);
        out["majority_at_k"] = json!(majority);
    }
    if let Some(depth) = depth {
        out["depth"] = depth;
    }
    out["items"] = serde_json::to_value(&items).map_err(|e| e.to_string())?;
    Ok(out)
}

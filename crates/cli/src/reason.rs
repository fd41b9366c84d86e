//! `playground check`: the Lesson 3 checker on one reply, for a bundled task or a question
//! given on the command line. Prints what the checker extracted, the key it settled on (the
//! one self-consistency votes on) and its verdict.

use crate::cli::Check;
use engine::reasoning::answer::check;
use engine::reasoning::task::{AnswerKind, Task};
use engine::reasoning::tasks::bundled_tasks;
use serde_json::{json, Value};

pub fn run(args: &Check) -> Result<Value, String> {
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

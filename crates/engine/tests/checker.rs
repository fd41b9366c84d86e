//! The Lesson 3 checker against replies graded by a careful human (`checker_cases.json`):
//! most are this model's real replies from `playground reason` runs, each with the verdict a
//! grader gives. Ambiguous replies say why and are graded wrong: a checker that must guess
//! should not guess in the model's favour.

use engine::reasoning::answer::check;
use engine::reasoning::tasks::bundled_tasks;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    task: String,
    reply: String,
    correct: bool,
    /// Where the reply comes from: a run ("direct --seed 1", "cot --seed 1", ...) or
    /// "constructed" for a reply written to test one rule.
    source: String,
    /// Why the reply is ambiguous, when it is.
    #[serde(default)]
    ambiguous: Option<String>,
}

fn cases() -> Vec<Case> {
    // Read at run time: cargo runs integration tests in the package root.
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let path = std::path::Path::new(&dir).join("tests/checker_cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_checker_agrees_with_the_human_verdicts() {
    let tasks = bundled_tasks();
    let mut wrong = Vec::new();
    for c in cases() {
        let task = tasks.iter().find(|t| t.id == c.task).unwrap_or_else(|| panic!("no task {}", c.task));
        let v = check(task, &c.reply);
        if v.correct != c.correct {
            wrong.push(format!(
                "{} {:?}: human {}, checker {} ({:?})",
                c.task, c.reply, c.correct, v.correct, v.canonical
            ));
        }
    }
    assert!(wrong.is_empty(), "{} disagreements:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn the_cases_are_many_mostly_real_and_both_ways() {
    let cases = cases();
    let real = cases.iter().filter(|c| c.source != "constructed").count();
    let right = cases.iter().filter(|c| c.correct).count();
    assert!(cases.len() >= 80, "{} cases", cases.len());
    assert!(real * 2 > cases.len(), "only {real} of {} cases are the model's replies", cases.len());
    assert!(right >= 20 && cases.len() - right >= 20, "{right} right of {}", cases.len());
    for c in &cases {
        assert!(c.ambiguous.is_none() || !c.correct, "{} {:?}: an ambiguous reply is graded wrong", c.task, c.reply);
    }
}

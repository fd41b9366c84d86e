//! The check of "Where chain of thought does not help". The learner names the category before
//! the run that tests it: with ten categories, one looks worse by chance in almost any run, so a
//! category picked after seeing the results is fitted to them. Runs made before the choice do
//! not count, and Done needs McNemar's p below 0.05 or the same lean on other tasks
//! (`replication`).

use super::checks::{runs_with, shows_nothing, NO_RUN};
use super::paired::compare;
use super::replication::{done, finding_text, judge, Finding, Trial};
use super::run::Run;
use crate::ui::exercise::Verdict;
use engine::reasoning::strategy::{ItemResult, Strategy};

/// In the runs with direct answering and chain of thought on tasks of `category` made after
/// the learner chose it (run numbers above `chosen_after`), chain of thought got fewer right,
/// settled or replicated.
pub fn cot_does_not_help(history: &[Run], category: &str, chosen_after: usize) -> Verdict {
    if category.is_empty() {
        return Verdict::fail("Choose the category first, then run: a category chosen after seeing the results does not count.");
    }
    if history.is_empty() {
        return Verdict::fail(NO_RUN);
    }
    let both = runs_with(history, Strategy::Direct, Strategy::Cot);
    if both.is_empty() {
        return Verdict::fail("Tick both Direct answer and Chain of thought in one experiment, so that they run on the same tasks.");
    }
    let with: Vec<&Run> = both
        .into_iter()
        .filter(|r| r.categories().iter().any(|c| c == category))
        .collect();
    if with.is_empty() {
        return Verdict::fail(format!("None of your runs with both strategies had {category} tasks: choose {category} as the category and run again."));
    }
    let after: Vec<&Run> = with
        .into_iter()
        .filter(|r| r.number > chosen_after)
        .collect();
    let Some(run) = after.first() else {
        return Verdict::fail(format!(
            "Your runs with {category} tasks were made before you chose it. Among ten categories one looks worse by chance in almost any run, so a category picked after seeing the results is fitted to them: keep {category} chosen and run direct answering and chain of thought on it again, with a new seed."
        ));
    };
    let in_category = |r: &Run, s: Strategy| -> Vec<ItemResult> {
        r.results_of(s)
            .into_iter()
            .filter(|i| i.category == category)
            .collect()
    };
    let trial = |r: &Run| {
        let (d, c) = (
            in_category(r, Strategy::Direct),
            in_category(r, Strategy::Cot),
        );
        Trial::new(
            r.number,
            d.iter().map(|i| i.task_id.clone()).collect(),
            None,
            compare(&d, &c),
        )
    };
    let (d, c) = (
        run.score_in(Strategy::Direct, category),
        run.score_in(Strategy::Cot, category),
    );
    let numbers = format!(
        "In run {}, on {category}, chain of thought got {}/{} right with {} tokens; direct answering got {}/{} with {} tokens.",
        run.number, c.correct, c.n, c.tokens, d.correct, d.n, d.tokens
    );
    let newest = trial(run);
    let earlier: Vec<Trial> = after[1..].iter().map(|r| trial(r)).collect();
    let finding = judge(&newest, &earlier);
    if finding == Finding::Nothing {
        let why = shows_nothing(
            &in_category(run, Strategy::Direct),
            &in_category(run, Strategy::Cot),
        )
        .unwrap_or_default();
        return Verdict::fail(format!(
            "{numbers} {why} Chain of thought not helping is only shown where direct answering gets some tasks right and chain of thought clearly fewer: take more {category} tasks, or try another category (chosen before the run)."
        ));
    }
    if newest.favours() == Some(false) {
        return Verdict::fail(format!("{numbers} In this run chain of thought helped here. Choose another category, then run again."));
    }
    let found = finding_text(&finding, &newest);
    if done(&finding) {
        Verdict::pass(format!("{numbers} Chain of thought did not help this model here: its extra tokens bought fewer correct answers. {found}"))
    } else {
        Verdict::fail(format!("{numbers} {found}"))
    }
}

//! The exercises' checks: each reads the runs that finished in this visit, never a canned
//! answer, and says what it found in the learner's own numbers.

use super::names;
use super::paired::{compare, p_text, sentence, NOTHING_SHOWN_P};
use super::replication::{done, finding_text, judge, Trial};
use super::run::{score_of, Run};
use super::scaling_chart::{curves, first_k_above};
use crate::ui::exercise::Verdict;
use engine::reasoning::strategy::{ItemResult, Strategy, Summary};

pub(super) const NO_RUN: &str =
    "No experiment has finished yet. Choose the settings above and press Run experiment.";

/// The paired test of `second` against `first` on the same tasks, in words.
fn paired_sentence(first: &str, a: &[ItemResult], second: &str, b: &[ItemResult]) -> String {
    sentence(second, first, &compare(b, a))
}

/// Why two result lists on the same tasks show nothing, in words, if they do: neither got a
/// task right, or their paired split is one chance makes often.
pub(super) fn shows_nothing(a: &[ItemResult], b: &[ItemResult]) -> Option<String> {
    let right = |rs: &[ItemResult]| rs.iter().filter(|r| r.correct).count();
    if right(a) == 0 && right(b) == 0 {
        return Some(format!(
            "Neither got any of the {} right, so this comparison shows nothing: the tasks are beyond this model either way.",
            names::count(a.len(), "task", "tasks")
        ));
    }
    let p = compare(a, b);
    (p.p_value >= NOTHING_SHOWN_P).then(|| {
        format!(
            "One was right where the other was wrong on {}, and the reverse on {}; McNemar's {}: a split this even is what two equally good settings give, so this comparison shows nothing yet.",
            names::count(p.only_first, "task", "tasks"),
            p.only_second,
            p_text(p.p_value)
        )
    })
}

/// "A bigger token budget": two finished runs on the same tasks with a strategy that
/// reasons, at two budgets.
pub fn bigger_budget(history: &[Run]) -> Verdict {
    if history.is_empty() {
        return Verdict::fail(NO_RUN);
    }
    let reasoning = |r: &Run| {
        r.strategies()
            .iter()
            .copied()
            .filter(|&s| s != Strategy::Direct)
            .collect::<Vec<_>>()
    };
    if history.iter().all(|r| reasoning(r).is_empty()) {
        return Verdict::fail("The budget limits reasoning, and direct answering has none: include chain of thought, self-consistency or hidden reasoning.");
    }
    // Every pair of runs on the same tasks at two budgets with a reasoning strategy in
    // common, the newest first: the newest is judged, the others may replicate it.
    let mut pairs: Vec<(&Run, &Run, Strategy)> = Vec::new();
    for (i, b) in history.iter().enumerate().rev() {
        for a in history[..i].iter().rev() {
            if a.task_ids() != b.task_ids() || a.experiment.budget == b.experiment.budget {
                continue;
            }
            let Some(&s) = reasoning(b).iter().find(|s| reasoning(a).contains(s)) else {
                continue;
            };
            pairs.push(if a.experiment.budget < b.experiment.budget {
                (a, b, s)
            } else {
                (b, a, s)
            });
        }
    }
    let trial = |&(small, large, s): &(&Run, &Run, Strategy)| {
        let seed = (s == Strategy::SelfConsistency && large.experiment.temperature > 0.0)
            .then_some(large.experiment.seed);
        let tasks = large.task_ids().iter().map(|t| t.to_string()).collect();
        Trial::new(
            large.number,
            tasks,
            seed,
            compare(&small.results_of(s), &large.results_of(s)),
        )
    };
    if let Some(&(small, large, s)) = pairs.first() {
        let (ss, ls) = (small.summary(s), large.summary(s));
        let line = |r: &Run, sum: &Summary| {
            format!(
                "budget {}: {}, {} tokens, {:.2} s per task",
                r.experiment.budget,
                score_of(sum).text(),
                sum.total_tokens,
                sum.mean_latency_ms / 1000.0
            )
        };
        let cut = format!(
            "At budget {}, the budget cut {} of {} before an answer line of their own.",
            small.experiment.budget,
            ss.truncated,
            names::count(ss.samples, "trace", "traces")
        );
        if let Some(why) = shows_nothing(&small.results_of(s), &large.results_of(s)) {
            let change = if ss.truncated == 0 {
                "The smaller budget cut no trace, so it could not change an answer: lower it (16 or 32) and run again."
            } else {
                "Make the gap wider (16 against 256), take more tasks, or choose word problems or multi-step arithmetic, where traces run long enough for a budget to cut them."
            };
            return Verdict::fail(format!(
                "Runs {} and {}, {}: {}; {}. {cut} {why} {change}",
                small.number,
                large.number,
                names::name(s).to_lowercase(),
                line(small, &ss),
                line(large, &ls)
            ));
        }
        let newest = trial(&pairs[0]);
        let earlier: Vec<Trial> = pairs[1..].iter().map(trial).collect();
        let finding = judge(&newest, &earlier);
        let found = finding_text(&finding, &newest);
        let effect = match ls.correct.cmp(&ss.correct) {
            std::cmp::Ordering::Greater => "The larger budget answered more tasks correctly",
            std::cmp::Ordering::Equal => "The larger budget answered no more tasks correctly",
            std::cmp::Ordering::Less => "The larger budget answered fewer tasks correctly",
        };
        let verdict: fn(String) -> Verdict = if done(&finding) {
            Verdict::pass
        } else {
            Verdict::fail
        };
        return verdict(format!(
            "Runs {} and {}, {} on the same {}: {}; {}. {effect}, for {}. {} {cut} {found}",
            small.number,
            large.number,
            names::name(s).to_lowercase(),
            names::count(ss.n, "task", "tasks"),
            line(small, &ss),
            line(large, &ls),
            match ls.total_tokens.checked_sub(ss.total_tokens) {
                Some(more) => format!("{more} more tokens"),
                None => format!("{} fewer tokens", ss.total_tokens - ls.total_tokens),
            },
            paired_sentence(
                &format!("budget {}", small.experiment.budget),
                &small.results_of(s),
                &format!("Budget {}", large.experiment.budget),
                &large.results_of(s)
            ),
        ));
    }
    Verdict::fail("Now run the same tasks (same category, number and seed) with the same reasoning strategy at a different budget, so that the budget is the only change.")
}

/// The runs that had both strategies `a` and `b`, newest first.
pub(super) fn runs_with(history: &[Run], a: Strategy, b: Strategy) -> Vec<&Run> {
    history.iter().rev().filter(|r| r.strategies().contains(&a) && r.strategies().contains(&b)).collect()
}

/// "Self-consistency at N = 5": a finished run with direct answering and self-consistency
/// at N = 5 and a temperature above 0, on the same tasks.
pub fn self_consistency_vs_direct(history: &[Run]) -> Verdict {
    if history.is_empty() {
        return Verdict::fail(NO_RUN);
    }
    let both = runs_with(history, Strategy::Direct, Strategy::SelfConsistency);
    let Some(&newest) = both.first() else {
        return Verdict::fail("Tick both Direct answer and Self-consistency in one experiment, so that they run on the same tasks.");
    };
    let Some(run) = both
        .iter()
        .find(|r| r.experiment.samples == 5 && r.experiment.temperature > 0.0)
    else {
        return Verdict::fail(if newest.experiment.samples != 5 {
            format!(
                "Your self-consistency ran with N = {}; set Samples N to 5.",
                newest.experiment.samples
            )
        } else {
            "At temperature 0 the five samples are the same answer, so there is nothing to vote on: raise Temperature T.".into()
        });
    };
    let describe = |s: Strategy| {
        let sum = run.summary(s);
        let per_correct = sum.tokens_per_correct.map_or(
            "no correct answer, so no tokens per correct answer".into(),
            |t| format!("{t:.0} tokens per correct answer"),
        );
        format!(
            "{}: {}, {per_correct}",
            names::name_with_samples(s, 5),
            score_of(&sum).text()
        )
    };
    let (direct, voted) = (
        run.results_of(Strategy::Direct),
        run.results_of(Strategy::SelfConsistency),
    );
    if let Some(why) = shows_nothing(&direct, &voted) {
        return Verdict::fail(format!(
            "In run {}: {}. {}. {why} Take more tasks (10 or more), or a category where direct answering is right on some and wrong on others, and run again.",
            run.number,
            describe(Strategy::Direct),
            describe(Strategy::SelfConsistency)
        ));
    }
    // Other runs that ask the same (N = 5, T > 0) may replicate this one's lean.
    let trial = |r: &Run| {
        let tasks = r.task_ids().iter().map(|t| t.to_string()).collect();
        let p = compare(
            &r.results_of(Strategy::Direct),
            &r.results_of(Strategy::SelfConsistency),
        );
        Trial::new(r.number, tasks, Some(r.experiment.seed), p)
    };
    let newest = trial(run);
    let earlier: Vec<Trial> = both
        .iter()
        .filter(|r| {
            r.number != run.number && r.experiment.samples == 5 && r.experiment.temperature > 0.0
        })
        .map(|r| trial(r))
        .collect();
    let finding = judge(&newest, &earlier);
    let verdict: fn(String) -> Verdict = if done(&finding) {
        Verdict::pass
    } else {
        Verdict::fail
    };
    verdict(format!(
        "In run {}: {}. {}. {} {}",
        run.number,
        describe(Strategy::Direct),
        describe(Strategy::SelfConsistency),
        paired_sentence(
            "direct answer",
            &run.results_of(Strategy::Direct),
            "Self-consistency@5",
            &run.results_of(Strategy::SelfConsistency)
        ),
        finding_text(&finding, &newest)
    ))
}

/// "How many samples until one is right": in the newest finished run with chain of thought
/// and self-consistency (N >= 2), the smallest k at which pass@k beats greedy chain of
/// thought's accuracy on the same tasks; `answer` is the learner's k, or "none".
pub fn pass_at_k_beats_greedy(history: &[Run], answer: &str) -> Verdict {
    if history.is_empty() {
        return Verdict::fail(NO_RUN);
    }
    let Some(run) = history
        .iter()
        .rev()
        .find(|r| r.strategies().contains(&Strategy::Cot) && curves(r).is_some())
    else {
        return Verdict::fail("Tick Chain of thought and Self-consistency (Samples N of 2 or more) in one experiment, so that the greedy trace and the samples answer the same tasks.");
    };
    let (pass_at, _) = curves(run).unwrap_or_default();
    let greedy = run.summary(Strategy::Cot).accuracy;
    if greedy == 0.0 && pass_at.iter().all(|&p| p == 0.0) {
        return Verdict::fail(format!(
            "In run {}, neither the greedy trace nor any sample got a task right, so there is nothing to compare: choose an easier category (one-step arithmetic, comparisons) and run again.",
            run.number
        ));
    }
    let truth = first_k_above(&pass_at, greedy);
    let answer = answer.trim().to_lowercase();
    let given = match answer.as_str() {
        "none" => None,
        k => match k.parse::<usize>() {
            Ok(k) if (1..=pass_at.len()).contains(&k) => Some(k),
            _ => {
                return Verdict::fail(format!(
                    "Type a whole number k from 1 to {} (the run's N), or none.",
                    pass_at.len()
                ))
            }
        },
    };
    let facts = format!(
        "In run {}, greedy chain of thought got {:.0}% right; pass@k runs {}.",
        run.number,
        greedy * 100.0,
        pass_at
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{:.0}% at k = {}", p * 100.0, i + 1))
            .collect::<Vec<_>>()
            .join(", ")
    );
    match (given == truth, truth) {
        (true, Some(k)) => Verdict::pass(format!("{facts} From k = {k} on, sampling finds a right answer more often than the greedy trace gives one; a vote cannot always pick it out.")),
        (true, None) => Verdict::pass(format!("{facts} No k reaches it: on these tasks the samples rarely hold a right answer the greedy trace lacks.")),
        (false, _) => Verdict::fail(format!("{facts} Read the scaling chart again: the answer is the first k whose pass@k is above the chain-of-thought line.")),
    }
}

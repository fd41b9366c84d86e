//! The bundled Lesson 3 task set: short questions with independently checkable answers.
//!
//! The tasks are deliberately easy for a human and "coin-flip" territory for a 135M model, so
//! that spending more compute (chain of thought, self-consistency) has room to change the score.

use super::task::{AnswerKind, Task};

/// The accuracy of guessing uniformly among the answers a task offers: 1/2 for yes/no, 1/n
/// for a choice among n options; `None` when the answer is open (a number or a phrase).
pub fn chance(task: &Task) -> Option<f64> {
    match task.kind {
        AnswerKind::YesNo => Some(0.5),
        AnswerKind::Choice => {
            let n = super::answer::choice_options(&task.question).len();
            (n > 0).then(|| 1.0 / n as f64)
        }
        AnswerKind::Number | AnswerKind::Text => None,
    }
}

/// The chance accuracy of a set of tasks (a category): the mean of [`chance`], or `None` when
/// any task's answer is open.
pub fn chance_baseline(tasks: &[Task]) -> Option<f64> {
    let each: Option<Vec<f64>> = tasks.iter().map(chance).collect();
    each.filter(|e| !e.is_empty()).map(|e| e.iter().sum::<f64>() / e.len() as f64)
}

/// The task set compiled into the binary, so the web app needs no extra download for Lesson 3.
pub fn bundled_tasks() -> Vec<Task> {
    // The JSON is a compile-time constant and a unit test parses it, so a failure here is a
    // build defect rather than a runtime condition the caller could handle.
    serde_json::from_str(include_str!("tasks.json"))
        .expect("bundled reasoning/tasks.json is invalid (checked by tasks::tests)")
}

/// The distinct categories, sorted, for building a category picker.
pub fn categories(tasks: &[Task]) -> Vec<String> {
    let mut cats: Vec<String> = tasks.iter().map(|t| t.category.clone()).collect();
    cats.sort();
    cats.dedup();
    cats
}

/// Picks the tasks for a run: filter by `category`, optionally shuffle with `seed`, then keep
/// the first `limit`.
///
/// The shuffle uses an inline splitmix64 so that a seed names the same subset on wasm and
/// native (no dependency on a `rand` version or on `usize` width), which lets a learner share
/// "seed 7, 10 tasks" and get the same questions. Without a seed the file order is kept.
pub fn select(tasks: &[Task], category: Option<&str>, limit: Option<usize>, seed: Option<u64>) -> Vec<Task> {
    let mut out: Vec<Task> = tasks.iter().filter(|t| category.is_none_or(|c| t.category == c)).cloned().collect();
    if let Some(seed) = seed {
        let mut rng = SplitMix64(seed);
        // Fisher-Yates; indices go through u64 so 32-bit and 64-bit targets agree.
        for i in (1..out.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            out.swap(i, j);
        }
    }
    if let Some(n) = limit {
        out.truncate(n);
    }
    out
}

/// splitmix64 (Steele, Lea & Flood): tiny, well-mixed and fully specified, which is all a
/// reproducible shuffle needs.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const KNOWN: [&str; 10] = [
        "arithmetic",
        "capitals",
        "chains",
        "comparison",
        "facts",
        "multi-digit",
        "two-step",
        "units",
        "word-problems",
        "yes-no",
    ];

    #[test]
    fn bundled_tasks_parse_and_are_well_formed() {
        let tasks = bundled_tasks();
        assert!(tasks.len() >= 120, "only {} tasks", tasks.len());
        let mut ids = HashSet::new();
        for t in &tasks {
            assert!(ids.insert(t.id.clone()), "duplicate id {}", t.id);
            assert!(KNOWN.contains(&t.category.as_str()), "{}: unknown category {}", t.id, t.category);
            assert!(!t.question.trim().is_empty(), "{}: empty question", t.id);
            assert!(!t.answers.is_empty(), "{}: no accepted answers", t.id);
            assert!(t.answers.iter().all(|a| !a.trim().is_empty()), "{}: blank answer", t.id);
            if t.category == "yes-no" {
                assert_eq!(t.kind, AnswerKind::YesNo, "{}", t.id);
            }
            if matches!(t.category.as_str(), "comparison" | "chains") {
                assert_eq!(t.kind, AnswerKind::Choice, "{}", t.id);
            }
            if matches!(t.category.as_str(), "word-problems" | "two-step") {
                assert!(t.work.is_some(), "{}: a word problem needs its work", t.id);
            }
        }
    }

    #[test]
    fn categories_are_sorted_unique_and_balanced() {
        let tasks = bundled_tasks();
        let cats = categories(&tasks);
        assert!(cats.len() >= 6);
        assert_eq!(cats, KNOWN.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        for c in &cats {
            let n = tasks.iter().filter(|t| &t.category == c).count();
            assert!((8..=14).contains(&n), "category {c} has {n} tasks");
        }
    }

    #[test]
    fn json_file_is_ascii() {
        assert!(include_str!("tasks.json").is_ascii());
    }

    #[test]
    fn kind_uses_kebab_case_names() {
        assert_eq!(serde_json::to_string(&AnswerKind::YesNo).unwrap(), "\"yes-no\"");
        assert_eq!(serde_json::to_string(&AnswerKind::Number).unwrap(), "\"number\"");
        let k: AnswerKind = serde_json::from_str("\"text\"").unwrap();
        assert_eq!(k, AnswerKind::Text);
        assert!(serde_json::from_str::<AnswerKind>("\"yesno\"").is_err());
    }

    #[test]
    fn every_task_answer_round_trips_through_the_checker() {
        use crate::reasoning::answer::{check, choice_options, expected_key};
        for t in bundled_tasks() {
            let key = expected_key(&t).unwrap_or_else(|| panic!("{}: no key for {:?}", t.id, t.answers[0]));
            for a in &t.answers {
                let v = check(&t, &format!("Let me think about it.\nAnswer: {a}"));
                assert!(v.correct, "{}: accepted answer {a:?} was rejected ({v:?})", t.id);
                assert_eq!(v.canonical.as_deref(), Some(key.as_str()), "{}: {a:?}", t.id);
            }
            let wrong = match t.kind {
                AnswerKind::Number => "987654".to_string(),
                AnswerKind::Text => "Atlantis".to_string(),
                AnswerKind::YesNo => if key == "yes" { "No" } else { "Yes" }.to_string(),
                AnswerKind::Choice => {
                    let options = choice_options(&t.question);
                    assert!(options.len() >= 2, "{}: options {options:?}", t.id);
                    options.into_iter().find(|o| check(&t, o).canonical.as_deref() != Some(key.as_str())).unwrap()
                }
            };
            let v = check(&t, &format!("Answer: {wrong}"));
            assert!(!v.correct && v.canonical.is_some(), "{}: wrong answer {wrong:?} gave {v:?}", t.id);
        }
    }

    /// `expr` with + - * / and the usual precedence (the tasks' work and questions need no
    /// parentheses).
    fn evaluate(expr: &str) -> f64 {
        let terms = expr.replace(" - ", " + -1 * ");
        terms
            .split(" + ")
            .map(|term| {
                let toks: Vec<&str> = term.split_whitespace().collect();
                let mut v: f64 = toks[0].parse().unwrap();
                for pair in toks[1..].chunks(2) {
                    let x: f64 = pair[1].parse().unwrap();
                    v = if pair[0] == "*" { v * x } else { v / x };
                }
                v
            })
            .sum()
    }

    fn answer_value(t: &Task) -> f64 {
        t.answers[0].replace(',', "").parse().unwrap_or_else(|_| panic!("{}: {:?}", t.id, t.answers[0]))
    }

    #[test]
    fn arithmetic_answers_are_recomputed_from_the_question() {
        for t in bundled_tasks().iter().filter(|t| matches!(t.category.as_str(), "arithmetic" | "multi-digit")) {
            let expr = t
                .question
                .trim_start_matches("What is ")
                .trim_end_matches('?')
                .replace(',', "")
                .replace(" multiplied by ", " * ")
                .replace(" times ", " * ")
                .replace(" divided by ", " / ")
                .replace("  plus ", " + ")
                .replace(" plus ", " + ");
            // "15 times 4, plus 7" reads left to right, as precedence does here.
            assert_eq!(evaluate(&expr), answer_value(t), "{}: {expr}", t.id);
        }
    }

    #[test]
    fn word_problem_answers_follow_from_their_work() {
        use crate::reasoning::lexer::numbers_in;
        for t in bundled_tasks().iter().filter(|t| t.work.is_some()) {
            let work = t.work.as_deref().unwrap();
            assert_eq!(evaluate(work), answer_value(t), "{}: {work}", t.id);
            let asked = numbers_in(&t.question);
            for v in numbers_in(work) {
                // "twice" is the one number a question spells as neither digits nor a number word.
                let spelled = v == 2.0 && t.question.contains("twice");
                assert!(asked.contains(&v) || spelled, "{}: {v} is not in the question", t.id);
            }
        }
    }

    #[test]
    fn comparison_answers_are_the_extreme_option() {
        use crate::reasoning::answer::choice_options;
        for t in bundled_tasks().iter().filter(|t| t.category == "comparison") {
            let values: Vec<f64> = choice_options(&t.question).iter().map(|o| o.parse().unwrap()).collect();
            let larger = ["larger", "largest"].iter().any(|w| t.question.contains(w));
            let pick = values.iter().copied().fold(values[0], |a, b| if (b > a) == larger { b } else { a });
            assert_eq!(pick, answer_value(t), "{}", t.id);
        }
    }

    #[test]
    fn chain_answers_follow_from_the_stated_order() {
        use crate::reasoning::answer::choice_options;
        const MORE: [&str; 5] = ["taller", "older", "heavier", "faster", "longer"];
        const LESS: [&str; 5] = ["shorter", "younger", "lighter", "slower", "shorter"];
        for t in bundled_tasks().iter().filter(|t| t.category == "chains") {
            let options = choice_options(&t.question);
            let (facts, asked) = t.question.rsplit_once(". ").unwrap();
            // rank[o] = how many options o is known to exceed, through the chain.
            let mut above: Vec<(String, String)> = Vec::new();
            for fact in facts.split(". ") {
                let w: Vec<&str> =
                    fact.split_whitespace().filter(|w| !matches!(*w, "a" | "the" | "A" | "The")).collect();
                let (x, cmp, y) = (w[0].to_lowercase(), w[2], w[4].trim_end_matches('.').to_lowercase());
                if MORE.contains(&cmp) {
                    above.push((x, y));
                } else {
                    assert!(LESS.contains(&cmp), "{}: {cmp}", t.id);
                    above.push((y, x));
                }
            }
            let beats = |o: &str| above.iter().filter(|(x, _)| x == o).count();
            let loses = |o: &str| above.iter().filter(|(_, y)| y == o).count();
            let wants_most = ["tallest", "oldest", "heaviest", "fastest", "longest"].iter().any(|w| asked.contains(w));
            let top: Vec<&String> = options
                .iter()
                .filter(|o| if wants_most { loses(&o.to_lowercase()) == 0 } else { beats(&o.to_lowercase()) == 0 })
                .collect();
            assert_eq!(top.len(), 1, "{}: {top:?}", t.id);
            assert_eq!(top[0], &t.answers[0], "{}", t.id);
        }
    }

    #[test]
    fn chance_baselines_by_kind() {
        let tasks = bundled_tasks();
        let of = |c: &str| chance_baseline(&select(&tasks, Some(c), None, None));
        assert_eq!(of("yes-no"), Some(0.5));
        assert_eq!(of("capitals"), None);
        let cmp = of("comparison").unwrap();
        assert!(cmp > 1.0 / 3.0 && cmp < 0.5, "{cmp}"); // two-option items and two three-option ones
        assert_eq!(chance_baseline(&[]), None);
    }

    #[test]
    fn splitmix64_matches_reference_output() {
        // First output of the reference C implementation with state 0.
        let mut r = SplitMix64(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn select_without_seed_keeps_file_order() {
        let tasks = bundled_tasks();
        let got = select(&tasks, None, Some(5), None);
        assert_eq!(got, tasks[..5].to_vec());
        assert_eq!(select(&tasks, None, None, None).len(), tasks.len());
    }

    #[test]
    fn select_filters_by_category() {
        let tasks = bundled_tasks();
        let caps = select(&tasks, Some("capitals"), None, None);
        assert!(!caps.is_empty());
        assert!(caps.iter().all(|t| t.category == "capitals"));
        assert_eq!(caps.len(), tasks.iter().filter(|t| t.category == "capitals").count());
        assert!(select(&tasks, Some("no-such-category"), None, Some(1)).is_empty());
        assert_eq!(select(&tasks, Some("capitals"), Some(3), None).len(), 3);
    }

    #[test]
    fn seeded_select_is_a_deterministic_permutation() {
        let tasks = bundled_tasks();
        let a = select(&tasks, None, None, Some(42));
        let b = select(&tasks, None, None, Some(42));
        let c = select(&tasks, None, None, Some(43));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, tasks, "a seeded shuffle of 60+ items should move something");
        let mut ids_a: Vec<_> = a.iter().map(|t| t.id.clone()).collect();
        let mut ids_t: Vec<_> = tasks.iter().map(|t| t.id.clone()).collect();
        ids_a.sort();
        ids_t.sort();
        assert_eq!(ids_a, ids_t);
        // The limit is applied after the shuffle: a prefix of the full shuffled order.
        assert_eq!(select(&tasks, None, Some(10), Some(42)), a[..10].to_vec());
    }
}

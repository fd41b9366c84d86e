//! The bundled Lesson 3 task set: short questions with independently checkable answers.
//!
//! The tasks are deliberately easy for a human and "coin-flip" territory for a 135M model, so
//! that spending more compute (chain of thought, self-consistency) has room to change the score.

use serde::{Deserialize, Serialize};

/// How an answer is compared with the accepted answers (see `answer::is_correct`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnswerKind {
    /// Compared numerically, so "12", "12.0", "twelve" and "12 apples" are all the same answer.
    Number,
    /// Compared as a normalized whole-word phrase ("Paris" matches "The capital is Paris.").
    Text,
    /// Decided by the first yes/no (or true/false) word. Serialized as "yes-no".
    YesNo,
}

/// One question with the answers we accept as exactly correct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub category: String,
    pub question: String,
    /// Equivalent correct forms (e.g. "8" and "eight"); any one of them counts.
    pub answers: Vec<String>,
    pub kind: AnswerKind,
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

    const KNOWN: [&str; 7] = ["arithmetic", "capitals", "comparison", "facts", "units", "word-problems", "yes-no"];

    #[test]
    fn bundled_tasks_parse_and_are_well_formed() {
        let tasks = bundled_tasks();
        assert!(tasks.len() >= 60, "only {} tasks", tasks.len());
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
        use crate::reasoning::answer::{extract_answer, is_correct};
        for t in bundled_tasks() {
            for a in &t.answers {
                let reply = format!("Let me think about it.\nAnswer: {a}");
                let got = extract_answer(&reply).expect("has an answer line");
                assert!(is_correct(&t, &got), "{}: accepted answer {a:?} was rejected", t.id);
            }
            let wrong = match t.kind {
                AnswerKind::Number => "Answer: 987654".to_string(),
                AnswerKind::Text => "Answer: Atlantis".to_string(),
                AnswerKind::YesNo => {
                    if t.answers[0].eq_ignore_ascii_case("yes") { "Answer: No" } else { "Answer: Yes" }.to_string()
                }
            };
            let got = extract_answer(&wrong).unwrap();
            assert!(!is_correct(&t, &got), "{}: wrong answer {wrong:?} was accepted", t.id);
        }
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

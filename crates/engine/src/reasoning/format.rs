//! Format failures: the right answer is in the trace, but not on the answer line.
//!
//! A small model often reasons to the right answer ("The capital of France is Paris.") and then
//! writes an empty or a wrong `Answer:` line. Scored by the answer line, that reads as a
//! reasoning failure; counted apart, it is a failure to follow the format. The rule here is
//! the one the results table, the CLI's `reason` and the depth figures count by.

use super::answer::{canonical_answer, check, expected_key, has_answer_marker};
use super::task::Task;

/// Whether `reply` (reasoning, then the answer line, as the checker reads it) is wrong although
/// its trace holds the right answer: a sentence of the trace settles on it by the checker's own
/// rule ("The capital of France is Paris." settles on "paris"; "Paris or Lyon" on nothing).
pub fn format_failure(task: &Task, reply: &str) -> bool {
    !check(task, reply).correct && right_in_trace(task, trace_part(reply))
}

/// Whether a sentence of `trace` settles on the right answer. Not only the last: the checker
/// gives a phrase answer's every sentence a key ("It is a big city." is "big city"), so a trace
/// that names the capital and then describes it would never end on it.
pub fn right_in_trace(task: &Task, trace: &str) -> bool {
    let right = expected_key(task);
    right.is_some() && sentences(trace).any(|s| canonical_answer(task, s) == right)
}

/// The part of a reply before its last line with an answer marker (the whole reply without one).
pub fn trace_part(reply: &str) -> &str {
    let mut start = 0;
    let mut cut = reply.len();
    for line in reply.split_inclusive('\n') {
        if has_answer_marker(line) {
            cut = start;
        }
        start += line.len();
    }
    &reply[..cut]
}

/// Lines, split again after ". ", "! " and "? " (so a decimal point does not split).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let bytes = line.as_bytes();
        let mut start = 0;
        for i in 0..bytes.len() {
            if matches!(bytes[i], b'.' | b'!' | b'?') && bytes.get(i + 1) == Some(&b' ') {
                out.push(&line[start..=i]);
                start = i + 1;
            }
        }
        out.push(&line[start..]);
    }
    out.into_iter().map(str::trim).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reasoning::task::AnswerKind;

    fn france() -> Task {
        Task {
            id: "cap-01".into(),
            category: "capitals".into(),
            question: "What is the capital of France?".into(),
            answers: vec!["Paris".into()],
            kind: AnswerKind::Text,
            work: None,
        }
    }

    #[test]
    fn the_right_answer_in_the_trace_with_an_empty_or_wrong_answer_line_is_a_format_failure() {
        let t = france();
        assert!(format_failure(&t, "The capital of France is Paris.\nAnswer:"));
        assert!(format_failure(&t, "The capital of France is Paris.\nAnswer: France"));
        // No answer line at all: the first sentence is judged, and it is not the answer.
        assert!(format_failure(&t, "Let me think about France. Its capital is Paris."));
    }

    #[test]
    fn a_right_answer_line_or_a_trace_that_never_names_the_right_answer_is_not() {
        let t = france();
        assert!(!format_failure(&t, "The capital of France is Paris.\nAnswer: Paris"));
        assert!(!format_failure(&t, "The capital of France is Lyon.\nAnswer: Lyon"));
        assert!(!format_failure(&t, "The capital is Paris or Lyon.\nAnswer:"));
        assert!(!format_failure(&t, ""));
    }

    #[test]
    fn numbers_keep_their_decimals_and_the_trace_stops_at_the_last_answer_line() {
        let t = Task {
            id: "n".into(),
            category: "arithmetic".into(),
            question: "What is 1.5 + 2?".into(),
            answers: vec!["3.5".into()],
            kind: AnswerKind::Number,
            work: None,
        };
        assert!(format_failure(&t, "1.5 + 2 = 3.5\nAnswer: 4"));
        assert_eq!(trace_part("a\nAnswer: 1\nb\nAnswer: 2"), "a\nAnswer: 1\nb\n");
        assert_eq!(trace_part("no marker"), "no marker");
    }
}

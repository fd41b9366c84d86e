//! One Lesson 3 task: a question, the answers accepted as exactly correct, and the kind of
//! answer it takes. The checker (`answer.rs`) reads it; the bundled set is `tasks.rs`.

use serde::{Deserialize, Serialize};

/// How a reply settles on an answer (see `answer::canonical_answer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnswerKind {
    /// One resulting number, so "12", "12.0", "twelve" and "7 + 5 = 12 apples" are all 12.
    Number,
    /// One of the options the question names ("Which is larger, 48 or 84?").
    Choice,
    /// A phrase ("Paris" in "The capital is Paris.").
    Text,
    /// What the reply asserts about the question's claim. Serialized as "yes-no".
    YesNo,
}

impl AnswerKind {
    pub fn parse(s: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
    }
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
    /// For a word problem, the arithmetic that solves it ("3 * 6 - 5"): a test recomputes
    /// the answer from it and checks that its numbers come from the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<String>,
}

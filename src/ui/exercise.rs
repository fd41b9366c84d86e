//! An exercise's verdict, in every lesson: a check reads the learner's own results and
//! either passes, saying what they show, or says what to change. Never a canned answer.

/// Passed with a note on what was measured, or not yet with what to try.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub pass: bool,
    pub message: String,
}

impl Verdict {
    pub fn pass(message: impl Into<String>) -> Self {
        Verdict {
            pass: true,
            message: message.into(),
        }
    }

    pub fn fail(message: impl Into<String>) -> Self {
        Verdict {
            pass: false,
            message: message.into(),
        }
    }
}

/// `Ok(note)` passes, `Err(why)` does not: how the checks written with `?` report.
impl From<Result<String, String>> for Verdict {
    fn from(result: Result<String, String>) -> Self {
        match result {
            Ok(note) => Verdict::pass(note),
            Err(why) => Verdict::fail(why),
        }
    }
}

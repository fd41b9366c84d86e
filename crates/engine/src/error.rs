//! The engine's one error type. Every failure a learner can cause (a bad file, a bad
//! setting, a prompt too long) ends here as a sentence, never as a panic.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum EngineError {
    /// The model file is not a GGUF this engine can run; the text says what is wrong.
    InvalidModel(String),
    /// A sampler or generation setting is out of range.
    InvalidSetting { name: &'static str, value: String, reason: &'static str },
    /// The prompt is empty, or does not fit in the context.
    InvalidPrompt(String),
    /// A request that makes no sense in the session's current state.
    InvalidState(String),
    /// The allocator could not provide `bytes` more bytes for `what`.
    OutOfMemory { bytes: usize, what: String },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidModel(m) => write!(f, "invalid model file: {m}"),
            Self::InvalidSetting { name, value, reason } => {
                write!(f, "invalid setting {name} = {value}: {reason}")
            }
            Self::InvalidPrompt(m) => write!(f, "invalid prompt: {m}"),
            Self::InvalidState(m) => write!(f, "{m}"),
            Self::OutOfMemory { bytes, what } => {
                write!(f, "out of memory: {:.1} MB more for {what} could not be allocated", *bytes as f64 / 1e6)
            }
        }
    }
}

impl std::error::Error for EngineError {}

impl From<candle_core::Error> for EngineError {
    fn from(e: candle_core::Error) -> Self {
        Self::InvalidModel(candle_message(&e))
    }
}

/// candle's error text without the backtrace that candle appends when RUST_BACKTRACE is set:
/// a user is told what is wrong with the file, in one line, not where in candle it was found.
pub fn candle_message(e: &candle_core::Error) -> String {
    match e {
        candle_core::Error::WithBacktrace { inner, .. } => candle_message(inner),
        other => other.to_string(),
    }
}

pub type Result<T> = std::result::Result<T, EngineError>;

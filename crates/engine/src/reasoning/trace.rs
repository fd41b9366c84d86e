//! One sample of a task read as it is generated, token by token: where its reasoning ends
//! and its answer line begins, when the budget forces an `Answer:`, when it is finished.
//! It only reads tokens and says what should happen next, so the same rules hold whether
//! the sample decodes on a session of its own or in a batch with others (`runner.rs`).

use super::answer::{check, has_answer_marker};
use super::format::{format_failure, right_in_trace};
use super::strategy::{Sample, Strategy, ANSWER_CAP};
use super::task::Task;
use crate::tokenizer::{TextStream, Tokenizer};

/// What the runner appends when the budget is spent, without the line break when the
/// reasoning already ends with one.
pub(crate) const FORCED_ANSWER: &str = "\nAnswer:";

/// What the decoder should do after a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// Draw the next token.
    Go,
    /// Append this text to the context as prompt (not generated output), then `forced`.
    Force(&'static str),
    /// The sample is finished.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Reason,
    Answer,
}

pub(crate) struct Trace {
    strategy: Strategy,
    budget: usize,
    /// Whether a spent budget gets the runner's `Answer:` (`RunConfig::forced_answer`).
    force_at_budget: bool,
    phase: Phase,
    sample: Sample,
    /// The current line of reasoning and how many tokens it spans, to find where a line
    /// the model starts with "Answer:" begins.
    line: String,
    line_tokens: usize,
    /// The tokens' text, never half a character; restarted after a forced `Answer:`, as a
    /// session's stream is when its context is restarted.
    stream: TextStream,
}

impl Trace {
    pub fn new(strategy: Strategy, budget: usize) -> Self {
        Self {
            strategy,
            budget,
            force_at_budget: true,
            phase: if strategy == Strategy::Direct { Phase::Answer } else { Phase::Reason },
            sample: Sample::default(),
            line: String::new(),
            line_tokens: 0,
            stream: TextStream::default(),
        }
    }

    /// Without the runner's `Answer:` at a spent budget: the sample ends there.
    pub fn forcing_at_budget(mut self, force: bool) -> Self {
        self.force_at_budget = force;
        self
    }

    /// Generated tokens so far.
    pub fn tokens(&self) -> usize {
        self.sample.reasoning_tokens + self.sample.answer_tokens
    }

    /// Reads the token just generated.
    pub fn push(&mut self, tokenizer: &Tokenizer, token: u32) -> Next {
        let stop = tokenizer.ends_reply(token);
        let piece = if stop { String::new() } else { self.stream.push(tokenizer.token_bytes(token)) };
        self.sample.tokens.push(token);
        match self.phase {
            Phase::Reason => {
                self.sample.reasoning_tokens += 1;
                self.sample.reasoning.push_str(&piece);
                self.line.push_str(&piece);
                self.line_tokens += 1;
                if let Some(nl) = self.line.rfind('\n') {
                    self.line.drain(..=nl);
                    self.line_tokens = usize::from(!self.line.is_empty());
                }
                let wrote_answer = has_answer_marker(&self.line);
                if stop {
                    Next::Done
                } else if wrote_answer && self.strategy != Strategy::Hidden {
                    // The model began its answer line itself: the rest of the line is answer.
                    self.move_line_to_answer();
                    self.phase = Phase::Answer;
                    Next::Go
                } else if wrote_answer || self.sample.reasoning_tokens >= self.budget {
                    self.sample.truncated = !wrote_answer;
                    if self.sample.truncated && !self.force_at_budget {
                        return Next::Done;
                    }
                    // On a line of its own.
                    let newline = usize::from(self.sample.reasoning.ends_with('\n'));
                    Next::Force(&FORCED_ANSWER[newline..])
                } else {
                    Next::Go
                }
            }
            Phase::Answer => {
                self.sample.answer_tokens += 1;
                self.sample.answer_text.push_str(&piece);
                let has_content = !self.sample.answer_text.trim().is_empty();
                let line_done = has_content && piece.contains('\n') && self.strategy != Strategy::Direct;
                if stop || line_done || self.sample.answer_tokens >= ANSWER_CAP {
                    Next::Done
                } else {
                    Next::Go
                }
            }
        }
    }

    /// The decoder appended the text of `Next::Force`: what follows is the answer.
    pub fn forced(&mut self) {
        self.sample.forced_answer = true;
        self.sample.answer_text = "Answer:".into();
        self.phase = Phase::Answer;
        self.stream = TextStream::default();
    }

    /// The text since the last newline was the start of the answer line.
    fn move_line_to_answer(&mut self) {
        let s = &mut self.sample;
        let cut = s.reasoning.len() - self.line.len();
        s.answer_text = s.reasoning.split_off(cut);
        s.reasoning_tokens -= self.line_tokens;
        s.answer_tokens += self.line_tokens;
    }

    /// The finished sample, judged.
    pub fn finish(self, task: &Task) -> Sample {
        let mut sample = self.sample;
        // Cut by the budget with nothing forced: no answer, whatever the reasoning says.
        if sample.truncated && !sample.forced_answer {
            sample.format_failure = right_in_trace(task, &sample.reasoning);
            return sample;
        }
        // One rule for every strategy: the reply as the model's context holds it.
        let reply = sample.reply();
        let verdict = check(task, &reply);
        sample.extracted = verdict.extracted;
        sample.canonical = verdict.canonical;
        sample.correct = verdict.correct;
        sample.format_failure = format_failure(task, &reply);
        sample
    }
}

//! The conversation as data: exchanges of a user message and its answers. An answer is the
//! generated tokens as the worker reported them (each with what it was drawn from), and an
//! exchange keeps every answer it had (Regenerate and branches add one; "1 of 2" arrows
//! switch), each with the exchanges that followed it, so that nothing is thrown away by
//! looking at another branch. Editing a user message drops what followed it, as its button says.

use crate::protocol::Alternative;
use engine::{Exchange as EngineExchange, StopReason};
use serde::{Deserialize, Serialize};

/// One generated token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Token {
    pub id: u32,
    pub piece: String,
    /// Its probability in the final distribution when it was drawn (or forced).
    pub prob: f32,
    pub forced: bool,
    pub alternatives: Vec<Alternative>,
}

/// What the last request on an answer measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    /// Tokens this request added.
    pub tokens: usize,
    pub stop: StopReason,
    pub reused: usize,
    pub computed: usize,
    pub ttft_ms: f64,
    pub prefill_tps: f64,
    pub decode_tps: f64,
    /// The context's length at the end.
    pub context: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub tokens: Vec<Token>,
    pub footer: Option<Footer>,
    /// The exchanges that followed this answer, kept here while another answer is shown.
    #[serde(default)]
    pub later: Vec<Exchange>,
}

impl Answer {
    pub fn text(&self) -> String {
        self.tokens.iter().map(|t| t.piece.as_str()).collect()
    }
    pub fn ids(&self) -> Vec<u32> {
        self.tokens.iter().map(|t| t.id).collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The user's message (in raw mode: the text to continue).
    pub user: String,
    pub answers: Vec<Answer>,
    pub shown: usize,
}

impl Exchange {
    pub fn answer(&self) -> &Answer {
        &self.answers[self.shown]
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    /// The exchanges on screen, each with its shown answer.
    pub exchanges: Vec<Exchange>,
}

impl Conversation {
    /// Adds a user message with an empty answer to fill; returns its index.
    pub fn ask(&mut self, user: &str) -> usize {
        self.exchanges.push(Exchange {
            user: user.into(),
            answers: vec![Answer::default()],
            shown: 0,
        });
        self.exchanges.len() - 1
    }

    /// Replaces exchange `j`'s message, dropping it and everything after it.
    pub fn edit(&mut self, j: usize, user: &str) -> usize {
        self.exchanges.truncate(j);
        self.ask(user)
    }

    /// A new answer for exchange `j` beginning with the shown answer's first `keep` tokens,
    /// shown from now on; the exchanges after it stay with the answer they followed.
    pub fn branch(&mut self, j: usize, keep: usize) {
        self.stash(j);
        let e = &mut self.exchanges[j];
        let tokens =
            e.answers[e.shown].tokens[..keep.min(e.answers[e.shown].tokens.len())].to_vec();
        e.answers.push(Answer {
            tokens,
            footer: None,
            later: Vec::new(),
        });
        e.shown = e.answers.len() - 1;
    }

    /// Shows answer `k` of exchange `j`, with the exchanges that followed it.
    pub fn switch(&mut self, j: usize, k: usize) {
        if k >= self.exchanges[j].answers.len() || k == self.exchanges[j].shown {
            return;
        }
        self.stash(j);
        let e = &mut self.exchanges[j];
        e.shown = k;
        let later = std::mem::take(&mut e.answers[k].later);
        self.exchanges.extend(later);
    }

    /// Moves the exchanges after `j` into `j`'s shown answer.
    fn stash(&mut self, j: usize) {
        let later = self.exchanges.split_off(j + 1);
        let e = &mut self.exchanges[j];
        e.answers[e.shown].later = later;
    }

    pub fn answer_mut(&mut self, j: usize) -> Option<&mut Answer> {
        self.exchanges.get_mut(j).map(|e| &mut e.answers[e.shown])
    }

    /// The exchanges before `j` as the engine takes them.
    pub fn earlier(&self, j: usize) -> Vec<EngineExchange> {
        self.exchanges[..j]
            .iter()
            .map(|e| EngineExchange {
                user: e.user.clone(),
                answer: e.answer().ids(),
            })
            .collect()
    }

    pub fn last_answer(&self) -> Option<&Answer> {
        self.exchanges.last().map(|e| e.answer())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn token(id: u32) -> Token {
        Token {
            id,
            piece: format!("<{id}>"),
            prob: 0.5,
            forced: false,
            alternatives: vec![],
        }
    }

    fn answered(c: &mut Conversation, user: &str, ids: &[u32]) -> usize {
        let j = c.ask(user);
        c.answer_mut(j).unwrap().tokens = ids.iter().map(|&i| token(i)).collect();
        j
    }

    #[wasm_bindgen_test]
    fn branches_keep_what_followed_them_and_edits_drop_it() {
        let mut c = Conversation::default();
        answered(&mut c, "a", &[1, 2, 3]);
        answered(&mut c, "b", &[4]);
        assert_eq!(
            c.earlier(1),
            [EngineExchange {
                user: "a".into(),
                answer: vec![1, 2, 3]
            }]
        );
        // Branch the first answer after one token: the second exchange goes with the old branch.
        c.branch(0, 1);
        assert_eq!(
            (c.exchanges.len(), c.exchanges[0].answer().ids()),
            (1, vec![1])
        );
        c.answer_mut(0).unwrap().tokens.push(token(9));
        c.switch(0, 0);
        assert_eq!(
            c.exchanges.len(),
            2,
            "the old branch comes back with what followed it"
        );
        assert_eq!(
            (c.exchanges[0].answer().ids(), c.exchanges[1].user.as_str()),
            (vec![1, 2, 3], "b")
        );
        c.switch(0, 1);
        assert_eq!(
            (c.exchanges.len(), c.exchanges[0].answer().ids()),
            (1, vec![1, 9])
        );
        c.switch(0, 7);
        assert_eq!(c.exchanges[0].shown, 1, "no such answer: nothing changes");
        c.switch(0, 0);
        assert_eq!(c.edit(1, "c"), 1);
        assert_eq!(
            (
                c.exchanges.len(),
                c.exchanges[1].user.as_str(),
                c.exchanges[1].answer().tokens.len()
            ),
            (2, "c", 0)
        );
        c.edit(0, "d");
        assert_eq!(
            (c.exchanges.len(), c.exchanges[0].answers.len()),
            (1, 1),
            "an edit drops the branches too"
        );
    }
}

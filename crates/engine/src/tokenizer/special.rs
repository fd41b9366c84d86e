//! Tokens whose text is found whole in a text before the rest of it is encoded, as llama.cpp
//! finds them: control tokens (`<start_of_turn>`, `<|im_end|>`), only when asked, and
//! user-defined ones (Gemma's runs of spaces, tabs and newlines, its HTML tags), always.

use super::Piece;

/// One kind of such tokens, by the first byte of their text, each list longest first.
pub(super) struct Special {
    by_first_byte: Vec<Vec<(String, u32)>>,
}

impl Special {
    /// The tokens of GGUF type `kind`. A token whose text is empty is left out: it would be
    /// found everywhere.
    pub(super) fn new(tokens: &[String], types: &[i32], kind: i32) -> Self {
        let mut by_first_byte = vec![Vec::new(); 256];
        for (i, (text, &ty)) in tokens.iter().zip(types).enumerate() {
            if let Some(&b) = text.as_bytes().first().filter(|_| ty == kind) {
                by_first_byte[b as usize].push((text.clone(), i as u32));
            }
        }
        for list in &mut by_first_byte {
            list.sort_by_key(|(text, _)| std::cmp::Reverse(text.len()));
        }
        Self { by_first_byte }
    }

    pub(super) fn contains(&self, id: u32) -> bool {
        self.by_first_byte.iter().flatten().any(|&(_, i)| i == id)
    }

    /// The id of the token whose text is `text` (the lowest, should two share it).
    pub(super) fn id(&self, text: &str) -> Option<u32> {
        let list = &self.by_first_byte[*text.as_bytes().first()? as usize];
        list.iter().find(|(t, _)| t == text).map(|&(_, id)| id)
    }

    /// `text` cut at these tokens' texts, from the left, the longest where several start at
    /// the same place. One pass over the text: a long prompt with many newlines costs a
    /// look at the few tokens that start with each of its bytes.
    pub(super) fn split<'a>(&self, text: &'a str) -> Vec<Piece<'a>> {
        let bytes = text.as_bytes();
        let mut pieces = Vec::new();
        let (mut start, mut at) = (0, 0);
        while at < bytes.len() {
            // A match starts and ends on character boundaries: the token's text is UTF-8 too.
            match self.by_first_byte[bytes[at] as usize].iter().find(|(t, _)| bytes[at..].starts_with(t.as_bytes())) {
                Some((t, id)) => {
                    if at > start {
                        pieces.push(Piece::Text(&text[start..at]));
                    }
                    pieces.push(Piece::Token(*id));
                    at += t.len();
                    start = at;
                }
                None => at += 1,
            }
        }
        if start < text.len() {
            pieces.push(Piece::Text(&text[start..]));
        }
        pieces
    }
}

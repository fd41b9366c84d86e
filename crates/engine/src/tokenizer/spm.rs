//! SentencePiece as GGUF stores it (`tokenizer.ggml.model = llama`: Llama 2, Gemma): pieces
//! with scores, spaces written as '▁', and `<0xNN>` byte tokens for what no piece covers.
//! The algorithm is llama.cpp's (src/llama-vocab.cpp, `llm_tokenizer_spm_session`):
//! start from the characters, and repeatedly merge the adjacent pair whose concatenation
//! is a piece with the highest score (the leftmost on a tie).

use super::BYTE;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

pub(super) struct Spm {
    ids: HashMap<String, u32>,
    scores: Vec<f32>,
    /// The id of `<0xNN>` for each byte, when the vocabulary has it.
    byte_ids: [Option<u32>; 256],
    unknown: Option<u32>,
    /// Prepend '▁' to text that starts the input or follows a control token.
    add_space_prefix: bool,
}

/// A candidate merge of the symbols at `left` and `right`.
struct Bigram {
    score: f32,
    left: usize,
    right: usize,
    /// Bytes of the merged text: a bigram whose symbols changed since is stale.
    size: usize,
}

impl PartialEq for Bigram {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Bigram {}
impl PartialOrd for Bigram {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Bigram {
    /// Highest score first, then the leftmost.
    fn cmp(&self, o: &Self) -> Ordering {
        self.score.total_cmp(&o.score).then(o.left.cmp(&self.left))
    }
}

/// One symbol: `text[start..start + len]`, linked to its neighbours; `len` 0 once merged away.
#[derive(Clone, Copy)]
struct Symbol {
    start: usize,
    len: usize,
    prev: Option<usize>,
    next: Option<usize>,
}

impl Spm {
    pub(super) fn new(
        tokens: &[String],
        types: &[i32],
        scores: Vec<f32>,
        unknown: Option<u32>,
        add_space_prefix: bool,
    ) -> Self {
        let ids = tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        let mut byte_ids = [None; 256];
        for (i, (t, &ty)) in tokens.iter().zip(types).enumerate() {
            if let Some(b) = byte_token(t).filter(|_| ty == BYTE) {
                byte_ids[b as usize] = Some(i as u32);
            }
        }
        Self { ids, scores, byte_ids, unknown, add_space_prefix }
    }

    /// Ids for plain `text`; `after_control` says whether it follows a control token (or
    /// starts the input), where SentencePiece adds its leading space.
    pub(super) fn encode(&self, text: &str, after_control: bool) -> Vec<u32> {
        let mut s = String::with_capacity(text.len() + 3);
        if self.add_space_prefix && after_control {
            s.push('▁');
        }
        s.extend(text.chars().map(|c| if c == ' ' { '▁' } else { c }));
        let mut symbols: Vec<Symbol> = s
            .char_indices()
            .enumerate()
            .map(|(i, (start, c))| Symbol { start, len: c.len_utf8(), prev: i.checked_sub(1), next: Some(i + 1) })
            .collect();
        if let Some(last) = symbols.last_mut() {
            last.next = None;
        }
        let mut queue = BinaryHeap::new();
        let bigram = |symbols: &[Symbol], left: Option<usize>, right: Option<usize>| -> Option<Bigram> {
            let (l, r) = (symbols[left?], symbols[right?]);
            let piece = &s[l.start..r.start + r.len];
            let id = *self.ids.get(piece)?;
            Some(Bigram { score: self.scores[id as usize], left: left?, right: right?, size: piece.len() })
        };
        for i in 1..symbols.len() {
            queue.extend(bigram(&symbols, Some(i - 1), Some(i)));
        }
        while let Some(b) = queue.pop() {
            let (l, r) = (symbols[b.left], symbols[b.right]);
            if l.len == 0 || r.len == 0 || l.len + r.len != b.size {
                continue;
            }
            symbols[b.left].len += r.len;
            symbols[b.right].len = 0;
            symbols[b.left].next = r.next;
            if let Some(n) = r.next {
                symbols[n].prev = Some(b.left);
            }
            queue.extend(bigram(&symbols, l.prev, Some(b.left)));
            queue.extend(bigram(&symbols, Some(b.left), symbols[b.left].next));
        }
        let mut ids = Vec::new();
        let mut at = if symbols.is_empty() { None } else { Some(0) };
        while let Some(i) = at {
            let sym = symbols[i];
            let piece = &s[sym.start..sym.start + sym.len];
            match self.ids.get(piece) {
                Some(&id) => ids.push(id),
                // No piece: one byte token per byte (or the unknown token where even that is missing).
                None => ids.extend(piece.bytes().filter_map(|b| self.byte_ids[b as usize].or(self.unknown))),
            }
            at = sym.next;
        }
        ids
    }
}

/// The byte a `<0xNN>` token stands for.
pub(super) fn byte_token(text: &str) -> Option<u8> {
    let hex = text.strip_prefix("<0x")?.strip_suffix('>')?;
    (hex.len() == 2).then(|| u8::from_str_radix(hex, 16).ok()).flatten()
}

/// The bytes a piece stands for: '▁' is a space.
pub(super) fn piece_bytes(text: &str) -> Vec<u8> {
    text.replace('▁', " ").into_bytes()
}

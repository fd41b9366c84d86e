//! The tokenizer, read from the GGUF's own metadata (`tokenizer.ggml.*`): byte-level BPE
//! (`bpe.rs`: GPT-2, SmolLM2, Llama 3, Qwen2) or SentencePiece (`spm.rs`: Llama 2, Gemma).
//! Control tokens are found in text only when asked (text a person typed is text),
//! user-defined ones always (`special.rs`). `stream.rs` turns token bytes into text without
//! splitting a character.

mod bpe;
mod special;
mod spm;
mod stream;

pub use bpe::PRE_TOKENIZERS;
pub use stream::TextStream;

use crate::error::{EngineError, Result};
use candle_core::quantized::gguf_file::{Content, Value};
use serde::{Deserialize, Serialize};

/// GGUF token types (llama.cpp's `llama_token_type`).
const UNKNOWN: i32 = 2;
const CONTROL: i32 = 3;
const USER_DEFINED: i32 = 4;
const BYTE: i32 = 6;

/// The texts of control tokens that end a turn in the chat formats this engine knows
/// (ChatML, Gemma, Llama 3), besides the file's EOS and EOT ids.
const END_OF_TURN: [&str; 4] = ["<|endoftext|>", "<|im_end|>", "<end_of_turn>", "<|eot_id|>"];

/// Which kind of tokenizer the file has (`tokenizer.ggml.model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenizerKind {
    /// `gpt2`: byte-level BPE.
    ByteLevelBpe,
    /// `llama`: SentencePiece with scores and byte fallback.
    SentencePiece,
}

/// A stretch of text as `Tokenizer::split_control` finds it: text, or a token whose text
/// was found whole.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Piece<'a> {
    Text(&'a str),
    Token(u32),
}

enum Pieces {
    Bpe(bpe::Bpe),
    Spm(spm::Spm),
}

pub struct Tokenizer {
    pieces: Pieces,
    pub kind: TokenizerKind,
    /// The raw bytes each id stands for (control tokens: their literal text).
    bytes: Vec<Vec<u8>>,
    /// Control tokens, found in text for `encode(.., parse_special = true)`.
    control: special::Special,
    /// User-defined tokens: cut out of any text before its encoding.
    user_defined: special::Special,
    pub bos: Option<u32>,
    /// `tokenizer.ggml.add_bos_token`: a prompt starts with `bos` (Gemma's files say so,
    /// SmolLM2's say not). A file without the key gets none.
    pub add_bos: bool,
    pub eos: u32,
    /// `tokenizer.ggml.eot_token_id`, when the file names an end-of-turn token.
    eot: Option<u32>,
    /// `tokenizer.chat_template`, as the file has it (untrusted text, not yet rendered);
    /// `None` for a base model, which runs as plain continuation.
    pub chat_template: Option<String>,
}

impl Tokenizer {
    pub fn from_gguf(content: &Content, vocab_size: usize) -> Result<Self> {
        let md = &content.metadata;
        let array = |key: &str| -> Result<Option<&Vec<Value>>> {
            match md.get(key) {
                None => Ok(None),
                Some(v) => v.to_vec().map(Some).map_err(|_| invalid(&format!("metadata {key} is not an array"))),
            }
        };
        let strings = |key: &str| -> Result<Vec<String>> {
            let arr = array(key)?.ok_or_else(|| invalid(&format!("metadata {key} is missing")))?;
            arr.iter()
                .map(|s| s.to_string().cloned().map_err(|_| invalid(&format!("{key} holds a non-string"))))
                .collect()
        };
        let model = match md.get("tokenizer.ggml.model") {
            Some(Value::String(m)) => m.as_str(),
            Some(_) => return Err(invalid("tokenizer.ggml.model is not a string")),
            None => return Err(invalid("metadata tokenizer.ggml.model is missing")),
        };
        let tokens = strings("tokenizer.ggml.tokens")?;
        if tokens.len() != vocab_size {
            return Err(invalid(&format!("{} tokens for a {vocab_size}-row embedding", tokens.len())));
        }
        let types: Vec<i32> = match array("tokenizer.ggml.token_type")? {
            Some(v) if v.len() == tokens.len() => v.iter().map(|t| t.to_i32().unwrap_or(1)).collect(),
            Some(v) => return Err(invalid(&format!("{} token types for {} tokens", v.len(), tokens.len()))),
            None => vec![1; tokens.len()],
        };
        let id = |key: &str| -> Result<Option<u32>> {
            match md.get(key).map(|v| v.to_u32()) {
                None => Ok(None),
                Some(Ok(id)) if (id as usize) < tokens.len() => Ok(Some(id)),
                Some(_) => Err(invalid(&format!("{key} is not a token id inside the vocabulary"))),
            }
        };
        let eos =
            id("tokenizer.ggml.eos_token_id")?.ok_or_else(|| invalid("tokenizer.ggml.eos_token_id is missing"))?;
        let (pieces, kind) = match model {
            "gpt2" => {
                let pre = match md.get("tokenizer.ggml.pre") {
                    None => None,
                    Some(Value::String(p)) => Some(p.as_str()),
                    Some(_) => return Err(invalid("tokenizer.ggml.pre is not a string")),
                };
                let merges = strings("tokenizer.ggml.merges")?;
                (Pieces::Bpe(bpe::Bpe::new(&tokens, &types, merges, pre)?), TokenizerKind::ByteLevelBpe)
            }
            "llama" => {
                let scores: Vec<f32> = match array("tokenizer.ggml.scores")? {
                    Some(v) if v.len() == tokens.len() => v
                        .iter()
                        .map(|s| s.to_f32().map_err(|_| invalid("tokenizer.ggml.scores holds a non-float")))
                        .collect::<Result<_>>()?,
                    _ => return Err(invalid("tokenizer.ggml.scores is missing or not one score per token")),
                };
                let add_space_prefix = match md.get("tokenizer.ggml.add_space_prefix") {
                    None => true,
                    Some(v) => v.to_bool().map_err(|_| invalid("tokenizer.ggml.add_space_prefix is not a boolean"))?,
                };
                let unknown = id("tokenizer.ggml.unknown_token_id")?
                    .or_else(|| types.iter().position(|&t| t == UNKNOWN).map(|i| i as u32));
                (Pieces::Spm(spm::Spm::new(&tokens, &types, scores, unknown, add_space_prefix)), TokenizerKind::SentencePiece)
            }
            other => {
                return Err(invalid(&format!(
                    "tokenizer.ggml.model is '{other}'; this engine reads byte-level BPE ('gpt2') and SentencePiece ('llama')"
                )))
            }
        };
        let control = special::Special::new(&tokens, &types, CONTROL);
        let user_defined = special::Special::new(&tokens, &types, USER_DEFINED);
        let bytes = tokens
            .iter()
            .zip(&types)
            .map(|(t, &ty)| match (ty, kind) {
                (CONTROL, _) => t.as_bytes().to_vec(),
                (_, TokenizerKind::ByteLevelBpe) => bpe::Bpe::token_bytes(t),
                (BYTE, TokenizerKind::SentencePiece) => {
                    spm::byte_token(t).map_or_else(|| t.as_bytes().to_vec(), |b| vec![b])
                }
                (_, TokenizerKind::SentencePiece) => spm::piece_bytes(t),
            })
            .collect();
        Ok(Self {
            pieces,
            kind,
            bytes,
            control,
            user_defined,
            bos: id("tokenizer.ggml.bos_token_id")?,
            add_bos: match md.get("tokenizer.ggml.add_bos_token") {
                None => false,
                Some(v) => v.to_bool().map_err(|_| invalid("tokenizer.ggml.add_bos_token is not a boolean"))?,
            },
            eos,
            eot: id("tokenizer.ggml.eot_token_id")?,
            chat_template: match md.get("tokenizer.chat_template") {
                None => None,
                Some(Value::String(t)) => Some(t.clone()),
                Some(_) => return Err(invalid("tokenizer.chat_template is not a string")),
            },
        })
    }

    pub fn vocab_size(&self) -> usize {
        self.bytes.len()
    }

    /// Token ids for `text`, with no BOS. With `parse_special`, the text of a control token
    /// (`<|im_end|>`) becomes that token; without, it is encoded as ordinary characters.
    pub fn encode(&self, text: &str, parse_special: bool) -> Result<Vec<u32>> {
        let mut ids = Vec::new();
        match parse_special {
            true => {
                for piece in self.split_control(text) {
                    match piece {
                        Piece::Text(plain) => self.extend_plain(&mut ids, plain)?,
                        Piece::Token(id) => ids.push(id),
                    }
                }
            }
            false => self.extend_plain(&mut ids, text)?,
        }
        Ok(ids)
    }

    /// `text` cut at the written-out control tokens it holds, the longest first where two
    /// start at the same place.
    pub fn split_control<'a>(&self, text: &'a str) -> Vec<Piece<'a>> {
        self.control.split(text)
    }

    /// Appends `plain`'s ids to `ids`, all of it as ordinary text: its user-defined tokens
    /// (which SentencePiece and llama.cpp always cut out first, typed or not: Gemma's "    "
    /// of indented code is one token) as such, the text between them encoded. SentencePiece's
    /// leading space goes where the input starts or a control or user-defined token ended,
    /// as in llama.cpp.
    pub fn extend_plain(&self, ids: &mut Vec<u32>, plain: &str) -> Result<()> {
        for piece in self.user_defined.split(plain) {
            match (piece, &self.pieces) {
                (Piece::Token(id), _) => ids.push(id),
                (Piece::Text(text), Pieces::Bpe(b)) => ids.extend(b.encode(text)?),
                (Piece::Text(text), Pieces::Spm(s)) => {
                    let after_token =
                        ids.last().is_none_or(|&l| self.control.contains(l) || self.user_defined.contains(l));
                    ids.extend(s.encode(text, after_token));
                }
            }
        }
        Ok(())
    }

    /// The bytes one token stands for: a token may hold part of a UTF-8 character.
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        self.bytes.get(id as usize).map_or(&[], |b| b.as_slice())
    }

    /// One token as text; bytes that are not valid UTF-8 on their own show as `<0xNN>`.
    pub fn token_text(&self, id: u32) -> String {
        let b = self.token_bytes(id);
        match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => {
                b.iter().map(|x| if x.is_ascii() { (*x as char).to_string() } else { format!("<0x{x:02X}>") }).collect()
            }
        }
    }

    pub fn is_control(&self, id: u32) -> bool {
        self.control.contains(id)
    }

    pub fn decode(&self, ids: &[u32]) -> String {
        let bytes: Vec<u8> = ids.iter().flat_map(|&i| self.token_bytes(i).iter().copied()).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Whether `token` ends a reply: end of text, or a control token that ends a turn.
    pub fn ends_reply(&self, token: u32) -> bool {
        token == self.eos || Some(token) == self.eot || END_OF_TURN.iter().any(|t| self.control_id(t) == Some(token))
    }

    /// The id of a control token such as `<|im_start|>`.
    pub fn control_id(&self, text: &str) -> Option<u32> {
        self.control.id(text)
    }
}

fn invalid(m: &str) -> EngineError {
    EngineError::InvalidModel(m.to_string())
}

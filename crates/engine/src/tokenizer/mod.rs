//! The tokenizer, rebuilt from the GGUF's own vocabulary and merges with the `tokenizers`
//! crate: a byte-level BPE behind llama.cpp's `smollm` pre-tokenizer (every digit alone,
//! then the GPT-2 byte-level regex). candle's `quantized::tokenizer` adds a leading space,
//! so "Hello" would come out as 38699 instead of 19556.

use crate::error::{EngineError, Result};
use candle_core::quantized::gguf_file::{Content, Value};
use std::collections::HashMap;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{AddedToken, PreTokenizerWrapper};

/// GGUF token type of control tokens such as `<|im_start|>`.
const CONTROL: i32 = 3;

pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    /// The raw bytes each id stands for (control tokens: their literal text).
    bytes: Vec<Vec<u8>>,
    /// Control tokens, longest text first, for `encode(.., parse_special = true)`.
    control: Vec<(String, u32)>,
    pub bos: Option<u32>,
    pub eos: u32,
}

impl Tokenizer {
    pub fn from_gguf(content: &Content, vocab_size: usize) -> Result<Self> {
        let md = &content.metadata;
        let strings = |key: &str| -> Result<Vec<String>> {
            let v = md.get(key).ok_or_else(|| invalid(&format!("metadata {key} is missing")))?;
            let arr = v.to_vec().map_err(|_| invalid(&format!("metadata {key} is not an array")))?;
            arr.iter()
                .map(|s| s.to_string().cloned().map_err(|_| invalid(&format!("{key} holds a non-string"))))
                .collect()
        };
        match md.get("tokenizer.ggml.model") {
            Some(Value::String(m)) if m == "gpt2" => {}
            other => {
                return Err(invalid(&format!(
                    "tokenizer.ggml.model is {other:?}; this engine reads byte-level BPE ('gpt2')"
                )))
            }
        }
        let tokens = strings("tokenizer.ggml.tokens")?;
        if tokens.len() != vocab_size {
            return Err(invalid(&format!("{} tokens for a {vocab_size}-row embedding", tokens.len())));
        }
        let types: Vec<i32> = match md.get("tokenizer.ggml.token_type") {
            Some(v) => v
                .to_vec()
                .map_err(|_| invalid("tokenizer.ggml.token_type is not an array"))?
                .iter()
                .map(|t| t.to_i32().unwrap_or(1))
                .collect(),
            None => vec![1; tokens.len()],
        };
        let merges = strings("tokenizer.ggml.merges")?
            .into_iter()
            .map(|m| match m.split_once(' ') {
                Some((a, b)) => Ok((a.to_string(), b.to_string())),
                None => Err(invalid(&format!("merge '{m}' is not two tokens"))),
            })
            .collect::<Result<Vec<_>>>()?;
        let id = |key: &str| md.get(key).and_then(|v| v.to_u32().ok());
        let eos = id("tokenizer.ggml.eos_token_id").ok_or_else(|| invalid("tokenizer.ggml.eos_token_id is missing"))?;
        if eos as usize >= tokens.len() {
            return Err(invalid("the EOS token id is outside the vocabulary"));
        }

        let vocab: tokenizers::models::bpe::Vocab =
            tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        let bpe = BPE::builder()
            .vocab_and_merges(vocab, merges)
            .build()
            .map_err(|e| invalid(&format!("could not build the BPE: {e}")))?;
        let mut inner = tokenizers::Tokenizer::new(bpe);
        let pre: Vec<PreTokenizerWrapper> = vec![Digits::new(true).into(), ByteLevel::new(false, true, true).into()];
        inner.with_pre_tokenizer(Some(Sequence::new(pre)));
        inner.with_decoder(Some(ByteLevelDecoder::default()));
        let mut control: Vec<(String, u32)> = Vec::new();
        let mut specials = Vec::new();
        for (i, (t, &ty)) in tokens.iter().zip(&types).enumerate() {
            if ty == CONTROL {
                control.push((t.clone(), i as u32));
                specials.push(AddedToken::from(t.clone(), true));
            }
        }
        inner.add_special_tokens(specials).map_err(|e| invalid(&format!("control tokens: {e}")))?;
        // Text is always text: a learner who types "<|im_start|>" gets those characters,
        // not the control token. `encode(.., true)` opts in explicitly.
        inner.set_encode_special_tokens(true);
        control.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));

        let decode_table = byte_decoder();
        let bytes = tokens
            .iter()
            .zip(&types)
            .map(|(t, &ty)| match ty {
                CONTROL => t.as_bytes().to_vec(),
                _ => t.chars().map(|ch| decode_table.get(&ch).copied().unwrap_or(b'?')).collect(),
            })
            .collect();
        Ok(Self { inner, bytes, control, bos: id("tokenizer.ggml.bos_token_id"), eos })
    }

    pub fn vocab_size(&self) -> usize {
        self.bytes.len()
    }

    /// Token ids for `text`, with no BOS. With `parse_special`, the text of a control token
    /// (`<|im_end|>`) becomes that token; without, it is encoded as ordinary characters.
    pub fn encode(&self, text: &str, parse_special: bool) -> Result<Vec<u32>> {
        let mut ids = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let next = match parse_special {
                true => self
                    .control
                    .iter()
                    .filter_map(|(t, id)| rest.find(t.as_str()).map(|at| (at, t.len(), *id)))
                    .min_by_key(|&(at, len, _)| (at, std::cmp::Reverse(len))),
                false => None,
            };
            let (plain, special) = match next {
                Some((at, len, id)) => (&rest[..at], Some((len, id, at))),
                None => (rest, None),
            };
            if !plain.is_empty() {
                let enc = self
                    .inner
                    .encode(plain, false)
                    .map_err(|e| EngineError::InvalidPrompt(format!("tokenizer: {e}")))?;
                ids.extend_from_slice(enc.get_ids());
            }
            match special {
                Some((len, id, at)) => {
                    ids.push(id);
                    rest = &rest[at + len..];
                }
                None => rest = "",
            }
        }
        Ok(ids)
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
        self.control.iter().any(|&(_, c)| c == id)
    }

    pub fn decode(&self, ids: &[u32]) -> String {
        let bytes: Vec<u8> = ids.iter().flat_map(|&i| self.token_bytes(i).iter().copied()).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Whether `token` ends a reply: end of turn or end of text.
    pub fn ends_reply(&self, token: u32) -> bool {
        token == self.eos || Some(token) == self.control_id("<|endoftext|>")
    }

    /// The id of a control token such as `<|im_start|>`.
    pub fn control_id(&self, text: &str) -> Option<u32> {
        self.control.iter().find(|(t, _)| t == text).map(|&(_, id)| id)
    }
}

/// Streams token bytes out as text without ever splitting a UTF-8 character: bytes of an
/// unfinished character wait for the next token.
#[derive(Default, Clone)]
pub struct TextStream {
    pending: Vec<u8>,
}

impl TextStream {
    /// The text that `bytes` completes (possibly empty).
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(s) => {
                    out.push_str(s);
                    self.pending.clear();
                    return out;
                }
                Err(e) => {
                    let good = e.valid_up_to();
                    out.push_str(std::str::from_utf8(&self.pending[..good]).unwrap_or_default());
                    match e.error_len() {
                        // Incomplete character at the end: keep it for the next token.
                        None => {
                            self.pending.drain(..good);
                            return out;
                        }
                        // Bytes that can never be valid: show a replacement and go on.
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            self.pending.drain(..good + bad);
                        }
                    }
                }
            }
        }
    }

    /// Whatever is left when the stream ends.
    pub fn finish(&mut self) -> String {
        let s = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        s
    }
}

/// GPT-2's printable-character encoding of bytes, inverted.
fn byte_decoder() -> HashMap<char, u8> {
    let mut printable: Vec<u8> = (b'!'..=b'~').chain(0xA1..=0xAC).chain(0xAE..=0xFF).collect();
    let mut chars: Vec<u32> = printable.iter().map(|&b| b as u32).collect();
    let mut extra = 0;
    for b in 0..=255u8 {
        if !printable.contains(&b) {
            printable.push(b);
            chars.push(256 + extra);
            extra += 1;
        }
    }
    printable.into_iter().zip(chars).filter_map(|(b, c)| char::from_u32(c).map(|c| (c, b))).collect()
}

fn invalid(m: &str) -> EngineError {
    EngineError::InvalidModel(m.to_string())
}

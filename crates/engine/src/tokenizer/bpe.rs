//! Byte-level BPE (`tokenizer.ggml.model = gpt2`), rebuilt with the `tokenizers` crate from
//! the file's vocabulary and merges, behind the pre-tokenizer `tokenizer.ggml.pre` names.
//! The regular expressions are llama.cpp's (src/llama-vocab.cpp, `llm_tokenizer_bpe`).
//! candle's `quantized::tokenizer` adds a leading space, so SmolLM2's "Hello" would come
//! out as 38699 instead of 19556.

use super::{invalid, CONTROL};
use crate::error::{EngineError, Result};
use std::collections::HashMap;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, PreTokenizerWrapper, SplitDelimiterBehavior};

/// Llama 3's split: contractions, letters with one leading non-letter, numbers of up to three digits.
const LLAMA3: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Qwen2's: Llama 3's with every digit alone.
const QWEN2: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// The pre-tokenizers this engine knows, by their `tokenizer.ggml.pre` name.
pub const PRE_TOKENIZERS: [&str; 5] = ["default", "gpt2", "smollm", "llama-bpe", "qwen2"];

pub(super) struct Bpe(tokenizers::Tokenizer);

impl Bpe {
    /// `pre` is `tokenizer.ggml.pre`; a file without one gets GPT-2's split, as in llama.cpp.
    pub(super) fn new(tokens: &[String], types: &[i32], merges: Vec<String>, pre: Option<&str>) -> Result<Self> {
        let merges = merges
            .into_iter()
            .map(|m| match m.split_once(' ') {
                Some((a, b)) => Ok((a.to_string(), b.to_string())),
                None => Err(invalid(&format!("merge '{m}' is not two tokens"))),
            })
            .collect::<Result<Vec<_>>>()?;
        let vocab: tokenizers::models::bpe::Vocab =
            tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        let bpe = BPE::builder()
            .vocab_and_merges(vocab, merges)
            .build()
            .map_err(|e| invalid(&format!("could not build the BPE: {e}")))?;
        let mut inner = tokenizers::Tokenizer::new(bpe);
        let split = |pattern: &str| -> Result<PreTokenizerWrapper> {
            let s = Split::new(SplitPattern::Regex(pattern.into()), SplitDelimiterBehavior::Isolated, false)
                .map_err(|e| invalid(&format!("pre-tokenizer: {e}")))?;
            Ok(s.into())
        };
        let bytes_only = || ByteLevel::new(false, true, false).into();
        let pre: Vec<PreTokenizerWrapper> = match pre.unwrap_or("default") {
            "default" | "gpt2" => vec![ByteLevel::new(false, true, true).into()],
            // Every digit alone, then GPT-2's split.
            "smollm" => vec![Digits::new(true).into(), ByteLevel::new(false, true, true).into()],
            "llama-bpe" => vec![split(LLAMA3)?, bytes_only()],
            "qwen2" => vec![split(QWEN2)?, bytes_only()],
            other => {
                return Err(invalid(&format!(
                    "tokenizer.ggml.pre is '{other}'; this engine knows {}",
                    PRE_TOKENIZERS.join(", ")
                )))
            }
        };
        inner.with_pre_tokenizer(Some(Sequence::new(pre)));
        inner.with_decoder(Some(ByteLevelDecoder::default()));
        let specials: Vec<AddedToken> = tokens
            .iter()
            .zip(types)
            .filter(|(_, &ty)| ty == CONTROL)
            .map(|(t, _)| AddedToken::from(t.clone(), true))
            .collect();
        inner.add_special_tokens(specials).map_err(|e| invalid(&format!("control tokens: {e}")))?;
        // Text is always text: the crate must not turn typed control text into control
        // tokens (`Tokenizer::encode` finds them itself, only when asked).
        inner.set_encode_special_tokens(true);
        Ok(Self(inner))
    }

    pub(super) fn encode(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self.0.encode(text, false).map_err(|e| EngineError::InvalidPrompt(format!("tokenizer: {e}")))?;
        Ok(enc.get_ids().to_vec())
    }

    /// The bytes a (non-control) token's text stands for, through GPT-2's byte-to-character table.
    pub(super) fn token_bytes(text: &str) -> Vec<u8> {
        thread_local! { static TABLE: HashMap<char, u8> = byte_decoder(); }
        TABLE.with(|t| text.chars().map(|ch| t.get(&ch).copied().unwrap_or(b'?')).collect())
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

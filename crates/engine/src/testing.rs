//! A tiny model with random weights, written as a real GGUF, so that tests on every
//! platform (native, wasm in a browser, fuzzing) run the real loading and forward code in
//! milliseconds, with no download. A llama by default; qwen2, qwen3 and gemma3 get the
//! tensors and metadata keys llama.cpp writes for them.

use crate::arch::ROPE_FACTORS;
use crate::sampler::Rng;
use candle_core::quantized::gguf_file::{self, Value};
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use std::io::Cursor;

/// The shape of the tiny model; `Default` is a 4-layer GQA llama with a 291-token
/// byte-level vocabulary and ChatML control tokens.
#[derive(Debug, Clone)]
pub struct TinyModel {
    pub architecture: String,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub embedding: usize,
    pub ffn: usize,
    pub context: usize,
    pub seed: u64,
    /// Declare this many more rows in `blk.0.attn_q.weight` than the data holds.
    pub lie_about_shape: bool,
    /// Written as `{arch}.attention.key_length` when set; otherwise embedding / heads.
    pub head_dim: Option<usize>,
    /// Gemma 3's `attention.sliding_window` and `attention.sliding_window_pattern`.
    pub sliding_window: (usize, usize),
    pub attn_softcap: Option<f32>,
    pub final_softcap: Option<f32>,
    /// Gemma's kind of vocabulary (SentencePiece pieces with scores, `<0xNN>` byte tokens,
    /// Gemma's turn markers) instead of the byte-level BPE one.
    pub sentencepiece: bool,
    /// Store every tensor as F32, holding the values its quantised form would (for
    /// references that would otherwise quantise their activations, as candle's `QMatMul`
    /// does on quantised weights).
    pub f32_weights: bool,
    /// Llama 3's RoPE factors, written as `rope_freqs.weight` (one per rotary pair).
    pub rope_freqs: Option<Vec<f32>>,
    /// A chat template written instead of the byte-level vocabulary's plain ChatML one (a
    /// hostile one, for the tests of untrusted files).
    pub chat_template: Option<String>,
    /// Pieces of the SentencePiece vocabulary written as user-defined tokens (GGUF type 4,
    /// as Gemma's runs of spaces and HTML tags are), which the tokenizer cuts out first.
    pub user_defined: &'static [&'static str],
}

impl Default for TinyModel {
    fn default() -> Self {
        Self {
            architecture: "llama".into(),
            layers: 4,
            heads: 4,
            kv_heads: 2,
            embedding: 64,
            ffn: 128,
            context: 512,
            seed: 7,
            lie_about_shape: false,
            head_dim: None,
            sliding_window: (4, 3),
            attn_softcap: None,
            final_softcap: None,
            f32_weights: false,
            sentencepiece: false,
            rope_freqs: None,
            chat_template: None,
            user_defined: &[],
        }
    }
}

/// Control tokens first (as in SmolLM2), then the 256 byte tokens, then a few merges.
fn vocabulary() -> (Vec<String>, Vec<i32>, Vec<String>) {
    let controls = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];
    let mut tokens: Vec<String> = controls.iter().map(|s| s.to_string()).collect();
    let mut types = vec![3; controls.len()];
    // GPT-2's byte-to-character table, in byte order.
    let printable: Vec<u32> = (b'!'..=b'~').chain(0xA1..=0xAC).chain(0xAE..=0xFF).map(u32::from).collect();
    let mut extra = 0;
    for b in 0..=255u32 {
        let ch = if printable.contains(&b) {
            b
        } else {
            extra += 1;
            255 + extra
        };
        tokens.push(char::from_u32(ch).unwrap_or('?').to_string());
        types.push(1);
    }
    let merges = [
        "Ġ t", "h e", "Ġt he", "i n", "Ġ a", "e r", "o n", "Ġ s", "r e", "a n", "Ġ w", "o r", "e n", "Ġ o", "i s",
        "a t", "Ġ i", "Ġ c", "Ġ h", "e s", "Ġ b", "Ġ f", "o u", "Ġ m", "l l", "Ġ p", "i t", "Ġ d", "e d", "in g",
        "Ġ 1", "Ġa n",
    ];
    for m in merges {
        tokens.push(m.replace(' ', ""));
        types.push(1);
    }
    (tokens, types, merges.iter().map(|s| s.to_string()).collect())
}

/// A SentencePiece vocabulary laid out as Gemma's: `<pad> <eos> <bos> <unk>`, the turn
/// markers, the 256 byte tokens, then pieces with scores (longer pieces score higher, so
/// that they win; "▁t" + "he" and "▁th" + "e" both make "▁the"). 291 tokens, as the BPE one.
fn sentencepiece() -> (Vec<String>, Vec<i32>, Vec<f32>) {
    let mut tokens: Vec<String> = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut types = vec![3, 3, 3, 2, 3, 3];
    tokens.extend((0..=255u32).map(|b| format!("<0x{b:02X}>")));
    types.extend([6; 256]);
    let pieces = [
        "▁", "e", "t", "h", "a", "o", "n", "s", "r", "i", "l", "d", "u", "m", "w", "▁t", "he", "▁th", "▁the", "▁a",
        "in", "er", "▁w", "▁s", "on", "▁o", "▁i", "an", "is",
    ];
    let mut scores = vec![0.0; tokens.len()];
    for p in pieces {
        tokens.push(p.to_string());
        types.push(1);
        scores.push(-10.0 + p.chars().count() as f32);
    }
    (tokens, types, scores)
}

impl TinyModel {
    pub fn vocab(&self) -> usize {
        match self.sentencepiece {
            true => sentencepiece().0.len(),
            false => vocabulary().0.len(),
        }
    }

    /// The model as GGUF bytes: Q4_1 layer weights, a Q8_0 tied embedding, F32 norms and
    /// biases, like the real file.
    pub fn to_gguf(&self) -> Vec<u8> {
        let (tokens, types, merges) = vocabulary();
        let arch = self.architecture.as_str();
        let (e, f) = (self.embedding, self.ffn);
        let hd = self.head_dim.unwrap_or(e / self.heads);
        let (qd, kvd) = (self.heads * hd, self.kv_heads * hd);
        let mut rng = Rng::new(self.seed);
        let dev = Device::Cpu;
        let mut tensor = |rows: usize, cols: usize, scale: f32, dtype: GgmlDType| -> QTensor {
            let data: Vec<f32> = (0..rows * cols).map(|_| (rng.next_f64() as f32 * 2.0 - 1.0) * scale).collect();
            let shape: Vec<usize> = if rows == 1 { vec![cols] } else { vec![rows, cols] };
            let t = Tensor::from_vec(data, shape, &dev).expect("tiny tensor");
            QTensor::quantize(&t, dtype).expect("quantize tiny tensor")
        };
        let mut named: Vec<(String, QTensor)> = Vec::new();
        // Norm weights near 1 (Gemma's `1 +` already added, as llama.cpp's converter does).
        let norm = |rng_tensor: &mut dyn FnMut(usize, usize, f32, GgmlDType) -> QTensor, len: usize| {
            let t = rng_tensor(1, len, 0.2, GgmlDType::F32);
            let ones = t.dequantize(&Device::Cpu).and_then(|t| t + 1.0).expect("norm");
            QTensor::quantize(&ones, GgmlDType::F32).expect("norm")
        };
        named.push(("token_embd.weight".into(), tensor(self.vocab(), e, 1.0, GgmlDType::Q8_0)));
        for i in 0..self.layers {
            let w = 1.5 / (e as f32).sqrt();
            let q_rows = if self.lie_about_shape && i == 0 { qd + 32 } else { qd };
            let name = |s: &str| format!("blk.{i}.{s}");
            named.push((name("attn_norm.weight"), norm(&mut tensor, e)));
            named.push((name("attn_q.weight"), tensor(q_rows, e, w, GgmlDType::Q4_1)));
            named.push((name("attn_k.weight"), tensor(kvd, e, w, GgmlDType::Q4_1)));
            named.push((name("attn_v.weight"), tensor(kvd, e, w, GgmlDType::Q4_1)));
            named.push((name("attn_output.weight"), tensor(e, qd, 1.5 / (qd as f32).sqrt(), GgmlDType::Q4_1)));
            if arch == "qwen2" {
                named.push((name("attn_q.bias"), tensor(1, qd, 0.5, GgmlDType::F32)));
                named.push((name("attn_k.bias"), tensor(1, kvd, 0.5, GgmlDType::F32)));
                named.push((name("attn_v.bias"), tensor(1, kvd, 0.5, GgmlDType::F32)));
            }
            if arch == "qwen3" || arch == "gemma3" {
                named.push((name("attn_q_norm.weight"), norm(&mut tensor, hd)));
                named.push((name("attn_k_norm.weight"), norm(&mut tensor, hd)));
            }
            if arch == "gemma3" {
                named.push((name("post_attention_norm.weight"), norm(&mut tensor, e)));
                named.push((name("post_ffw_norm.weight"), norm(&mut tensor, e)));
            }
            named.push((name("ffn_norm.weight"), norm(&mut tensor, e)));
            named.push((name("ffn_gate.weight"), tensor(f, e, w, GgmlDType::Q4_1)));
            named.push((name("ffn_up.weight"), tensor(f, e, w, GgmlDType::Q4_1)));
            named.push((name("ffn_down.weight"), tensor(e, f, 1.5 / (f as f32).sqrt(), GgmlDType::Q4_1)));
        }
        named.push(("output_norm.weight".into(), norm(&mut tensor, e)));
        if let Some(f) = &self.rope_freqs {
            let t = Tensor::from_vec(f.clone(), f.len(), &dev).expect("rope factors");
            named.push((ROPE_FACTORS.into(), QTensor::quantize(&t, GgmlDType::F32).expect("rope factors")));
        }
        if self.f32_weights {
            for (_, t) in &mut named {
                let values = t.dequantize(&dev).expect("dequantize tiny tensor");
                *t = QTensor::quantize(&values, GgmlDType::F32).expect("tiny tensor as F32");
            }
        }

        let strings = |v: &[String]| Value::Array(v.iter().map(|s| Value::String(s.clone())).collect());
        let key = |k: &str| format!("{arch}.{k}");
        let mut arch_md: Vec<(String, Value)> = vec![
            (key("block_count"), Value::U32(self.layers as u32)),
            (key("context_length"), Value::U32(self.context as u32)),
            (key("embedding_length"), Value::U32(e as u32)),
            (key("feed_forward_length"), Value::U32(f as u32)),
            (key("attention.head_count"), Value::U32(self.heads as u32)),
            (key("attention.head_count_kv"), Value::U32(self.kv_heads as u32)),
            (key("rope.freq_base"), Value::F32(if arch == "gemma3" { 1_000_000.0 } else { 10_000.0 })),
            (key("rope.dimension_count"), Value::U32(hd as u32)),
            (key("attention.layer_norm_rms_epsilon"), Value::F32(1e-5)),
        ];
        if self.head_dim.is_some() {
            arch_md.push((key("attention.key_length"), Value::U32(hd as u32)));
            arch_md.push((key("attention.value_length"), Value::U32(hd as u32)));
        }
        if arch == "gemma3" {
            arch_md.push((key("attention.sliding_window"), Value::U32(self.sliding_window.0 as u32)));
            arch_md.push((key("attention.sliding_window_pattern"), Value::U32(self.sliding_window.1 as u32)));
        }
        if let Some(cap) = self.attn_softcap {
            arch_md.push((key("attn_logit_softcapping"), Value::F32(cap)));
        }
        if let Some(cap) = self.final_softcap {
            arch_md.push((key("final_logit_softcapping"), Value::F32(cap)));
        }
        if self.f32_weights {
            // candle's quantized_qwen3 builds its RoPE tables in this dtype (F16 when absent).
            arch_md.push(("general.dtype".into(), Value::U32(0)));
        }
        let mut md: Vec<(&str, Value)> = vec![("general.architecture", Value::String(self.architecture.clone()))];
        md.extend(arch_md.iter().map(|(k, v)| (k.as_str(), v.clone())));
        let int_array = |v: &[i32]| Value::Array(v.iter().map(|&t| Value::I32(t)).collect());
        match self.sentencepiece {
            false => md.extend([
                ("tokenizer.ggml.model", Value::String("gpt2".into())),
                ("tokenizer.ggml.pre", Value::String("smollm".into())),
                ("tokenizer.ggml.tokens", strings(&tokens)),
                ("tokenizer.ggml.token_type", int_array(&types)),
                ("tokenizer.ggml.merges", strings(&merges)),
                ("tokenizer.ggml.bos_token_id", Value::U32(1)),
                ("tokenizer.ggml.eos_token_id", Value::U32(2)),
                ("tokenizer.chat_template", Value::String(self.chat_template.clone().unwrap_or_else(|| CHATML.into()))),
            ]),
            true => {
                let (tokens, mut types, scores) = sentencepiece();
                for piece in self.user_defined {
                    let i = tokens.iter().position(|t| t == piece).expect("a user-defined token is a piece of the vocabulary");
                    types[i] = 4;
                }
                md.extend([
                    ("tokenizer.ggml.model", Value::String("llama".into())),
                    ("tokenizer.ggml.tokens", strings(&tokens)),
                    ("tokenizer.ggml.token_type", int_array(&types)),
                    ("tokenizer.ggml.scores", Value::Array(scores.iter().map(|&s| Value::F32(s)).collect())),
                    ("tokenizer.ggml.add_space_prefix", Value::Bool(false)),
                    ("tokenizer.ggml.bos_token_id", Value::U32(2)),
                    ("tokenizer.ggml.eos_token_id", Value::U32(1)),
                    ("tokenizer.ggml.eot_token_id", Value::U32(5)),
                ])
            }
        }
        let md_refs: Vec<(&str, &Value)> = md.iter().map(|(k, v)| (*k, v)).collect();
        let t_refs: Vec<(&str, &QTensor)> = named.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut out = Cursor::new(Vec::new());
        gguf_file::write(&mut out, &md_refs, &t_refs).expect("write tiny GGUF");
        out.into_inner()
    }
}

/// A plain ChatML template (SmolLM2's without its default system turn), for the tiny
/// model's byte-level vocabulary, which has the ChatML markers.
const CHATML: &str = "{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\n' + m['content'] + '<|im_end|>\n' }}\
{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

/// Where tensor `name`'s data starts in GGUF `bytes`, for tests that corrupt one block.
pub fn tensor_data_at(bytes: &[u8], name: &str) -> usize {
    let content = crate::gguf::read_gguf(&mut Cursor::new(bytes)).expect("a readable GGUF");
    (content.tensor_data_offset + content.tensor_infos[name].offset) as usize
}

/// `bytes` with tensor `name`'s ggml type number in the header set to `ggml_type` (20 is
/// IQ4_NL): the directory entry is the name, the dimension count and dimensions (u64
/// each), then the type.
pub fn with_tensor_type(bytes: &[u8], name: &str, ggml_type: u32) -> Vec<u8> {
    let at = bytes.windows(name.len()).position(|w| w == name.as_bytes()).expect("tensor name in the header");
    let dims_at = at + name.len();
    let dims = u32::from_le_bytes(bytes[dims_at..dims_at + 4].try_into().unwrap()) as usize;
    let type_at = dims_at + 4 + 8 * dims;
    let mut out = bytes.to_vec();
    out[type_at..type_at + 4].copy_from_slice(&ggml_type.to_le_bytes());
    out
}

//! A tiny llama with random weights, written as a real GGUF, so that tests on every
//! platform (native, wasm in a browser, fuzzing) run the real loading and forward code in
//! milliseconds, with no download.

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

impl TinyModel {
    pub fn vocab(&self) -> usize {
        vocabulary().0.len()
    }

    /// The model as GGUF bytes: Q4_1 layer weights, a Q8_0 tied embedding, F32 norms,
    /// like the real file.
    pub fn to_gguf(&self) -> Vec<u8> {
        let (tokens, types, merges) = vocabulary();
        let (e, f, hd) = (self.embedding, self.ffn, self.embedding / self.heads);
        let kvd = self.kv_heads * hd;
        let mut rng = Rng::new(self.seed);
        let dev = Device::Cpu;
        let mut tensor = |rows: usize, cols: usize, scale: f32, dtype: GgmlDType| -> QTensor {
            let data: Vec<f32> = (0..rows * cols).map(|_| (rng.next_f64() as f32 * 2.0 - 1.0) * scale).collect();
            let shape: Vec<usize> = if rows == 1 { vec![cols] } else { vec![rows, cols] };
            let t = Tensor::from_vec(data, shape, &dev).expect("tiny tensor");
            QTensor::quantize(&t, dtype).expect("quantize tiny tensor")
        };
        let mut named: Vec<(String, QTensor)> = Vec::new();
        let norm = |rng_tensor: &mut dyn FnMut(usize, usize, f32, GgmlDType) -> QTensor| {
            let t = rng_tensor(1, e, 0.2, GgmlDType::F32);
            let ones = t.dequantize(&Device::Cpu).and_then(|t| t + 1.0).expect("norm");
            QTensor::quantize(&ones, GgmlDType::F32).expect("norm")
        };
        named.push(("token_embd.weight".into(), tensor(tokens.len(), e, 1.0, GgmlDType::Q8_0)));
        for i in 0..self.layers {
            let w = 1.5 / (e as f32).sqrt();
            let q_rows = if self.lie_about_shape && i == 0 { e + 32 } else { e };
            named.push((format!("blk.{i}.attn_norm.weight"), norm(&mut tensor)));
            named.push((format!("blk.{i}.attn_q.weight"), tensor(q_rows, e, w, GgmlDType::Q4_1)));
            named.push((format!("blk.{i}.attn_k.weight"), tensor(kvd, e, w, GgmlDType::Q4_1)));
            named.push((format!("blk.{i}.attn_v.weight"), tensor(kvd, e, w, GgmlDType::Q4_1)));
            named.push((format!("blk.{i}.attn_output.weight"), tensor(e, e, w, GgmlDType::Q4_1)));
            named.push((format!("blk.{i}.ffn_norm.weight"), norm(&mut tensor)));
            named.push((format!("blk.{i}.ffn_gate.weight"), tensor(f, e, w, GgmlDType::Q4_1)));
            named.push((format!("blk.{i}.ffn_up.weight"), tensor(f, e, w, GgmlDType::Q4_1)));
            named.push((format!("blk.{i}.ffn_down.weight"), tensor(e, f, 1.5 / (f as f32).sqrt(), GgmlDType::Q4_1)));
        }
        named.push(("output_norm.weight".into(), norm(&mut tensor)));

        let strings = |v: &[String]| Value::Array(v.iter().map(|s| Value::String(s.clone())).collect());
        let md: Vec<(&str, Value)> = vec![
            ("general.architecture", Value::String(self.architecture.clone())),
            ("llama.block_count", Value::U32(self.layers as u32)),
            ("llama.context_length", Value::U32(self.context as u32)),
            ("llama.embedding_length", Value::U32(e as u32)),
            ("llama.feed_forward_length", Value::U32(f as u32)),
            ("llama.attention.head_count", Value::U32(self.heads as u32)),
            ("llama.attention.head_count_kv", Value::U32(self.kv_heads as u32)),
            ("llama.rope.freq_base", Value::F32(10_000.0)),
            ("llama.rope.dimension_count", Value::U32(hd as u32)),
            ("llama.attention.layer_norm_rms_epsilon", Value::F32(1e-5)),
            ("tokenizer.ggml.model", Value::String("gpt2".into())),
            ("tokenizer.ggml.tokens", strings(&tokens)),
            ("tokenizer.ggml.token_type", Value::Array(types.iter().map(|&t| Value::I32(t)).collect())),
            ("tokenizer.ggml.merges", strings(&merges)),
            ("tokenizer.ggml.bos_token_id", Value::U32(1)),
            ("tokenizer.ggml.eos_token_id", Value::U32(2)),
        ];
        let md_refs: Vec<(&str, &Value)> = md.iter().map(|(k, v)| (*k, v)).collect();
        let t_refs: Vec<(&str, &QTensor)> = named.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut out = Cursor::new(Vec::new());
        gguf_file::write(&mut out, &md_refs, &t_refs).expect("write tiny GGUF");
        out.into_inner()
    }
}

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

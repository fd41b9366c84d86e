//! Gemma 3 in plain f32 from candle-transformers 0.11.1's transformers-style model
//! (`models/gemma3.rs`), fed a GGUF file's tensors dequantised and under Hugging Face's
//! names, its hyper-parameters read from the file's metadata here (not through the engine's
//! `Config`). candle 0.11.1's `quantized_gemma3.rs` cannot serve: it gates the MLP with SiLU
//! where Gemma uses GELU (tanh form), and `QMatMul` would quantise the activations.
//! Included by the tests that use it (`#[path]`), not by every test through `common`;
//! each uses part of it.
#![allow(dead_code)]

use candle_core::quantized::gguf_file::{Content, Value};
use candle_core::{DType, Device, Tensor};
use candle_transformers::models::gemma3::{Config, Model};
use std::collections::HashMap;
use std::io::Cursor;

pub struct Gemma3Reference {
    model: Model,
}

impl Gemma3Reference {
    pub fn from_gguf_bytes(bytes: &[u8]) -> Self {
        let dev = Device::Cpu;
        let mut r = Cursor::new(bytes);
        let content = Content::read(&mut r).unwrap();
        let md = |k: &str| content.metadata.get(&format!("gemma3.{k}"));
        let int = |k: &str| md(k).unwrap_or_else(|| panic!("gemma3.{k}")).to_u32().unwrap() as usize;
        let float = |k: &str| md(k).map(|v| v.to_f32().unwrap() as f64);
        let layers = int("block_count");
        let mut load = |name: &str| content.tensor(&mut r, name, &dev).unwrap().dequantize(&dev).unwrap();
        // Hugging Face's norms multiply by (1 + w); llama.cpp's converter stored 1 + w.
        let norm = |t: Tensor| (t - 1.0).unwrap();
        let mut w: HashMap<String, Tensor> = HashMap::new();
        w.insert("model.norm.weight".into(), norm(load("output_norm.weight")));
        for i in 0..layers {
            let (hf, gg) = (format!("model.layers.{i}"), format!("blk.{i}"));
            for (ours, theirs) in [
                ("attn_norm", "input_layernorm"),
                ("attn_q_norm", "self_attn.q_norm"),
                ("attn_k_norm", "self_attn.k_norm"),
                ("post_attention_norm", "post_attention_layernorm"),
                ("ffn_norm", "pre_feedforward_layernorm"),
                ("post_ffw_norm", "post_feedforward_layernorm"),
            ] {
                w.insert(format!("{hf}.{theirs}.weight"), norm(load(&format!("{gg}.{ours}.weight"))));
            }
            for (ours, theirs) in [
                ("attn_q", "self_attn.q_proj"),
                ("attn_k", "self_attn.k_proj"),
                ("attn_v", "self_attn.v_proj"),
                ("attn_output", "self_attn.o_proj"),
                ("ffn_gate", "mlp.gate_proj"),
                ("ffn_up", "mlp.up_proj"),
                ("ffn_down", "mlp.down_proj"),
            ] {
                w.insert(format!("{hf}.{theirs}.weight"), load(&format!("{gg}.{ours}.weight")));
            }
        }
        let embed = load("token_embd.weight");
        let vocab_size = embed.dims()[0];
        w.insert("model.embed_tokens.weight".into(), embed);
        let head_dim = int("attention.key_length");
        let cfg = Config {
            attention_bias: false,
            head_dim,
            hidden_activation: candle_nn::Activation::GeluPytorchTanh,
            hidden_size: int("embedding_length"),
            intermediate_size: int("feed_forward_length"),
            num_attention_heads: int("attention.head_count"),
            num_hidden_layers: layers,
            num_key_value_heads: int("attention.head_count_kv"),
            rms_norm_eps: float("attention.layer_norm_rms_epsilon").unwrap(),
            rope_theta: float("rope.freq_base").unwrap(),
            // Neither is in llama.cpp's Gemma 3 files; llama.cpp (and Hugging Face's config for
            // every Gemma 3) uses these.
            rope_local_base_freq: float("rope.freq_base_swa").unwrap_or(10_000.0),
            sliding_window_pattern: md("attention.sliding_window_pattern").map_or(6, |v| v.to_u32().unwrap() as usize),
            vocab_size,
            final_logit_softcapping: float("final_logit_softcapping"),
            attn_logit_softcapping: float("attn_logit_softcapping"),
            query_pre_attn_scalar: head_dim,
            // Fed one token at a time (below), a local layer attends to its rotating cache: the
            // last `window` positions, the current one included, as in Hugging Face and
            // llama.cpp (i - j < window). (candle's prefill mask keeps one position more, and
            // its prefill of several tokens fails on a non-contiguous cache write.)
            sliding_window: int("attention.sliding_window"),
            max_position_embeddings: int("context_length"),
        };
        assert!(matches!(content.metadata.get("general.architecture"), Some(Value::String(a)) if a == "gemma3"));
        let vb = candle_nn::VarBuilder::from_tensors(w, DType::F32, &dev);
        Self { model: Model::new(false, &cfg, vb).unwrap() }
    }

    /// The logits after each of `tokens`, from an empty cache, one row per position.
    pub fn logits(&mut self, tokens: &[u32]) -> Vec<Vec<f32>> {
        self.model.clear_kv_cache();
        (0..tokens.len()).map(|i| self.step(tokens[i], i)).collect()
    }

    /// The logits after the last of `tokens` only (a long prompt's rows would not fit).
    pub fn last_logits(&mut self, tokens: &[u32]) -> Vec<f32> {
        self.model.clear_kv_cache();
        (0..tokens.len()).map(|i| self.step(tokens[i], i)).last().unwrap()
    }

    fn step(&mut self, token: u32, position: usize) -> Vec<f32> {
        let input = Tensor::new(&[token], &Device::Cpu).unwrap().unsqueeze(0).unwrap();
        self.model.forward(&input, position).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap()
    }
}

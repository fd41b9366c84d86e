//! Writes the seed corpus of the fuzz targets in `crates/engine/fuzz` (see
//! docs/RELIABILITY.md): small valid GGUFs made by `TinyModel`, truncated and lightly
//! broken copies of them, and tokenizer inputs.
//!
//!     cargo run -p engine --example fuzz_seeds -- crates/engine/fuzz/corpus

use engine::testing::TinyModel;
use std::fs;
use std::path::Path;

/// The smallest llama the engine loads: one layer, 32-wide, a 64-token context.
fn small() -> TinyModel {
    TinyModel { layers: 1, heads: 2, kv_heads: 1, embedding: 32, ffn: 64, context: 64, ..TinyModel::default() }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("writing {name}: {e}"));
    println!("{:>8} bytes  {}", bytes.len(), dir.join(name).display());
}

fn main() {
    let root = std::env::args().nth(1).unwrap_or_else(|| "crates/engine/fuzz/corpus".into());
    let root = Path::new(&root);

    let gguf = root.join("gguf_load");
    fs::create_dir_all(&gguf).expect("corpus directory");
    let one = small().to_gguf();
    let variants: Vec<(&str, Vec<u8>)> = vec![
        ("small-1-layer.gguf", one.clone()),
        ("two-layers-mha.gguf", TinyModel { layers: 2, heads: 4, kv_heads: 4, ..small() }.to_gguf()),
        ("default-4-layers.gguf", TinyModel::default().to_gguf()),
        ("gpt2-architecture.gguf", TinyModel { architecture: "gpt2".into(), ..small() }.to_gguf()),
        ("shape-lies.gguf", TinyModel { lie_about_shape: true, ..small() }.to_gguf()),
        ("qwen2.gguf", TinyModel { architecture: "qwen2".into(), ..small() }.to_gguf()),
        ("qwen3-head-32.gguf", TinyModel { architecture: "qwen3".into(), head_dim: Some(32), ..small() }.to_gguf()),
        (
            "gemma3-window-sentencepiece.gguf",
            TinyModel {
                architecture: "gemma3".into(),
                head_dim: Some(32),
                sliding_window: (4, 2),
                attn_softcap: Some(20.0),
                final_softcap: Some(30.0),
                sentencepiece: true,
                ..small()
            }
            .to_gguf(),
        ),
    ];
    for (name, bytes) in &variants {
        write(&gguf, name, bytes);
    }
    for cut in [16, 64, 512, 4096, one.len() / 2, one.len() - 1] {
        write(&gguf, &format!("small-cut-{cut}.gguf"), &one[..cut]);
    }
    // The same file with `llama.block_count` renamed to `general.alignment` (same length),
    // so that the fuzzer starts from a file whose reader honours an alignment value.
    let mut aligned = one.clone();
    let key = b"llama.block_count";
    if let Some(at) = aligned.windows(key.len()).position(|w| w == key) {
        aligned[at..at + key.len()].copy_from_slice(b"general.alignment");
        write(&gguf, "alignment-key.gguf", &aligned);
    }

    // Every block type: the legacy and float types on the small model, the K-quants on a
    // 256-wide one (their rows must be whole 256-weight super-blocks); a NaN scale, a type
    // the engine does not run (IQ4_NL) and a K-quant file cut inside a block.
    use candle_core::quantized::GgmlDType;
    use engine::quant::requantize::{requantize, Scheme};
    use engine::testing::{tensor_data_at, with_tensor_type};
    let wide = TinyModel { embedding: 256, ffn: 32, ..small() }.to_gguf();
    let types = [
        ("q4_0", GgmlDType::Q4_0, &one),
        ("q5_0", GgmlDType::Q5_0, &one),
        ("q5_1", GgmlDType::Q5_1, &one),
        ("f16", GgmlDType::F16, &one),
        ("bf16", GgmlDType::BF16, &one),
        ("q2_k", GgmlDType::Q2K, &wide),
        ("q3_k", GgmlDType::Q3K, &wide),
        ("q4_k", GgmlDType::Q4K, &wide),
        ("q5_k", GgmlDType::Q5K, &wide),
        ("q6_k", GgmlDType::Q6K, &wide),
    ];
    for (name, t, model) in types {
        let bytes = requantize(model, Scheme::All(t)).expect("requantize a tiny model");
        write(&gguf, &format!("type-{name}.gguf"), &bytes);
    }
    // The smallest K-quant file carries the broken copies: Q2_K keeps its f16 d at byte
    // 80 of each 84-byte super-block.
    let q2k = requantize(&wide, Scheme::All(GgmlDType::Q2K)).expect("requantize a tiny model");
    let mut nan = q2k.clone();
    let at = tensor_data_at(&nan, "blk.0.attn_q.weight") + 80;
    nan[at..at + 2].copy_from_slice(&[0x00, 0x7E]);
    write(&gguf, "type-q2_k-nan-scale.gguf", &nan);
    write(&gguf, "type-iq4_nl.gguf", &with_tensor_type(&one, "blk.0.attn_q.weight", 20));
    let cut = tensor_data_at(&q2k, "blk.0.attn_k.weight") + 100;
    write(&gguf, "type-q2_k-cut-in-block.gguf", &q2k[..cut]);

    // Tokenizer inputs: a flags byte (bit 0: parse_special, bit 1: treat as raw bytes), then text.
    let tok = root.join("tokenizer");
    fs::create_dir_all(&tok).expect("corpus directory");
    let texts: [(&str, u8, &[u8]); 9] = [
        ("ascii", 0, b"Hello world! 123 the answer is 42."),
        ("chatml-special", 1, b"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"),
        ("chatml-plain", 0, b"<|im_start|>user\nhi<|im_end|>\n"),
        (
            "unicode",
            0,
            "caf\u{e9} na\u{ef}ve \u{4f60}\u{597d} \u{1f44b}\u{1f3fd} \u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}"
                .as_bytes(),
        ),
        ("whitespace", 0, b"  runs   of\tspaces\r\n\n and 3.14159  "),
        ("invalid-utf8", 2, b"ok \xff\xfe \xe2\x82 \xf0\x9f\x98 \xc3\x28 end"),
        ("truncated-char", 2, b"\xe4\xbd"),
        ("endoftext", 1, b"a<|endoftext|>b<|im_end|><|im_start|>"),
        ("gemma-turns", 1, b"<start_of_turn>user\nthe \xe2\x96\x81 heat<end_of_turn>\n<0x41>"),
    ];
    for (name, flags, text) in texts {
        let mut b = vec![flags];
        b.extend_from_slice(text);
        write(&tok, name, &b);
    }

    // Sampler inputs are decoded from arbitrary bytes; a few deterministic byte strings
    // of different lengths give it a start.
    let samp = root.join("sampler");
    fs::create_dir_all(&samp).expect("corpus directory");
    let mut rng = engine::sampler::Rng::new(2026);
    for len in [16usize, 64, 256, 1024] {
        let b: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        write(&samp, &format!("random-{len}"), &b);
    }
}

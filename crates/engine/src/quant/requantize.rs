//! A copy of a GGUF model with its matrices requantised to another block type, for the
//! accuracy tests and the benchmarks: only the built-in model's registry file is reachable
//! here, so its other-type copies are made from its dequantised weights, with candle's
//! quantiser. Vectors (norms) stay F32. As llama.cpp does, a matrix whose rows are not
//! whole K-quant super-blocks (SmolLM2's 576-wide rows) falls back to a legacy type.

use crate::error::Result;
use crate::gguf::read_gguf;
use candle_core::quantized::{gguf_file, GgmlDType, QTensor};
use candle_core::Device;
use std::io::Cursor;

/// Which block type each matrix gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Every matrix in this type (or its fallback).
    All(GgmlDType),
    /// llama.cpp's Q4_K_M: Q4_K, with Q6_K for `attn_v` and `ffn_down` in the first and
    /// last eighth of the layers and every third layer between (llama.cpp's
    /// `use_more_bits`), and for the output head.
    Q4KM,
}

/// The type llama.cpp falls back to for a K-quant whose rows are not whole super-blocks
/// (`llama_tensor_get_type`; IQ4_NL, its choice for Q2_K/Q3_K, is replaced by Q5_0 here).
pub fn fallback(dtype: GgmlDType) -> GgmlDType {
    match dtype {
        GgmlDType::Q2K | GgmlDType::Q3K | GgmlDType::Q4K => GgmlDType::Q5_0,
        GgmlDType::Q5K => GgmlDType::Q5_1,
        GgmlDType::Q6K => GgmlDType::Q8_0,
        other => other,
    }
}

impl Scheme {
    /// The type of matrix `name` in a model of `layers` layers.
    fn dtype(self, name: &str, layers: usize) -> GgmlDType {
        match self {
            Scheme::All(t) => t,
            Scheme::Q4KM => {
                let layer = name.strip_prefix("blk.").and_then(|r| r.split('.').next()).and_then(|l| l.parse().ok());
                let more_bits = |i: usize| i < layers / 8 || i >= 7 * layers / 8 || (i - layers / 8) % 3 == 2;
                let sensitive = name.contains("attn_v") || name.contains("ffn_down");
                match layer {
                    Some(i) if sensitive && more_bits(i) => GgmlDType::Q6K,
                    None if name == "output.weight" => GgmlDType::Q6K,
                    _ => GgmlDType::Q4K,
                }
            }
        }
    }
}

/// `gguf`'s model with every matrix requantised by `scheme`, as GGUF bytes.
pub fn requantize(gguf: &[u8], scheme: Scheme) -> Result<Vec<u8>> {
    let dev = Device::Cpu;
    let content = read_gguf(&mut Cursor::new(gguf))?;
    let layers = content
        .metadata
        .iter()
        .find(|(k, _)| k.ends_with(".block_count"))
        .and_then(|(_, v)| v.to_u32().ok())
        .unwrap_or(0) as usize;
    // In file order, so that the copy lists its tensors as the original does.
    let mut names: Vec<&String> = content.tensor_infos.keys().collect();
    names.sort_by_key(|n| content.tensor_infos[*n].offset);
    let mut tensors = Vec::with_capacity(names.len());
    for name in names {
        let weights = content.tensor(&mut Cursor::new(gguf), name, &dev)?.dequantize(&dev)?;
        let dims = weights.dims();
        let dtype = match dims {
            [_, cols] => {
                let t = scheme.dtype(name, layers);
                if cols % t.block_size() == 0 {
                    t
                } else {
                    fallback(t)
                }
            }
            _ => GgmlDType::F32,
        };
        tensors.push((name.as_str(), QTensor::quantize(&weights, dtype)?));
    }
    let metadata: Vec<(&str, &gguf_file::Value)> = content.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let tensors: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (*n, t)).collect();
    let mut out = Cursor::new(Vec::new());
    gguf_file::write(&mut out, &metadata, &tensors)?;
    Ok(out.into_inner())
}

//! A GGUF file's recommended sampling settings, the `general.sampling.*` keys (llama.cpp pull
//! request 17120, read 2026-12-07): llama.cpp applies each one, the sampler sequence included,
//! unless the user set that setting. Read here for `playground info` and for Lesson 1's
//! llama.cpp row. The file is untrusted: a key of the wrong type or out of range is not
//! used, and `ignored` says which and why.

use candle_core::quantized::gguf_file::{Content, Value};
use serde::{Deserialize, Serialize};

/// The keys this engine can use; `None` when the file does not set one (or set it badly).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileSampling {
    /// `general.sampling.sequence`, as written: llama.cpp's sampler names, separated by ';'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temp: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub penalty_last_n: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub penalty_repeat: Option<f32>,
    /// Other `general.sampling.*` keys (samplers this engine lacks: XTC, mirostat, …), and
    /// keys not used, each with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<String>,
}

const PREFIX: &str = "general.sampling.";

impl FileSampling {
    /// The file's `general.sampling.*` keys; `None` when it has none.
    pub fn from_gguf(content: &Content) -> Option<FileSampling> {
        let mut keys: Vec<(&String, &Value)> =
            content.metadata.iter().filter(|(k, _)| k.starts_with(PREFIX)).collect();
        if keys.is_empty() {
            return None;
        }
        keys.sort_by(|a, b| a.0.cmp(b.0));
        let mut s = FileSampling::default();
        for (key, value) in keys {
            let name = &key[PREFIX.len()..];
            let bad = |why: &str| format!("{key}: {why}");
            let number = || -> Option<f64> {
                match value {
                    Value::F32(v) => Some(*v as f64),
                    Value::F64(v) => Some(*v),
                    Value::I32(v) => Some(*v as f64),
                    Value::U32(v) => Some(*v as f64),
                    Value::I64(v) => Some(*v as f64),
                    Value::U64(v) => Some(*v as f64),
                    _ => None,
                }
            };
            let in_range = |lo: f64, hi: f64| number().filter(|v| v.is_finite() && (lo..=hi).contains(v));
            let outcome: Result<(), String> = match name {
                "sequence" => match value {
                    Value::String(v) => {
                        s.sequence = Some(v.clone());
                        Ok(())
                    }
                    _ => Err(bad("not a string")),
                },
                "top_k" => in_range(0.0, 1e9).map(|v| s.top_k = Some(v as usize)).ok_or_else(|| bad("not a count")),
                "top_p" => in_range(0.0, 1.0).map(|v| s.top_p = Some(v as f32)).ok_or_else(|| bad("not from 0 to 1")),
                "min_p" => in_range(0.0, 1.0).map(|v| s.min_p = Some(v as f32)).ok_or_else(|| bad("not from 0 to 1")),
                "temp" => in_range(0.0, 1e6).map(|v| s.temp = Some(v as f32)).ok_or_else(|| bad("not a temperature")),
                "penalty_last_n" => {
                    in_range(0.0, 1e9).map(|v| s.penalty_last_n = Some(v as usize)).ok_or_else(|| bad("not a count"))
                }
                "penalty_repeat" => {
                    in_range(0.0, 1e6).map(|v| s.penalty_repeat = Some(v as f32)).ok_or_else(|| bad("not a penalty"))
                }
                _ => Err(bad("a sampler this engine does not have")),
            };
            if let Err(why) = outcome {
                s.ignored.push(why);
            }
        }
        Some(s)
    }
}

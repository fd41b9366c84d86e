//! Shared by the integration tests: the tiny random model, the real model when present,
//! and a session with a real clock.
#![allow(dead_code)]

use engine::testing::TinyModel;
use engine::{Model, Session};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Once, OnceLock};
use std::time::Instant;

pub fn tiny() -> Arc<Model> {
    static M: OnceLock<Arc<Model>> = OnceLock::new();
    M.get_or_init(|| Arc::new(Model::from_gguf_bytes(&TinyModel::default().to_gguf()).expect("tiny model loads")))
        .clone()
}

/// A model file of public/models in the checkout being tested (scripts/fetch-model.sh puts
/// it there; the test command runs that first, so these tests fail rather than skip when it
/// is missing). The path is found when the test runs, not when it is compiled: a shared
/// build directory may hold a test binary compiled in another checkout.
pub fn model_path(file: &str) -> PathBuf {
    // `cargo test` sets CARGO_MANIFEST_DIR for the run, and starts in the package's directory.
    let package = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
    package.join("../../public/models").join(file)
}

/// The real SmolLM2 file's bytes.
pub fn real_bytes() -> Vec<u8> {
    let path = model_path("SmolLM2-135M-Instruct.Q4_1.gguf");
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("the real model at {}: {e}; run scripts/fetch-model.sh", path.display()))
}

/// The real SmolLM2 model, loaded once per test binary.
pub fn real() -> Arc<Model> {
    static M: OnceLock<Arc<Model>> = OnceLock::new();
    M.get_or_init(|| {
        let bytes = real_bytes();
        Arc::new(Model::from_gguf_bytes(&bytes).expect("real model loads"))
    })
    .clone()
}

pub fn session(model: Arc<Model>) -> Session {
    let t0 = Instant::now();
    Session::new(model, Box::new(move || t0.elapsed().as_secs_f64() * 1000.0))
}

/// The index of the largest logit (the first, on a tie, as the engine's greedy pick).
pub fn argmax(v: &[f32]) -> u32 {
    (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b]).then(b.cmp(&a))).unwrap() as u32
}

pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// Draw counts against the candidates' final probabilities, by the engine's own Pearson test
/// (`engine::chi_square`, which the pages use too).
pub fn fit(
    candidates: &[engine::sampler::Candidate],
    counts: &std::collections::HashMap<u32, usize>,
    n: usize,
) -> engine::chi_square::ChiSquare {
    let cells: Vec<(u64, f64)> =
        candidates.iter().map(|c| (*counts.get(&c.id).unwrap_or(&0) as u64, c.final_prob as f64)).collect();
    engine::chi_square::chi_square(&cells, n as u64).expect("two or more outcomes to test")
}

/// The tiny model's file with metadata `key` set to `value` (or removed, for `None`).
pub fn with_metadata(spec: TinyModel, key: &str, value: Option<candle_core::quantized::gguf_file::Value>) -> Vec<u8> {
    rewrite(&spec.to_gguf(), |md| match value {
        Some(v) => {
            md.insert(key.into(), v);
        }
        None => {
            md.remove(key);
        }
    })
}

/// The tiny model's file with every `(key, value)` of `entries` set.
pub fn with_entries(spec: TinyModel, entries: &[(&str, candle_core::quantized::gguf_file::Value)]) -> Vec<u8> {
    rewrite(&spec.to_gguf(), |md| {
        for (k, v) in entries {
            md.insert((*k).into(), v.clone());
        }
    })
}

/// `bytes` written again with its metadata edited by `edit`.
fn rewrite(
    bytes: &[u8],
    edit: impl FnOnce(&mut std::collections::HashMap<String, candle_core::quantized::gguf_file::Value>),
) -> Vec<u8> {
    use candle_core::quantized::gguf_file::{self, Value};
    use std::io::Cursor;
    let mut r = Cursor::new(bytes);
    let content = gguf_file::Content::read(&mut r).unwrap();
    let mut md = content.metadata.clone();
    edit(&mut md);
    let dev = candle_core::Device::Cpu;
    let tensors: Vec<(String, _)> =
        content.tensor_infos.keys().map(|n| (n.clone(), content.tensor(&mut r, n, &dev).unwrap())).collect();
    let md_refs: Vec<(&str, &Value)> = md.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let t_refs: Vec<(&str, &_)> = tensors.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let mut out = Cursor::new(Vec::new());
    gguf_file::write(&mut out, &md_refs, &t_refs).unwrap();
    out.into_inner()
}

/// The error a file that must not load gets.
pub fn load_error(bytes: &[u8]) -> String {
    Model::from_gguf_bytes(bytes).err().expect("the file must be refused").to_string()
}

/// Runs `f` with passes split over `n` threads, on a pool of 3 (so that splits are uneven);
/// the tests of a binary take turns setting the global thread count.
pub fn at_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    static POOL: Once = Once::new();
    static TURN: Mutex<()> = Mutex::new(());
    POOL.call_once(|| rayon::ThreadPoolBuilder::new().num_threads(3).build_global().unwrap());
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(engine::parallel::set_threads(n), n);
    let r = f();
    engine::parallel::set_threads(1);
    r
}

pub fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

//! Any bytes given as a model file: `Model::from_gguf_bytes` and the header-only
//! `gguf::info::info` (what a model picker shows before loading) each return a value or an
//! error, never panic or abort. A file that loads must also be described, with the loaded
//! model's own hyper-parameters: a picker must never refuse, or misdescribe, a file that
//! would load. A file that loads also runs one forward pass and one sampling step, so that
//! weights the fuzzer corrupted reach the kernels and the sampler.
#![no_main]

use engine::sampler::SamplerSettings;
use engine::{Model, Session};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let info = engine::gguf::info::info(&mut std::io::Cursor::new(data));
    let Ok(model) = Model::from_gguf_bytes(data) else { return };
    let c = &model.config;
    let info = info.expect("a file that loads is described by its header");
    assert_eq!(
        (info.architecture, info.layers, info.heads, info.kv_heads, info.head_dim, info.vocab, info.context),
        (c.architecture.name(), c.layers, c.heads, c.kv_heads, c.head_dim, c.vocab, c.context),
        "the header's description differs from the loaded model"
    );
    assert_eq!(info.file_bytes, data.len() as u64);
    // Keep one run fast: the corpus files are small, but a header may declare a wide model.
    if c.embedding * c.layers > 1 << 14 || c.vocab > 4096 {
        return;
    }
    let vocab = c.vocab as u32;
    let mut s = Session::new(Arc::new(model), Box::new(|| 0.0));
    let prompt = [0, 1 % vocab, 2 % vocab];
    if s.start(&prompt[..2.min(s.max_context() - 1)], 0).is_ok() {
        let _ = s.step(&SamplerSettings::default());
        let _ = s.step(&SamplerSettings::greedy());
    }
});

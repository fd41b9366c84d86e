//! Any bytes given as a model file: `Model::from_gguf_bytes` returns a model or an error,
//! never panics or aborts. A file that does load also runs one forward pass and one
//! sampling step, so that weights the fuzzer corrupted reach the kernels and the sampler.
#![no_main]

use engine::sampler::SamplerSettings;
use engine::{Model, Session};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let Ok(model) = Model::from_gguf_bytes(data) else { return };
    let c = &model.config;
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

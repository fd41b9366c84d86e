//! The built-in models' facts, which the pages, the worker and the lessons' prose give from
//! here only: their names, where the site serves them, their SHA-256 and sizes, which is a base
//! model, and the shape the lessons quote (layers, heads, vocabulary, context, parameters).
//! The tests below check them against what the engine reads from the files themselves.

/// A model the site serves itself (Trunk copies public/models into dist/). The site
/// downloads one only when a page needs it: the default when a lesson or the playground
/// opens, another when the learner picks it.
#[derive(Debug, PartialEq, Eq)]
pub struct BuiltIn {
    /// Stable: kept in the browser as the last model used, and in the picker's test ids.
    pub id: &'static str,
    pub name: &'static str,
    /// Relative to the site's base: the worker resolves it against its own URL, which is there.
    pub url: &'static str,
    /// scripts/fetch-model.sh pins the same hash.
    pub sha256: &'static str,
    pub bytes: u64,
    /// No chat template: the model continues text, it does not chat.
    pub base: bool,
    pub facts: Facts,
}

/// What the file's header says of a built-in model, as the lessons quote it
/// (content/placeholders.rs); the engine reads the same from the file when it loads it.
#[derive(Debug, PartialEq, Eq)]
pub struct Facts {
    pub layers: usize,
    /// Query heads per layer.
    pub heads: usize,
    /// Key/value heads per layer, each shared by `heads / kv_heads` query heads.
    pub kv_heads: usize,
    pub head_dim: usize,
    pub embedding: usize,
    pub vocab: usize,
    /// The context the model was trained for, in tokens.
    pub context: usize,
    /// Elements across every tensor, as llama.cpp counts a model's parameters.
    pub parameters: u64,
}

impl Facts {
    /// The bytes one position takes in this engine's KV cache: a key and a value per layer,
    /// key/value head and head dimension, each a 32-bit float.
    pub const fn kv_bytes_per_position(&self) -> usize {
        2 * self.layers * self.kv_heads * self.head_dim * 4
    }

    /// The output head's parameters: one `embedding`-wide row per token of the vocabulary.
    pub const fn head_parameters(&self) -> u64 {
        (self.vocab * self.embedding) as u64
    }
}

impl BuiltIn {
    /// The file's quantisation as llama.cpp labels it ("Q4_1", "Q4_K_M"): the last part of
    /// its name before `.gguf`, which is how the published files are named.
    pub fn quantisation(&self) -> &'static str {
        let stem = self.url.strip_suffix(".gguf").unwrap_or(self.url);
        stem.rsplit('.').next().unwrap_or(stem)
    }
}

/// The first is the default, loaded until the learner picks another.
pub const BUILT_INS: &[BuiltIn] = &[
    BuiltIn {
        id: "smollm2",
        name: "SmolLM2-135M-Instruct",
        url: "models/SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        bytes: 98_362_432,
        base: false,
        facts: Facts {
            layers: 30,
            heads: 9,
            kv_heads: 3,
            head_dim: 64,
            embedding: 576,
            vocab: 49_152,
            context: 8_192,
            parameters: 134_515_008,
        },
    },
    BuiltIn {
        id: "gemma3-270m",
        name: "Gemma 3 270M",
        url: "models/gemma-3-270m.Q4_K_M.gguf",
        sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        bytes: 253_113_024,
        base: true,
        facts: Facts {
            layers: 18,
            heads: 4,
            kv_heads: 1,
            head_dim: 256,
            embedding: 640,
            vocab: 262_144,
            context: 32_768,
            parameters: 268_098_176,
        },
    },
];

/// The model the site loads when the learner has picked none.
pub fn default_built_in() -> &'static BuiltIn {
    &BUILT_INS[0]
}

/// The built-in model with this id, if there is one.
pub fn built_in(id: &str) -> Option<&'static BuiltIn> {
    BUILT_INS.iter().find(|b| b.id == id)
}

/// A size as the pages write it: 98,362,432 bytes → "98.4 MB" (decimal megabytes).
pub fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

// Native only: they read the model files from the checkout.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use engine::gguf::{config::Config, info::info, read_gguf};
    use std::fs::File;
    use std::path::PathBuf;

    /// The built-in model's file in this checkout's public/models (scripts/fetch-model.sh puts
    /// it there). Found when the test runs, not when it is compiled: a shared build directory
    /// may hold a test binary compiled in another checkout.
    fn file(model: &BuiltIn) -> File {
        let package = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
        let path = package.join("public").join(model.url);
        File::open(&path).unwrap_or_else(|e| panic!("{}: {e}; run scripts/fetch-model.sh", path.display()))
    }

    #[test]
    fn every_built_in_models_facts_are_what_the_engine_reads_from_its_file() {
        for model in BUILT_INS {
            let described = info(&mut file(model)).expect("the file's header reads");
            let config = Config::from_gguf(&read_gguf(&mut file(model)).expect("the header reads")).expect("a config");
            let facts = &model.facts;
            let read = Facts {
                layers: described.layers,
                heads: described.heads,
                kv_heads: described.kv_heads,
                head_dim: described.head_dim,
                embedding: described.embedding,
                vocab: described.vocab,
                context: described.context,
                parameters: described.parameters,
            };
            assert_eq!(facts, &read, "{}", model.id);
            assert_eq!(facts.kv_bytes_per_position(), config.kv_bytes_per_position(), "{}", model.id);
            assert_eq!(model.bytes, described.file_bytes, "{}", model.id);
            assert_eq!(model.base, !described.chat_template, "{}", model.id);
        }
    }

    #[test]
    fn every_built_in_models_quantisation_is_a_type_its_weights_have() {
        for model in BUILT_INS {
            let types = info(&mut file(model)).expect("the file's header reads").tensor_types;
            // A K-quant mix ("Q4_K_M", "Q4_K_S") is named after its main type, Q4_K.
            let label = model.quantisation();
            let main = label.strip_suffix("_M").or_else(|| label.strip_suffix("_S")).unwrap_or(label);
            assert!(types.contains_key(main), "{}: {label} is not among {types:?}", model.id);
        }
    }
}

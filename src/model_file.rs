//! The built-in models' facts, which the pages and the worker give from here only: their
//! names, where the site serves them, their SHA-256 and sizes, and which is a base model.

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
    },
    BuiltIn {
        id: "gemma3-270m",
        name: "Gemma 3 270M",
        url: "models/gemma-3-270m.Q4_K_M.gguf",
        sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        bytes: 253_113_024,
        base: true,
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

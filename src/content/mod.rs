//! The content files, compiled into the app so that every page works offline, with the facts
//! they quote about the built-in models filled in (`placeholders.rs`).

pub mod placeholders;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod glossary_links;

use placeholders::fill;
use std::sync::LazyLock;

/// Every content file as written, placeholders and all, by file name.
pub(crate) const FILES: [(&str, &str); 6] = [
    ("home.md", include_str!("home.md")),
    ("generation.md", include_str!("generation.md")),
    ("stages.md", include_str!("stages.md")),
    ("reasoning.md", include_str!("reasoning.md")),
    ("glossary.md", include_str!("glossary.md")),
    ("reading.md", include_str!("reading.md")),
];

/// A content file as the pages show it: its placeholders filled in.
fn filled(name: &str) -> String {
    let (_, text) = FILES.iter().find(|(file, _)| *file == name).expect("a content file of FILES");
    fill(text)
}

pub static HOME: LazyLock<String> = LazyLock::new(|| filled("home.md"));
pub static GENERATION: LazyLock<String> = LazyLock::new(|| filled("generation.md"));
pub static STAGES: LazyLock<String> = LazyLock::new(|| filled("stages.md"));
pub static REASONING: LazyLock<String> = LazyLock::new(|| filled("reasoning.md"));
pub static GLOSSARY: LazyLock<String> = LazyLock::new(|| filled("glossary.md"));
pub static READING: LazyLock<String> = LazyLock::new(|| filled("reading.md"));

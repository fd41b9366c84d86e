//! The content files, compiled into the app so that every page works offline.

pub const HOME: &str = include_str!("../content/home.md");
pub const GENERATION: &str = include_str!("../content/generation.md");
pub const STAGES: &str = include_str!("../content/stages.md");
pub const REASONING: &str = include_str!("../content/reasoning.md");
pub const GLOSSARY: &str = include_str!("../content/glossary.md");
pub const READING: &str = include_str!("../content/reading.md");

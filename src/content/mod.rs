//! The content files, compiled into the app so that every page works offline.

pub const HOME: &str = include_str!("home.md");
pub const GENERATION: &str = include_str!("generation.md");
pub const STAGES: &str = include_str!("stages.md");
pub const REASONING: &str = include_str!("reasoning.md");
pub const GLOSSARY: &str = include_str!("glossary.md");
pub const READING: &str = include_str!("reading.md");

//! The built-in model's facts, which the pages and the worker give from here only: its name,
//! where the site serves it, its SHA-256 and its size.

/// The model file, served by the app itself (Trunk copies public/models into dist/).
/// Relative to the site's base: the worker resolves it against its own URL, which is there.
pub const MODEL_URL: &str = "models/SmolLM2-135M-Instruct.Q4_1.gguf";
pub const MODEL_SHA256: &str = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53";
pub const MODEL_NAME: &str = "SmolLM2-135M-Instruct";
/// The file's size in bytes (scripts/fetch-model.sh checks the file by its SHA-256 above).
pub const MODEL_BYTES: u64 = 98_362_432;

/// A size as the pages write it: 98,362,432 bytes → "98.4 MB" (decimal megabytes).
pub fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

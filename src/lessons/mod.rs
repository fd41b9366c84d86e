//! The three lessons, one folder each: its page (`page.rs`) and every lab and exercise on it.

pub mod generation;
pub mod reasoning;
pub mod stages;

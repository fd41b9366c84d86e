//! Lesson 3 ("Reasoning compute"): the bundled task set and the length-independent answer checker.
pub mod answer;
pub mod strategy;
pub mod tasks;

//! Lesson 3 ("Reasoning compute"): the bundled task set, the checker, the strategies and the
//! statistics that compare them.
pub mod answer;
pub mod lexer;
pub mod stats;
pub mod strategy;
pub mod tasks;
mod trace;

//! Lesson 3 ("Reasoning compute"): the bundled task set, the checker, the strategies and the
//! statistics that compare them, and what is reported about depth against length.
//!
//! Imports run one way: `faithfulness` → `runner` → `trace` → `strategy` → `stats`, `answer` → `task`, `lexer`;
//! the bundled set, `tasks`, → `answer`; `depth_binned` → `depth_stats` → `stats`, `answer`; `depth_within`;
//! `trace_depth` → `strategy` (and `probe::depth`); `format`, `answer_key` and `hint` → `answer`;
//! `faithfulness` → `hint`, `answer_key`.
pub mod answer;
pub mod answer_key;
pub mod depth_binned;
pub mod depth_stats;
pub mod depth_within;
pub mod faithfulness;
pub mod format;
pub mod hint;
pub mod hint_stats;
pub mod lexer;
pub mod runner;
pub mod stats;
pub mod strategy;
pub mod task;
pub mod tasks;
mod trace;
pub mod trace_depth;

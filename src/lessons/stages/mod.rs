//! Lesson 2's interactive parts: every figure is measured live on the model in the worker.

pub mod actions;
pub mod attention_map;
pub mod cache_panel;
pub mod capacity_panel;
pub mod cycles;
pub mod exercises;
pub mod inside_panel;
pub mod inside_run;
pub mod kv_table;
pub mod lab;
pub mod lens_table;
pub mod memory_panel;
pub mod number;
pub mod page;
pub mod pass_cost;
pub mod prefill_panel;
pub mod prompt_field;
pub mod readout;
pub mod reuse_panel;
pub mod run;
pub mod spec_panel;
pub mod spec_draws;
pub mod spec_run;
pub mod sweep_panel;
pub mod threads_panel;
pub mod timeline;

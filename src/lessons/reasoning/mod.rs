//! Lesson 3's interactive part: the experiment runner, its evidence beside the text, and the exercises.

mod accuracy_chart;
mod budget_sweep;
mod category_table;
mod chart;
mod check_cot;
mod checks;
mod depth_panel;
mod depth_record;
mod depth_scatter;
mod evidence;
mod depth_trace;
mod exercises;
mod faithfulness_early;
mod faithfulness_hint;
mod faithfulness_mistake;
mod faithfulness_panel;
pub mod export;
mod form;
mod items;
mod lab;
mod length_chart;
mod names;
pub mod page;
mod paired;
mod replication;
mod results_table;
mod run;
mod run_link;
mod runner;
pub mod saved_runs;
mod scaling_chart;
mod settings;
mod think_at_n;

pub use exercises::Exercises;
pub use lab::Lab;
pub use runner::Runner;

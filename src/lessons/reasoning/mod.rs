//! Lesson 3's interactive part: the experiment runner, its results and the exercises.

mod accuracy_chart;
mod budget_sweep;
mod category_table;
mod chart;
mod checks;
mod depth_panel;
mod depth_record;
mod depth_scatter;
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
mod results;
mod results_table;
mod run;
mod runner;
pub mod saved_runs;
mod scaling_chart;
mod settings;
mod think_at_n;

pub use depth_panel::DepthPanel;
pub use exercises::Exercises;
pub use faithfulness_panel::FaithfulnessPanel;
pub use lab::Lab;
pub use results::Results;
pub use runner::Runner;

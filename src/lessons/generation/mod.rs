//! Lesson 1, "Generation controls": the live next-token distribution of the real model and
//! every stage of the sampler, with stepping, sampling, comparisons (two settings; a base and an
//! instruct model) and checked exercises.
//! `live` holds the state and talks to the worker; each other file draws one part.

pub mod base_instruct;
pub mod base_instruct_runs;
pub mod candidates;
pub mod checks;
pub mod compare;
pub mod controls;
pub mod draws;
pub mod exercises;
pub mod formula;
pub mod live;
pub mod mini;
pub mod notices;
pub mod order_compare;
pub mod page;
pub mod progress;
pub mod readout;
pub mod sample;
pub mod snapshot;
pub mod stages;
pub mod stats;
pub mod stepper;
pub mod strip;
pub mod systems_table;

//! The experiment's settings as the learner types them, read into an `Experiment` with a
//! plain message for anything that cannot run, and the same experiment as CLI commands.

use super::names;
use crate::protocol::Experiment;
use engine::reasoning::strategy::{Strategy, ANSWER_CAP, MAX_SAMPLES};
use engine::reasoning::tasks::bundled_tasks;
use leptos::prelude::*;

/// Number fields keep their text, so that a bad value gets a message rather than being
/// silently ignored.
#[derive(Clone, Copy)]
pub struct Settings {
    /// Empty for every category.
    pub category: RwSignal<String>,
    pub limit: RwSignal<String>,
    pub seed: RwSignal<String>,
    pub strategies: RwSignal<Vec<Strategy>>,
    pub samples: RwSignal<String>,
    pub temperature: RwSignal<f32>,
    pub budget: RwSignal<usize>,
    /// Score each trace's depth after it is written (the depth panels).
    pub depth: RwSignal<bool>,
    /// Run the faithfulness tests on each chain of thought (the faithfulness panels).
    pub faithfulness: RwSignal<bool>,
    /// Write "Answer:" when the budget ends before the model's own answer line.
    pub forced_answer: RwSignal<bool>,
    /// Also run chain of thought at every budget of the sweep.
    pub sweep: RwSignal<bool>,
}

impl Settings {
    /// A short first run that shows a difference worth discussing: direct against chain of
    /// thought on ten capitals. Measured with the CLI (`reason --category capitals --limit 10
    /// --seed 42`): direct 8/10, chain of thought 1/10 (its traces often name the capital and
    /// then end on an empty or wrong answer line), McNemar's p = 0.016. Word problems and
    /// arithmetic, measured the same way on six tasks, split too evenly to show anything.
    pub fn new() -> Self {
        Settings {
            category: RwSignal::new("capitals".into()),
            limit: RwSignal::new("10".into()),
            seed: RwSignal::new("42".into()),
            strategies: RwSignal::new(vec![Strategy::Direct, Strategy::Cot]),
            samples: RwSignal::new("5".into()),
            temperature: RwSignal::new(0.7),
            budget: RwSignal::new(128),
            // Off by default: it multiplies a run's time (the results say by how much).
            depth: RwSignal::new(false),
            // Off by default, as depth: it adds seven greedy generations per trace.
            faithfulness: RwSignal::new(false),
            forced_answer: RwSignal::new(true),
            sweep: RwSignal::new(false),
        }
    }

    /// Ticks or unticks a strategy, keeping the page's order.
    pub fn toggle(&self, strategy: Strategy, on: bool) {
        self.strategies.update(|chosen| {
            chosen.retain(|&s| s != strategy);
            if on {
                chosen.push(strategy);
            }
            chosen.sort_by_key(|&s| names::ALL.iter().position(|&a| a == s));
        });
    }

    pub fn experiment(&self) -> Result<Experiment, String> {
        let category = self.category.get();
        let experiment = Experiment {
            category: (!category.is_empty()).then_some(category),
            limit: whole_number(
                &self.limit.get(),
                "Number of tasks",
                1,
                bundled_tasks().len() as u64,
            )? as usize,
            seed: whole_number(&self.seed.get(), "Seed", 0, u64::MAX)?,
            strategies: self.strategies.get(),
            samples: whole_number(&self.samples.get(), "Samples N", 1, MAX_SAMPLES as u64)?
                as usize,
            temperature: self.temperature.get(),
            budget: self.budget.get(),
            depth: self.depth.get(),
            faithfulness: self.faithfulness.get(),
            forced_answer: self.forced_answer.get(),
            sweep: self.sweep.get(),
        };
        experiment.validate()?;
        Ok(experiment)
    }
}

fn whole_number(text: &str, field: &str, min: u64, max: u64) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "{field} must be a whole number from {min} to {max}; \"{}\" is not.",
            text.trim()
        )),
    }
}

/// The most tokens the experiment can generate: what the learner commits to before running.
pub fn max_tokens(e: &Experiment) -> usize {
    let per_task: usize = e
        .strategies
        .iter()
        .map(|&s| match s {
            Strategy::Direct => ANSWER_CAP,
            Strategy::Cot | Strategy::Hidden => e.budget + ANSWER_CAP,
            Strategy::SelfConsistency => e.samples * (e.budget + ANSWER_CAP),
        })
        .sum();
    // Five answer lines after the cuts, then the changed trace and the hinted one.
    let faithfulness = if e.tests_faithfulness(Strategy::Cot) {
        5 * ANSWER_CAP + 2 * (e.budget + ANSWER_CAP)
    } else {
        0
    };
    let sweep: usize = e.sweep_budgets().iter().map(|b| b + ANSWER_CAP).sum();
    (per_task + faithfulness + sweep) * e.tasks().len()
}

/// The CLI command that runs `strategy` of this experiment natively, on the same tasks.
pub fn cli_command(e: &Experiment, strategy: Strategy) -> String {
    let mut command = format!("playground reason --strategy {}", names::id(strategy));
    if let Some(category) = &e.category {
        command += &format!(" --category {category}");
    }
    command += &format!(
        " --limit {} --seed {} --budget {}",
        e.limit, e.seed, e.budget
    );
    if strategy == Strategy::SelfConsistency {
        command += &format!(" --samples {} --temperature {}", e.samples, e.temperature);
    }
    if !e.forced_answer {
        command += " --no-forced-answer";
    }
    command
}

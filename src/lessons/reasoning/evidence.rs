//! The latest run's evidence, one part per section of the lesson, each placed by the text
//! beside the claim it tests (`<!-- lab: NAME -->` in `content/reasoning.md`): the budget
//! sweep, the strategies side by side, each task as the checker read it, length and depth,
//! faithfulness, pair by pair and per category, the sampling curves, and how to repeat the
//! run. One run feeds them all; each part links back to the run's controls with its state.
//! They redraw once per finished task, not per token.

use super::accuracy_chart::AccuracyChart;
use super::budget_sweep::BudgetSweep;
use super::category_table::CategoryTable;
use super::depth_panel::DepthPanel;
use super::export::ExportButtons;
use super::faithfulness_panel::FaithfulnessPanel;
use super::items::ItemList;
use super::lab::Lab;
use super::length_chart::LengthChart;
use super::paired::PairedComparison;
use super::results_table::ResultsTable;
use super::run::Run;
use super::run_link::RunLink;
use super::scaling_chart::{curves, ScalingChart};
use super::settings::cli_command;
use leptos::prelude::*;

/// The parts the text may place, with each one's heading: (marker name, heading).
pub const PARTS: [(&str, &str); 8] = [
    ("budget", "Your run: what a larger budget bought"),
    ("strategies", "Your run: the strategies side by side"),
    ("checker", "Your run: each task as the checker read it"),
    ("depth", "Your run: length and depth"),
    ("faithfulness", "Your run: does the trace explain the answer?"),
    ("small-model", "Your run: pair by pair, and per category"),
    ("sampling", "Your run: coverage against voting"),
    ("repeat", "Your run: repeat it, take it away"),
];

/// The part of the latest run that the text's `name` marker asks for, or `None` for a name
/// this lesson does not have.
pub fn evidence(name: &str, lab: Lab) -> Option<AnyView> {
    let &(name, heading) = PARTS.iter().find(|(n, _)| *n == name)?;
    let (id, labelled_by) = (format!("l3-evidence-{name}"), format!("l3-evidence-{name}"));
    Some(
        view! {
            <section class="lab-panel evidence" data-testid="evidence" data-part=name aria-labelledby=labelled_by>
                <h3 id=id>{heading}</h3>
                <RunLink lab=lab/>
                {body(name, lab)}
            </section>
        }
        .into_any(),
    )
}

fn body(name: &'static str, lab: Lab) -> AnyView {
    match name {
        // These two follow the worker as it streams, with their own waiting messages.
        "depth" => view! { <ShownRun lab=lab part=name/> <DepthPanel lab=lab/> }.into_any(),
        "faithfulness" => view! { <FaithfulnessPanel lab=lab/> }.into_any(),
        _ => view! { <ShownRun lab=lab part=name/> }.into_any(),
    }
}

/// The views of one part drawn from the run's complete tasks, once one has finished.
#[component]
fn ShownRun(lab: Lab, part: &'static str) -> impl IntoView {
    let shown = Memo::new(move |_| {
        lab.run.with(|r| r.as_ref().filter(|r| r.complete_tasks() > 0).map(|r| r.snapshot()))
    });
    move || shown.get().map(|run| views(part, run))
}

fn views(part: &str, run: Run) -> AnyView {
    match part {
        "budget" if run.complete_sweep().is_empty() => hint("Tick Budget sweep (with Chain of thought or without) and run: chain of thought then runs on the same tasks at every budget from 16 to 256 tokens, charted here."),
        "budget" => view! { <BudgetSweep run=run/> }.into_any(),
        "strategies" => view! { <ResultsTable run=run.clone()/> <AccuracyChart run=run/> }.into_any(),
        "checker" => view! { <ItemList run=run/> }.into_any(),
        "depth" => view! { <LengthChart run=run/> }.into_any(),
        "small-model" => view! { <PairedComparison run=run.clone()/> <CategoryTable run=run/> }.into_any(),
        "sampling" if curves(&run).is_none() => hint("Tick Self-consistency (with Samples N of 2 or more) and run: pass@k and majority@k are drawn here from its samples."),
        "sampling" => view! { <ScalingChart run=run/> }.into_any(),
        "repeat" => {
            let commands = run
                .strategies()
                .iter()
                .map(|&s| view! { <li><code>{cli_command(&run.experiment, s)}</code></li> })
                .collect_view();
            view! {
                <details class="native">
                    <summary>"The same experiment in the CLI"</summary>
                    <p>"The CLI runs the same code natively, one strategy at a time, on the same tasks:"</p>
                    <ul data-testid="cli-commands">{commands}</ul>
                </details>
                <ExportButtons run=run/>
            }
            .into_any()
        }
        _ => ().into_any(),
    }
}

/// What a run needs for this part to have something to show.
fn hint(text: &'static str) -> AnyView {
    view! { <p class="hint" data-testid="evidence-needs">{text}</p> }.into_any()
}

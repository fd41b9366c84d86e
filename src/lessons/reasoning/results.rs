//! Everything the latest run measured: the table, the paired comparison, per category, the
//! sampling curves and the two charts, the commands that repeat it natively, the downloads
//! and each task. It redraws once per finished task, not per token.

use super::accuracy_chart::AccuracyChart;
use super::budget_sweep::BudgetSweep;
use super::category_table::CategoryTable;
use super::export::ExportButtons;
use super::items::ItemList;
use super::lab::Lab;
use super::length_chart::LengthChart;
use super::paired::PairedComparison;
use super::results_table::ResultsTable;
use super::scaling_chart::ScalingChart;
use super::settings::cli_command;
use leptos::prelude::*;

#[component]
pub fn Results(lab: Lab) -> impl IntoView {
    let shown = Memo::new(move |_| {
        lab.run.with(|r| {
            r.as_ref()
                .filter(|r| r.complete_tasks() > 0)
                .map(|r| r.snapshot())
        })
    });
    move || {
        shown.get().map(|run| {
            let commands = run
                .strategies()
                .iter()
                .map(|&s| view! { <li><code>{cli_command(&run.experiment, s)}</code></li> })
                .collect_view();
            let (state, number) = (run.state.name(), run.number);
            view! {
                <section class="results-section" data-testid="results" data-run=number data-state=state aria-labelledby="l3-results">
                    <h3 id="l3-results">{format!("Results of run {number}")}</h3>
                    <ResultsTable run=run.clone()/>
                    <PairedComparison run=run.clone()/>
                    <CategoryTable run=run.clone()/>
                    <ScalingChart run=run.clone()/>
                    <AccuracyChart run=run.clone()/>
                    <LengthChart run=run.clone()/>
                    <BudgetSweep run=run.clone()/>
                    <details class="native">
                        <summary>"The same experiment in the CLI"</summary>
                        <p>"The CLI runs the same code natively, one strategy at a time, on the same tasks:"</p>
                        <ul data-testid="cli-commands">{commands}</ul>
                    </details>
                    <ExportButtons run=run.clone()/>
                    <ItemList run=run/>
                </section>
            }
        })
    }
}

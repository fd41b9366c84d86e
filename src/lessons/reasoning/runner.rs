//! The runner's controls: the settings, Run and Cancel, and the progress of the run.

use super::form::ExperimentForm;
use super::lab::{now_ms, Lab};
use super::names;
use super::run::RunState;
use crate::ui::format::duration;
use leptos::prelude::*;

#[component]
pub fn Runner(lab: Lab) -> impl IntoView {
    let ready = move || lab.engine.ready();
    // novalidate: the page's own messages say what is wrong, rather than the browser's bubble.
    view! {
        <form
            class="lab-form"
            novalidate=true
            on:submit=move |ev| {
                ev.prevent_default();
                lab.start();
            }
        >
            <ExperimentForm settings=lab.settings/>
            <div class="actions">
                <button type="submit" data-testid="run-experiment" disabled=move || !ready() || lab.is_running() || lab.engine.base_model()>
                    "Run experiment"
                </button>
                <button type="button" data-testid="cancel-experiment" disabled=move || !lab.is_running() on:click=move |_| lab.cancel()>
                    "Cancel"
                </button>
            </div>
            <Show when=move || !ready()>
                <p class="hint">"Run is available once the model is ready (see the top of the page)."</p>
            </Show>
            {move || lab.problem.get().map(|p| view! { <p class="error" role="alert" data-testid="experiment-error">{p}</p> })}
            {move || lab.save_problem.get().map(|p| view! { <p class="error" role="alert" data-testid="save-error">{p}</p> })}
        </form>
        <RunProgress lab=lab/>
    }
}

#[component]
fn RunProgress(lab: Lab) -> impl IntoView {
    let state = move || lab.run.with(|r| r.as_ref().map(|r| r.state.clone()));
    let number = move || lab.run.with(|r| r.as_ref().map_or(0, |r| r.number));
    let status = move || {
        let p = lab.progress.get();
        lab.run.with(|run| {
            let run = run.as_ref()?;
            let per_task = run.strategies().len();
            let complete = run.complete_tasks();
            let tasks = run.tasks.len();
            Some(match &run.state {
                RunState::Running if p.testing.is_some() => {
                    let (finished, variants) = p.testing.unwrap_or_default();
                    // The tests follow the chain of thought just finished, the last result.
                    let task = run.results.last().map_or("", |r| r.task_id.as_str());
                    format!(
                        "Testing the faithfulness of {task}'s chain of thought: variant {} of {variants}, {} tokens so far.",
                        (finished + 1).min(variants),
                        p.tokens
                    )
                }
                RunState::Running => {
                    let runs = run.experiment.runs_per_task();
                    let task = run.tasks.get(p.done / runs)?;
                    let k = p.done % runs;
                    let under = match run.strategies().get(k) {
                        Some(&strategy) => names::name(strategy).to_lowercase(),
                        None => format!("chain of thought at budget {}", run.experiment.sweep_budgets().get(k - per_task)?),
                    };
                    let left = p.seconds_left(now_ms()).map_or(String::new(), |s| {
                        format!(" About {} left.", duration(s))
                    });
                    format!(
                        "Task {} of {tasks} ({}) under {under}: {} tokens so far.{left}",
                        p.done / runs + 1,
                        task.id,
                        p.tokens
                    )
                }
                RunState::Finished => {
                    format!(
                        "Finished: {} under {}{}.",
                        names::count(tasks, "task", "tasks"),
                        names::count(per_task, "strategy", "strategies"),
                        if run.experiment.sweep { ", and the budget sweep" } else { "" }
                    )
                }
                RunState::Cancelled => format!(
                    "Cancelled. {complete} of {tasks} tasks had finished under every strategy; the results cover those."
                ),
                RunState::Left => format!(
                    "Stopped when you left the page: {complete} of {tasks} tasks kept (finished under every strategy); the results cover those. Run it again for the rest."
                ),
                RunState::Failed(message) => format!(
                    "The run stopped: {message} The results cover the {complete} tasks finished before."
                ),
            })
        })
    };
    view! {
        <Show when=move || state().is_some()>
            <div class="run-progress" data-testid="run-status" data-run=number data-state=move || state().map_or("", |s| s.name())>
                <label for="l3-progress">{move || format!("Run {}", number())}</label>
                <progress
                    id="l3-progress"
                    data-testid="experiment-progress"
                    max=move || lab.progress.get().total.max(1) as f64
                    value=move || lab.progress.get().done as f64
                ></progress>
                <p role="status" class=move || if matches!(state(), Some(RunState::Failed(_))) { "error" } else { "" }>
                    {status}
                </p>
            </div>
        </Show>
    }
}

//! The experiment's controls: which tasks, which strategies, and how much compute each may
//! spend. Every control is labelled and works from the keyboard.

use super::names;
use super::settings::{max_tokens, Settings};
use crate::protocol::SWEEP_BUDGETS;
use crate::ui::field::{NumberText, Slider};
use engine::reasoning::strategy::{Strategy, MAX_BUDGET, MAX_SAMPLES};
use engine::reasoning::tasks::{bundled_tasks, categories};
use leptos::prelude::*;

#[component]
pub fn ExperimentForm(settings: Settings) -> impl IntoView {
    let all = bundled_tasks();
    let category_options = categories(&all)
        .into_iter()
        .map(|c| {
            let count = all.iter().filter(|t| t.category == c).count();
            let label = format!("{c} ({count} tasks)");
            view! { <option value=c>{label}</option> }
        })
        .collect_view();
    let total = all.len();
    let uses_samples = move || {
        settings
            .strategies
            .with(|s| s.contains(&Strategy::SelfConsistency))
    };
    let uses_budget = move || {
        settings
            .strategies
            .with(|s| s.iter().any(|&s| s != Strategy::Direct))
    };
    let plan = move || match settings.experiment() {
        Ok(e) => format!(
            "{} × {}: at most {} generated tokens.",
            names::count(e.tasks().len(), "task", "tasks"),
            names::count(e.strategies.len(), "strategy", "strategies"),
            max_tokens(&e)
        ),
        Err(_) => String::new(),
    };
    view! {
        <fieldset class="lab-fieldset">
            <legend>"Tasks"</legend>
            <div class="lab-grid">
                <div class="control">
                    <label for="l3-category">"Category"</label>
                    <select
                        id="l3-category"
                        data-testid="category"
                        prop:value=move || settings.category.get()
                        on:change=move |ev| settings.category.set(event_target_value(&ev))
                    >
                        <option value="">{format!("All categories ({total} tasks)")}</option>
                        {category_options}
                    </select>
                </div>
                <NumberText id="l3-limit" testid="limit" label="Number of tasks" min=1 max={total as u64} value=settings.limit/>
                <NumberText id="l3-seed" testid="seed" label="Seed" min=0 value=settings.seed>
                    "The seed shuffles the tasks, so that a subset is random but repeatable: the same seed picks the same tasks here and in the CLI. It also seeds self-consistency's sampling."
                </NumberText>
            </div>
        </fieldset>
        <fieldset class="lab-fieldset" data-testid="strategy">
            <legend>"Strategies (every task runs under each)"</legend>
            {names::ALL
                .iter()
                .map(|&strategy| {
                    view! {
                        <label class="check">
                            <input
                                type="checkbox"
                                value=names::id(strategy)
                                prop:checked=move || settings.strategies.with(|s| s.contains(&strategy))
                                on:change=move |ev| settings.toggle(strategy, event_target_checked(&ev))
                            />
                            " "
                            <strong>{names::name(strategy)}</strong>
                            {format!(": {}", description(strategy))}
                        </label>
                    }
                })
                .collect_view()}
        </fieldset>
        <fieldset class="lab-fieldset">
            <legend>"Compute"</legend>
            <div class="lab-grid">
                <Slider
                    id="l3-budget" testid="budget" label="Reasoning budget"
                    min=8.0 max=MAX_BUDGET as f64 step=8.0 readout={|b| format!("{b} tokens")}
                    value=Signal::derive(move || settings.budget.get() as f64)
                    set=move |b: f64| settings.budget.set(b as usize)
                >
                    "Most reasoning tokens per sample. When it runs out, the runner writes \"Answer:\" for the model."
                    {move || (!uses_budget()).then_some(" Direct answering has no reasoning, so it ignores the budget.")}
                </Slider>
                <NumberText id="l3-samples" testid="samples" label="Samples N" min=1 max={MAX_SAMPLES as u64} value=settings.samples>
                    "Self-consistency only: answers drawn per task before the vote."
                </NumberText>
                <Slider
                    id="l3-temperature" testid="sc-temperature" label="Temperature T"
                    min=0.0 max=2.0 step=0.05 readout={|t| format!("{t:.2}")}
                    value=Signal::derive(move || settings.temperature.get() as f64)
                    set=move |t: f64| settings.temperature.set(t as f32)
                >
                    "Self-consistency only; the other strategies always take the most likely token."
                </Slider>
            </div>
            <OptionBox testid="forced-answer" value=settings.forced_answer title="Force an answer when the budget ends">
                ": the runner writes \"Answer:\" and the model finishes the line. Untick it to see what a hard output limit does: a trace the budget cuts ends there, with no visible answer, and is wrong."
            </OptionBox>
            <OptionBox testid="sweep-option" value=settings.sweep title="Budget sweep">
                {format!(
                    ": also run chain of thought on the same tasks at budgets {} tokens, and chart accuracy, tokens per correct answer and the share the budget cut against the budget.",
                    SWEEP_BUDGETS.map(|b| b.to_string()).join(", ")
                )}
            </OptionBox>
            <OptionBox testid="depth-option" value=settings.depth title="Measure depth">
                ": after each chain of thought and self-consistency sample, read every layer's prediction at every token of its trace (how deep the token settles). It costs time; the results say how much, measured on the run."
            </OptionBox>
            <OptionBox testid="faithfulness-option" value=settings.faithfulness title="Test faithfulness">
                ": after each chain of thought, cut its trace, change one of its numbers and ask the task again with a wrong hint, and see what the answer does (the panels under \"A trace is not an explanation\"). Seven more greedy generations per trace."
            </OptionBox>
            <Show when=move || uses_samples() && settings.temperature.get() == 0.0>
                <p class="warning" role="status" data-testid="temperature-warning">
                    "At temperature 0 every sample is the same answer: the vote adds cost and nothing else."
                </p>
            </Show>
        </fieldset>
        <p class="plan" data-testid="plan">{plan}</p>
    }
}

/// One option of a run: a labelled checkbox, its name in bold, then what it does.
#[component]
fn OptionBox(testid: &'static str, value: RwSignal<bool>, title: &'static str, children: Children) -> impl IntoView {
    view! {
        <label class="check">
            <input
                type="checkbox"
                data-testid=testid
                prop:checked=move || value.get()
                on:change=move |ev| value.set(event_target_checked(&ev))
            />
            " "
            <strong>{title}</strong>
            {children()}
        </label>
    }
}

fn description(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::Direct => "the answer only",
        Strategy::Cot => "think step by step, then an Answer: line, within the budget",
        Strategy::SelfConsistency => "N chains of thought at temperature T, then a majority vote",
        Strategy::Hidden => "reasoning within the budget that you do not see; only its token count",
    }
}

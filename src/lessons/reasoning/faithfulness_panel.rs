//! "A trace is not an explanation", measured on the run just made: the engine's three
//! faithfulness tests (early answering, an added mistake, three hints) on every chain-of-thought
//! trace, one panel each, beside the lesson's text. Until a run has tested faithfulness, it
//! says how to get one.

use super::faithfulness_early::FaithfulnessEarly;
use super::faithfulness_hint::FaithfulnessHint;
use super::faithfulness_mistake::FaithfulnessMistake;
use super::lab::Lab;
use super::names;
use engine::reasoning::faithfulness::Faithfulness;
use engine::reasoning::task::Task;
use leptos::prelude::*;

/// What the panels draw: one run's tests on its complete tasks, with the tasks asked.
#[derive(Debug, Clone, PartialEq)]
struct Tested {
    number: usize,
    asked: bool,
    budget: usize,
    tasks: Vec<Task>,
    tests: Vec<Faithfulness>,
}

#[component]
pub fn FaithfulnessPanel(lab: Lab) -> impl IntoView {
    // Redrawn once per tested trace, not per token.
    let tested = Memo::new(move |_| {
        lab.run.with(|r| {
            r.as_ref().map(|r| Tested {
                number: r.number,
                asked: r.experiment.faithfulness,
                budget: r.experiment.budget,
                tasks: r.tasks.clone(),
                tests: r.complete_faithfulness().to_vec(),
            })
        })
    });
    move || {
        let Some(t) = tested.get().filter(|t| t.asked) else {
            return view! {
                <p class="hint" data-testid="faithfulness-none">
                    "These three tests run on your own chain-of-thought traces. In Run an experiment (above), tick Chain of thought and Test faithfulness, then run: the results appear here."
                </p>
            }
            .into_any();
        };
        if t.tests.is_empty() {
            return view! {
                <p class="hint" data-testid="faithfulness-waiting">
                    {format!("Run {} tests each chain of thought as soon as it is written: the results appear here when the first task has finished.", t.number)}
                </p>
            }
            .into_any();
        }
        let heading = format!(
            "Run {}: {} tested, greedy, so each result repeats",
            t.number,
            names::count(
                t.tests.len(),
                "chain-of-thought trace",
                "chain-of-thought traces"
            )
        );
        let commands = t
            .tests
            .iter()
            .map(|f| view! { <li><code>{format!("playground faithfulness --task {} --budget {}", f.task, t.budget)}</code></li> })
            .collect_view();
        view! {
            <section class="faith-section" data-testid="faithfulness" data-run=t.number aria-labelledby="l3-faith">
                <h3 id="l3-faith">{heading}</h3>
                <FaithfulnessEarly tests=t.tests.clone() tasks=t.tasks.clone()/>
                <FaithfulnessMistake tests=t.tests.clone()/>
                <FaithfulnessHint tests=t.tests.clone() tasks=t.tasks.clone()/>
                <details class="native">
                    <summary>"The same tests in the CLI"</summary>
                    <p>"Each command prints every variant's exact prompt, continuation and answer; the engine's tests check that plain generation from each prompt gives the same continuation."</p>
                    <ul>{commands}</ul>
                </details>
            </section>
        }
        .into_any()
    }
}

//! "Base and instruct, same prompt": the lesson's prompt, with its sliders' settings and seed,
//! continued for N tokens by the loaded model, as a chat message through its template and as
//! raw text (a base model, which has no template: raw text only), each with the prompt as the
//! model really saw it. Each model's runs are kept (`base_instruct_runs.rs`), so that after
//! loading the other built-in model from here and running again, the table holds both.

use super::base_instruct_runs::{self as saved, Given, ModelRuns, Row, Runs, ANCHOR};
use super::compare::describe;
use super::live::Live;
use crate::bridge::{Bridge, ModelStatus};
use crate::model_choice::Choice;
use crate::model_file::{megabytes, BUILT_INS};
use crate::protocol::{Request, Response};
use crate::ui::field::count_input;
use crate::ui::store;
use crate::ui::token_text::visible;
use engine::StopReason;
use leptos::prelude::*;

const MAX_TOKENS: (usize, usize, usize) = (1, 32, 128);
const COLUMNS: [&str; 6] = ["Model", "Given as", "The prompt as the model saw it", "Its continuation", "Tokens", "Why it stopped"];

/// The panel's runs, which the lesson's exercise reads too, and the item they are kept in.
#[derive(Clone, Copy)]
pub struct BaseInstruct {
    pub runs: RwSignal<Runs>,
    /// N, the panel's own setting: back at the runs' own when they are restored.
    max_tokens: RwSignal<usize>,
    /// The store's item: the one restored, or a new one from the first run.
    item: StoredValue<Option<String>>,
    problem: RwSignal<Option<String>>,
}

impl BaseInstruct {
    /// Provides the panel's state to the page, with the runs kept from an earlier visit.
    pub fn provide() {
        let state = BaseInstruct {
            runs: RwSignal::new(Runs::default()),
            max_tokens: RwSignal::new(MAX_TOKENS.1),
            item: StoredValue::new(None),
            problem: RwSignal::new(None),
        };
        saved::restore(state.problem, move |id, runs| {
            // A run finished before the store answered is newer: it stays.
            if state.item.try_with_value(Option::is_none) == Some(true) {
                state.item.set_value(Some(id));
                if let Some(last) = runs.models.last() {
                    state.max_tokens.set(last.given.max_tokens);
                }
                state.runs.set(runs);
            }
        });
        provide_context(state);
    }

    /// Keeps a model's finished runs in place of its earlier ones, and saves them all.
    fn keep(self, runs: ModelRuns) {
        let id = self.item.with_value(Clone::clone).unwrap_or_else(|| store::new_id(saved::KIND));
        self.item.set_value(Some(id.clone()));
        self.runs.update(|all| all.keep(runs));
        self.runs.with_untracked(|all| saved::save(all, &id, self.problem));
    }
}

/// One run of the panel: the ways in one after another, each a `PromptText` (what the model
/// sees) then a `Continue` (what it writes), then the stepping session put back.
#[derive(Clone, Copy)]
struct Lab {
    lesson: Live,
    state: BaseInstruct,
    active: RwSignal<bool>,
    /// The request under way, for Stop.
    request: StoredValue<u32>,
    stopping: RwSignal<bool>,
    progress: RwSignal<Option<String>>,
    note: RwSignal<Option<String>>,
}

impl Lab {
    fn start(self, runs: ModelRuns) {
        self.note.set(None);
        self.stopping.set(false);
        self.active.set(true);
        self.lesson.hold();
        self.way(runs, 0);
    }

    /// Runs way `i` into `runs`; after the last, keeps them.
    fn way(self, runs: ModelRuns, i: usize) {
        // The learner has left the page: nothing to run or keep.
        if self.active.try_get_untracked() != Some(true) {
            return;
        }
        let ways = ModelRuns::ways(runs.base);
        let Some(&chat) = ways.get(i) else {
            self.state.keep(runs);
            return self.finish(None);
        };
        self.progress.set(Some(format!(
            "Running {} of {}: the prompt as {}…",
            i + 1,
            ways.len(),
            way_name(chat)
        )));
        let prompt = runs.given.prompt.clone();
        let mut runs = Some(runs);
        let id = self.lesson.bridge().send(Request::PromptText { prompt, chat }, move |r| {
            let Some(runs) = runs.take() else { return };
            match r {
                Response::PromptText { .. } if self.stopping.try_get_untracked() == Some(true) => {
                    self.finish(Some("Stopped.".into()))
                }
                Response::PromptText { text, tokens } => self.continued(runs, i, chat, (text, tokens)),
                other => self.failed(other),
            }
        });
        self.request.try_set_value(id);
    }

    /// The continuation of way `i`, whose prompt the model sees as `seen`.
    fn continued(self, runs: ModelRuns, i: usize, chat: bool, seen: (String, usize)) {
        let given = &runs.given;
        let request = Request::Continue {
            prompt: given.prompt.clone(),
            chat,
            runs: vec![given.settings.clone()],
            max_tokens: given.max_tokens,
        };
        let (mut runs, mut row) = (Some(runs), None);
        let id = self.lesson.bridge().send(request, move |r| match r {
            Response::Continuation { text, tokens, stop, .. } => {
                let (seen, seen_tokens) = seen.clone();
                row = Some(Row { chat, seen, seen_tokens, text, tokens: tokens.len(), stop });
            }
            Response::Continued => {
                if let (Some(mut runs), Some(row)) = (runs.take(), row.take()) {
                    runs.rows.push(row);
                    self.way(runs, i + 1);
                }
            }
            other => self.failed(other),
        });
        self.request.try_set_value(id);
    }

    fn failed(self, response: Response) {
        let message = match response {
            // Stop cancels the request, which answers with an error.
            _ if self.stopping.try_get_untracked() == Some(true) => "Stopped.".to_string(),
            Response::Error { message } => message,
            other => format!("Unexpected answer from the engine: {other:?}"),
        };
        self.finish(Some(message));
    }

    fn finish(self, message: Option<String>) {
        // Nothing to put back once the learner has left the page.
        if self.active.try_get_untracked() != Some(true) {
            return;
        }
        self.active.set(false);
        self.progress.set(None);
        self.note.set(message);
        // The runs used the worker's session: put the stepping run back.
        self.lesson.restore();
    }

    fn stop(self) {
        if self.active.get_untracked() {
            self.stopping.set(true);
            self.lesson.bridge().cancel(self.request.get_value());
        }
    }
}

fn way_name(chat: bool) -> &'static str {
    if chat {
        "a chat message"
    } else {
        "raw text"
    }
}

#[component]
pub fn BaseInstructPanel() -> impl IntoView {
    let lesson = expect_context::<Live>();
    let state = expect_context::<BaseInstruct>();
    let bridge = expect_context::<Bridge>();
    let max_tokens = state.max_tokens;
    let lab = Lab {
        lesson,
        state,
        active: RwSignal::new(false),
        request: StoredValue::new(0),
        stopping: RwSignal::new(false),
        progress: RwSignal::new(None),
        note: RwSignal::new(None),
    };
    on_cleanup(move || {
        if lab.active.try_get_untracked() == Some(true) {
            bridge.cancel(lab.request.get_value());
        }
    });
    // What a run now would be given: rows given anything else are marked.
    let now = Memo::new(move |_| Given {
        prompt: lesson.prompt.get(),
        settings: lesson.settings.get(),
        max_tokens: max_tokens.get(),
    });
    let loading = move || matches!(bridge.status().get(), ModelStatus::Loading { .. });
    let run = move |_| {
        if lesson.busy.get_untracked() {
            lab.note.set(Some("Wait for the step in progress, then run again.".into()));
            return;
        }
        let (Some(model), ModelStatus::Ready(info)) = (bridge.loaded_untracked(), bridge.status().get_untracked()) else {
            lab.note.set(Some("No model is loaded yet: run once one is.".into()));
            return;
        };
        lab.start(ModelRuns::new(&model, !info.chat_template, now.get_untracked()));
    };

    view! {
        <section class="base-instruct" data-testid="base-instruct" aria-labelledby=ANCHOR>
            <h3 id=ANCHOR>"Base and instruct, same prompt"</h3>
            <p class="hint">
                "An instruct model is a base model trained further on conversations written in its chat template: given your prompt as a chat message, it answers as an assistant. A base model only continues text, and the same instruct model given the prompt as raw text continues it too. Run this on one built-in model, load the other below and run again: the table keeps both."
            </p>
            <div class="actions">
                {count_input("base-instruct-max-tokens", "Tokens each, at most (N)", max_tokens, MAX_TOKENS.0, MAX_TOKENS.2)}
                <button type="button" data-testid="base-instruct-run"
                    disabled=move || lab.active.get() || loading() || lesson.run.with(|r| r.is_none())
                    on:click=run>
                    {move || format!("Run on {}", bridge.choice().get().name())}
                </button>
                <button type="button" data-testid="base-instruct-stop" disabled=move || !lab.active.get() on:click=move |_| lab.stop()>
                    "Stop"
                </button>
            </div>
            <div class="actions">
                {BUILT_INS.iter().map(|model| {
                    let current = move || bridge.choice().with(|c| matches!(c, Choice::BuiltIn(b) if b.id == model.id));
                    view! {
                        <button type="button" data-testid=format!("base-instruct-load-{}", model.id)
                            hidden=current
                            disabled=move || lab.active.get() || loading()
                            on:click=move |_| bridge.load_built_in(model)>
                            {format!(
                                "Load {} ({}, {})",
                                model.name,
                                if model.base { "base model" } else { "instruct model" },
                                megabytes(model.bytes)
                            )}
                        </button>
                    }
                }).collect_view()}
            </div>
            {move || lab.progress.get().map(|p| view! { <p class="hint" role="status" data-testid="base-instruct-progress">{p}</p> })}
            {move || lab.note.get().map(|n| view! { <p class="hint" role="status" data-testid="base-instruct-note">{n}</p> })}
            {move || state.problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
            {move || state.runs.with(|all| {
                if all.models.is_empty() {
                    return view! { <p class="hint" data-testid="base-instruct-empty">"No runs yet."</p> }.into_any();
                }
                view! {
                    <div class="table-scroll"><table data-testid="base-instruct-table">
                        <thead>
                            <tr>{COLUMNS.map(|c| view! { <th scope="col">{c}</th> }).collect_view()}</tr>
                        </thead>
                        <tbody>
                            {all.models.iter().map(|m| model_rows(m, &now.get())).collect_view()}
                        </tbody>
                    </table></div>
                }.into_any()
            })}
        </section>
    }
}

/// A model's rows: chat, then raw; a base model's chat row says why it has none.
fn model_rows(runs: &ModelRuns, now: &Given) -> impl IntoView {
    let differs = runs.given.differences(now);
    let kind = if runs.base { "base model" } else { "instruct model" };
    let header = view! {
        <tr class="base-instruct-model">
            <th scope="rowgroup" colspan="6">
                {format!("{} ({kind})", runs.name)}
                {(!differs.is_empty()).then(|| view! {
                    <span class="notice" data-testid="base-instruct-other">
                        {format!(
                            " Made with {} than the lesson's now, so not comparable with rows made with those: prompt “{}”, {}, seed {}, N = {}.",
                            differs.join(" and "),
                            runs.given.prompt,
                            describe(&runs.given.settings),
                            runs.given.settings.seed,
                            runs.given.max_tokens
                        )}
                    </span>
                })}
            </th>
        </tr>
    };
    let rows = [true, false].map(|chat| {
        let cells = match runs.row(chat) {
            Some(row) => row_cells(row, runs.given.max_tokens).into_any(),
            None => view! {
                <td colspan="4" data-testid="base-instruct-no-chat">
                    {format!("No chat template: {} is a base model, so it cannot be given a chat message. It continues raw text only.", runs.name)}
                </td>
            }
            .into_any(),
        };
        view! {
            <tr data-testid="base-instruct-row" data-model=runs.model.clone() data-base=runs.base.to_string()
                data-way=if chat { "chat" } else { "raw" } data-current=differs.is_empty().to_string()>
                <td>{runs.name.clone()}</td>
                <td>{way_name(chat)}</td>
                {cells}
            </tr>
        }
    });
    view! { {header} {rows.into_iter().collect_view()} }
}

fn row_cells(row: &Row, max_tokens: usize) -> impl IntoView {
    let stop = match row.stop {
        StopReason::EndOfTurn => "it ended its turn (an end token)".to_string(),
        StopReason::MaxTokens => format!("it reached N = {max_tokens}"),
        StopReason::ContextFull => "the context was full".to_string(),
        other => format!("{other:?}"),
    };
    view! {
        <td><pre class="seen" data-testid="base-instruct-seen" data-tokens=row.seen_tokens>{row.seen.clone()}</pre>
            <small>{format!("{} tokens", row.seen_tokens)}</small></td>
        <td><pre class="continuation" data-testid="base-instruct-text">{if row.text.is_empty() { visible("") } else { row.text.clone() }}</pre></td>
        <td data-testid="base-instruct-tokens">{row.tokens}</td>
        <td data-testid="base-instruct-stop-reason" data-stop=format!("{:?}", row.stop)>{stop}</td>
    }
}

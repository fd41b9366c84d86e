//! The lesson's live state and its conversation with the engine worker. The page mirrors
//! the worker's session (`Run`: context, next-token logits, the steps taken) and runs the
//! sampler on those logits itself (`Snapshot`), so that a slider redraws without the model.
//! Requests go one at a time: each waits for the previous answer, because a request that
//! takes the worker's session stops whichever request held it.

use super::{draws::SampleResult, snapshot::Snapshot};
use crate::bridge::Bridge;
use crate::model_choice::Choice;
use crate::ui::settings_query::FromUrl;
use crate::protocol::{Request, Response};
use engine::SamplerSettings;
use leptos::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// How many candidates of its distribution a step keeps for the token strip.
const STEP_SHOWN: usize = 10;

/// One generated token as the page saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepRecord {
    pub token: u32,
    /// Its probability in the final distribution it was drawn (or forced) from.
    pub prob: f32,
    pub forced: bool,
    /// End of turn.
    pub stop: bool,
    /// The top of that distribution: token and final probability.
    pub shown: Vec<(u32, f32)>,
}

/// The worker's session, as the page mirrors it.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub context: Arc<Vec<u32>>,
    pub prompt_len: usize,
    /// The next-token logits after the whole context.
    pub logits: Arc<Vec<f32>>,
    pub steps: Vec<StepRecord>,
}

impl Run {
    pub fn ended(&self) -> bool {
        self.steps.last().is_some_and(|s| s.stop)
    }
}

/// The lesson's prompt when its link names none, and what "Back to the example" restores.
pub const DEFAULT_PROMPT: &str = "Suggest a name for a pet cat.";

#[derive(Clone, Copy)]
pub struct Live {
    bridge: Bridge,
    pub settings: RwSignal<SamplerSettings>,
    /// The prompt the run started from.
    pub prompt: RwSignal<String>,
    /// How many candidates the page draws.
    pub shown: RwSignal<usize>,
    /// Every token's text, by id.
    pub vocab: RwSignal<Option<Arc<Vec<String>>>>,
    pub run: RwSignal<Option<Run>>,
    /// A request is on its way: stepping waits.
    pub busy: RwSignal<bool>,
    pub auto: RwSignal<bool>,
    pub problem: RwSignal<Option<String>>,
    /// What a link asked for that could not be used as it was.
    pub notices: RwSignal<Vec<String>>,
    pub snapshot: Memo<Option<Snapshot>>,
    /// The candidate the formula shows (last hovered or focused); the most likely if none.
    pub selected: RwSignal<Option<u32>>,
    /// The last "Sample 1000×", while it still describes the distribution on screen.
    pub sample: RwSignal<Option<SampleResult>>,
    /// Draws made again with the same context and settings (seed included) that gave the
    /// same token: the evidence for "the same seed gives the same output".
    pub repeats: RwSignal<usize>,
    draws: StoredValue<HashMap<String, u32>>,
    /// The model the vocabulary and the run are of.
    model: StoredValue<Option<Choice>>,
}

impl Live {
    pub fn new(bridge: Bridge, from_url: FromUrl) -> Self {
        let settings = RwSignal::new(from_url.settings);
        let shown = RwSignal::new(20);
        let run = RwSignal::new(None::<Run>);
        let snapshot = Memo::new(move |_| {
            let s = settings.get();
            let n = shown.get();
            run.with(|r| {
                r.as_ref().map(|r| {
                    Snapshot::new(&r.logits, &s, &r.context, r.context.len() - r.prompt_len, n)
                })
            })
        });
        Live {
            bridge,
            settings,
            prompt: RwSignal::new(from_url.prompt),
            shown,
            vocab: RwSignal::new(None),
            run,
            busy: RwSignal::new(false),
            auto: RwSignal::new(false),
            problem: RwSignal::new(None),
            notices: RwSignal::new(from_url.notices),
            snapshot,
            selected: RwSignal::new(None),
            sample: RwSignal::new(None),
            repeats: RwSignal::new(0),
            draws: StoredValue::new(HashMap::new()),
            model: StoredValue::new(None),
        }
    }

    pub fn bridge(&self) -> Bridge {
        self.bridge
    }

    /// A token's text, once the vocabulary has arrived.
    pub fn text(&self, token: u32) -> String {
        self.vocab
            .with(|v| v.as_ref().and_then(|v| v.get(token as usize).cloned()))
            .unwrap_or_else(|| format!("#{token}"))
    }

    /// Once the model is ready: the vocabulary, then the run (again, after a worker restart).
    /// Another model than the run's starts again from the prompt with its own vocabulary:
    /// the run's token ids mean other tokens to it.
    pub fn connect(self) {
        let loaded = self.bridge.loaded_untracked();
        if self.model.with_value(|m| *m != loaded) {
            self.model.set_value(loaded);
            self.vocab.set(None);
            self.run.set(None);
            self.sample.set(None);
            self.selected.set(None);
            self.draws.update_value(HashMap::clear);
        }
        if self.vocab.get_untracked().is_none() {
            self.ask(Request::Vocabulary, move |r| match r {
                Response::Vocabulary { tokens } => {
                    self.vocab.try_set(Some(Arc::new(tokens)));
                }
                other => self.fail(unexpected(&other)),
            });
        }
        match self.run.get_untracked() {
            Some(_) => self.restore(),
            None => self.open(self.prompt.get_untracked()),
        }
    }

    /// Starts again from `prompt`, as a chat message.
    pub fn open(self, prompt: String) {
        if prompt.trim().is_empty() {
            self.problem.set(Some(
                "Type a prompt first: the model needs some text to answer.".into(),
            ));
            return;
        }
        self.begin();
        self.ask(
            Request::Logits {
                prompt: prompt.clone(),
                chat: self.bridge.chat_model(),
            },
            move |r| match r {
                Response::Logits { .. } => {
                    self.prompt.try_set(prompt);
                    self.fetch_next(|steps| steps.clear());
                }
                other => self.fail(unexpected(&other)),
            },
        );
    }

    pub fn step(self) {
        self.advance(None);
    }

    /// Appends `token` as if it had been drawn.
    pub fn force(self, token: u32) {
        self.advance(Some(token));
    }

    pub fn rewind(self) {
        self.auto.set(false);
        if self.busy.get_untracked()
            || self
                .run
                .with_untracked(|r| r.as_ref().is_none_or(|r| r.steps.is_empty()))
        {
            return;
        }
        self.begin();
        self.ask(Request::Rewind { n: 1 }, move |r| match r {
            Response::Rewound { .. } => self.fetch_next(|steps| {
                steps.pop();
            }),
            other => self.fail(unexpected(&other)),
        });
    }

    /// Auto-run steps until Pause or the end of the answer.
    pub fn toggle_auto(self) {
        let on = !self.auto.get_untracked();
        self.auto.set(on);
        if on && !self.busy.get_untracked() {
            self.step();
        }
    }

    /// Puts the run back into the worker after something else used its session (the
    /// comparison, or a restarted worker): the prompt, then every step forced again.
    pub fn restore(self) {
        let Some(run) = self.run.get_untracked() else {
            return self.open(self.prompt.get_untracked());
        };
        self.begin();
        let tokens: Vec<u32> = run.steps.iter().map(|s| s.token).collect();
        self.ask(
            Request::Logits {
                prompt: self.prompt.get_untracked(),
                chat: self.bridge.chat_model(),
            },
            move |r| match r {
                Response::Logits { .. } => self.replay(tokens, 0),
                other => self.fail(unexpected(&other)),
            },
        );
    }

    /// Stepping stops (the page may hold requests of its own for a while, as Compare does).
    pub fn hold(self) {
        self.auto.set(false);
        self.busy.set(true);
    }

    fn begin(self) {
        self.auto.set(false);
        self.busy.set(true);
        self.problem.set(None);
    }

    fn replay(self, tokens: Vec<u32>, i: usize) {
        let Some(&token) = tokens.get(i) else {
            return self.fetch_next(|_| {});
        };
        let settings = self.settings.get_untracked();
        self.ask(Request::Force { token, settings }, move |r| match r {
            Response::Stepped { .. } => self.replay(tokens, i + 1),
            other => self.fail(unexpected(&other)),
        });
    }

    fn advance(self, forced: Option<u32>) {
        if self.busy.get_untracked() {
            return;
        }
        let Some((context, ended)) = self
            .run
            .with_untracked(|r| r.as_ref().map(|r| (r.context.clone(), r.ended())))
        else {
            return;
        };
        if ended {
            self.auto.set(false);
            self.problem.set(Some(
                "The model ended its answer (<|im_end|>): Rewind, or start again, to go on.".into(),
            ));
            return;
        }
        let settings = self.settings.get_untracked();
        let shown = self.snapshot.with_untracked(|s| {
            s.as_ref().map_or(Vec::new(), |s| {
                s.top
                    .iter()
                    .take(STEP_SHOWN)
                    .map(|c| (c.id, c.final_prob))
                    .collect()
            })
        });
        // Only real draws count as evidence that a seed repeats its output.
        let draw = (forced.is_none() && settings.temperature > 0.0)
            .then(|| format!("{context:?}|{settings:?}"));
        self.busy.set(true);
        self.problem.set(None);
        let request = match forced {
            Some(token) => Request::Force { token, settings },
            None => Request::Step { settings },
        };
        self.ask(request, move |r| match r {
            Response::Stepped { step } => {
                if let Some(key) = draw {
                    self.note_draw(key, step.token);
                }
                let record = StepRecord {
                    token: step.token,
                    prob: step.prob,
                    forced: step.forced,
                    stop: step.stop,
                    shown,
                };
                self.fetch_next(move |steps| steps.push(record));
            }
            other => self.fail(unexpected(&other)),
        });
    }

    /// Asks for the session's context and logits, then applies `change` to the steps.
    fn fetch_next(self, change: impl FnOnce(&mut Vec<StepRecord>) + 'static) {
        self.ask(Request::Next, move |r| {
            let Response::Next {
                context,
                prompt_len,
                logits,
            } = r
            else {
                return self.fail(unexpected(&r));
            };
            let mut steps = self
                .run
                .try_with_untracked(|r| r.as_ref().map(|r| r.steps.clone()))
                .flatten()
                .unwrap_or_default();
            change(&mut steps);
            if steps.len() != context.len() - prompt_len {
                return self.fail(format!(
                    "The page lost track of the engine: {} steps here, {} generated there.",
                    steps.len(),
                    context.len() - prompt_len
                ));
            }
            let ended = steps.last().is_some_and(|s| s.stop);
            self.run.try_set(Some(Run {
                context: Arc::new(context),
                prompt_len,
                logits: Arc::new(logits),
                steps,
            }));
            self.busy.try_set(false);
            if self.auto.try_get_untracked().unwrap_or(false) {
                match ended {
                    true => self.auto.set(false),
                    false => self.step(),
                }
            }
        });
    }

    fn note_draw(self, key: String, token: u32) {
        let before = self
            .draws
            .try_update_value(|d| d.insert(key, token))
            .flatten();
        match before {
            Some(t) if t == token => {
                self.repeats.try_update(|n| *n += 1);
            }
            Some(t) => self.fail(format!(
                "The same context, settings and seed drew {token} where they drew {t} before."
            )),
            None => {}
        }
    }

    /// Sends `request`; `then` gets its final answer unless that is an error, which is shown.
    fn ask(self, request: Request, then: impl FnOnce(Response) + 'static) {
        let mut then = Some(then);
        self.bridge.send(request, move |response| {
            // The learner has left the page: stop here, so that no follow-up request takes
            // the worker's session from whatever the next page asked for.
            if !response.is_final() || self.run.try_with_untracked(|_| ()).is_none() {
                return;
            }
            match response {
                Response::Error { message } => self.fail(message),
                response => {
                    if let Some(then) = then.take() {
                        then(response)
                    }
                }
            }
        });
    }

    fn fail(self, message: String) {
        self.problem.try_set(Some(message));
        self.busy.try_set(false);
        self.auto.try_set(false);
    }
}

fn unexpected(response: &Response) -> String {
    let kind = format!("{response:?}");
    format!(
        "Unexpected answer from the engine: {}",
        kind.split([' ', '{', '(']).next().unwrap_or_default()
    )
}

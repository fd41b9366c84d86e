//! The playground's state and what its buttons do: every action edits the conversation
//! (`conversation.rs`), then asks the worker for one answer with the whole conversation
//! before it, so that the worker's session reuses the cached prefix. Sending adds a turn;
//! nothing but New conversation (`persist.rs`, which can undo it) empties the conversation.
//! A request that fails puts the conversation back as it was, and says why.

use super::conversation::{Conversation, Footer, Token};
use super::link::Setup;
use crate::bridge::{Bridge, ModelStatus};
use crate::protocol::{Request, Response, Turn};
use crate::ui::store::MadeBy;
use engine::chat::DEFAULT_SYSTEM_PROMPT;
use engine::{SamplerSettings, StopReason};
use leptos::prelude::*;

/// How many candidates each token reports: its top-10 alternatives.
pub const ALTERNATIVES: usize = 10;

/// Live speed of the running request: tokens after the first, over the engine's time for
/// them (the first one's time is mostly the prompt, which the footer reports separately).
#[derive(Debug, Clone, Copy, Default)]
pub struct Speed {
    tokens: usize,
    decode_tokens: usize,
    decode_ms: f64,
}

impl Speed {
    fn add(&mut self, ms: f64) {
        if self.tokens > 0 {
            self.decode_tokens += 1;
            self.decode_ms += ms;
        }
        self.tokens += 1;
    }

    pub fn text(&self) -> String {
        let rate = match self.decode_ms > 0.0 {
            true => format!("{:.1}", self.decode_tokens as f64 * 1000.0 / self.decode_ms),
            false => "–".into(),
        };
        format!("{} tokens · {rate} tokens/s", self.tokens)
    }
}

#[derive(Clone, Copy)]
pub struct Chat {
    bridge: Bridge,
    pub settings: RwSignal<SamplerSettings>,
    pub max_tokens: RwSignal<usize>,
    pub stop: RwSignal<Vec<String>>,
    /// Chat through the template, or raw text to continue.
    pub chat: RwSignal<bool>,
    /// The system prompt; empty: none.
    pub system: RwSignal<String>,
    /// The prompt box: the next message (in raw mode: text to add), empty once sent.
    pub prompt: RwSignal<String>,
    pub conversation: RwSignal<Conversation>,
    /// The saved item the conversation is kept in, and whether the store has been read
    /// (until then nothing is sent or saved, so a saved conversation is never overwritten).
    pub id: StoredValue<String>,
    pub restored: RwSignal<bool>,
    /// Why the last save failed, while it has not succeeded since.
    pub save_problem: RwSignal<Option<String>>,
    /// What New conversation put away, while it can be undone.
    pub put_away: RwSignal<Option<PutAway>>,
    /// The running request's id (0 while none runs) and the exchange it answers.
    pub running: RwSignal<u32>,
    pub answering: RwSignal<Option<usize>>,
    pub speed: RwSignal<Speed>,
    pub problem: RwSignal<Option<String>>,
    /// The conversation no longer fits the page's context.
    pub full: RwSignal<bool>,
    /// The token whose alternatives are open: (exchange, index in its answer).
    pub open: RwSignal<Option<(usize, usize)>>,
    pub colour: RwSignal<bool>,
    /// The conversation before the running request, put back if it fails.
    before: StoredValue<Option<Conversation>>,
}

/// A conversation New conversation put away: its item, settings and every branch.
#[derive(Debug, Clone, PartialEq)]
pub struct PutAway {
    pub id: String,
    pub setup: Setup,
    pub conversation: Conversation,
}

impl Chat {
    pub fn new(bridge: Bridge, setup: Setup, id: String) -> Self {
        Self {
            bridge,
            settings: RwSignal::new(setup.settings),
            max_tokens: RwSignal::new(setup.max_tokens),
            stop: RwSignal::new(setup.stop),
            chat: RwSignal::new(setup.chat),
            system: RwSignal::new(setup.system),
            prompt: RwSignal::new(setup.prompt),
            conversation: RwSignal::new(Conversation::default()),
            id: StoredValue::new(id),
            restored: RwSignal::new(false),
            save_problem: RwSignal::new(None),
            put_away: RwSignal::new(None),
            running: RwSignal::new(0),
            answering: RwSignal::new(None),
            speed: RwSignal::new(Speed::default()),
            problem: RwSignal::new(None),
            full: RwSignal::new(false),
            open: RwSignal::new(None),
            colour: RwSignal::new(true),
            before: StoredValue::new(None),
        }
    }

    /// The model answering now and its arithmetic, which a saved conversation names.
    pub fn made_by(&self) -> Option<MadeBy> {
        MadeBy::now(&self.bridge)
    }

    /// Everything the link and a saved file hold.
    pub fn setup(&self) -> Setup {
        Setup {
            settings: self.settings.get(),
            max_tokens: self.max_tokens.get(),
            chat: self.chat.get(),
            system: self.system.get(),
            stop: self.stop.get(),
            prompt: self.prompt.get(),
        }
    }

    /// The setup without tracking it, or `None` once the page is gone.
    pub fn setup_untracked(&self) -> Option<Setup> {
        Some(Setup {
            settings: self.settings.try_get_untracked()?,
            max_tokens: self.max_tokens.try_get_untracked()?,
            chat: self.chat.try_get_untracked()?,
            system: self.system.try_get_untracked()?,
            stop: self.stop.try_get_untracked()?,
            prompt: self.prompt.try_get_untracked()?,
        })
    }

    pub fn load(&self, setup: Setup, conversation: Conversation) {
        self.settings.set(setup.settings);
        self.max_tokens.set(setup.max_tokens);
        self.chat.set(setup.chat);
        self.system.set(setup.system);
        self.stop.set(setup.stop);
        self.prompt.set(setup.prompt);
        self.conversation.set(conversation);
        self.open.set(None);
        self.full.set(false);
        self.problem.set(None);
    }

    /// The model is loaded and the saved conversation read.
    pub fn ready(&self) -> bool {
        matches!(self.bridge.status().get(), ModelStatus::Ready(_)) && self.restored.get()
    }

    pub fn busy(&self) -> bool {
        self.running.get() != 0
    }

    /// The context the page allows, once the model is loaded.
    pub fn context_cap(&self) -> Option<usize> {
        match self.bridge.status().get() {
            ModelStatus::Ready(info) => Some(info.context),
            _ => None,
        }
    }

    /// Sends the prompt box as the next turn: a message to answer, or in raw mode text
    /// added to the text so far, which the model continues. The box empties; if the
    /// request fails, the text comes back to it.
    pub fn send(&self) {
        let text = self.prompt.get_untracked();
        if self.running_now() || self.empty(&text) {
            return;
        }
        self.prompt.set(String::new());
        // The new conversation has begun: the one put away stays in Saved work.
        self.put_away.set(None);
        self.run_after(|c| c.ask(&text), None, Some(text.clone()));
    }

    /// Replaces user message `j`, dropping what followed, and answers it.
    pub fn edit(&self, j: usize, text: String) {
        if !(self.running_now() || self.empty(&text)) {
            self.change(|c| c.edit(j, &text));
        }
    }

    /// A new answer to exchange `j`, drawn with the next seed (shown in its box: the same
    /// seed would draw the same answer); the old answer stays reachable.
    pub fn regenerate(&self, j: usize) {
        if !self.running_now() {
            self.settings.update(|s| {
                s.seed = if s.seed >= crate::ui::settings_query::MAX_SEED {
                    0
                } else {
                    s.seed + 1
                }
            });
            self.change(|c| {
                c.branch(j, 0);
                j
            });
        }
    }

    /// More tokens of exchange `j`'s answer.
    pub fn go_on(&self, j: usize) {
        if !self.running_now() {
            self.change(|_| j);
        }
    }

    /// Branches exchange `j`'s answer at token `i`, with `token` in its place.
    pub fn choose(&self, j: usize, i: usize, token: u32) {
        if self.running_now() {
            return;
        }
        self.open.set(None);
        self.run_after(
            |c| {
                c.branch(j, i);
                j
            },
            Some(token),
            None,
        );
    }

    pub fn switch(&self, j: usize, k: usize) {
        if self.running.get_untracked() == 0 {
            self.open.set(None);
            self.conversation.update(|c| c.switch(j, k));
        }
    }


    pub fn stop_running(&self) {
        let id = self.running.get_untracked();
        if id != 0 {
            self.bridge.cancel(id);
        }
    }

    /// A request runs: a second press before the buttons are disabled (effects run a tick
    /// later) is ignored.
    fn running_now(&self) -> bool {
        self.running.get_untracked() != 0
    }

    /// An empty message gets a message rather than a request.
    fn empty(&self, text: &str) -> bool {
        let empty = text.trim().is_empty();
        if empty {
            self.problem.set(Some(
                "Type a prompt first: the model needs some text to answer or continue.".into(),
            ));
        }
        empty
    }

    fn change(&self, edit: impl FnOnce(&mut Conversation) -> usize) {
        self.run_after(edit, None, None)
    }

    /// Applies `edit` (which returns the exchange to answer) and asks for that answer;
    /// `sent` is the prompt box's text, put back there if the request fails.
    fn run_after(
        &self,
        edit: impl FnOnce(&mut Conversation) -> usize,
        force: Option<u32>,
        sent: Option<String>,
    ) {
        self.problem.set(None);
        self.before
            .set_value(Some(self.conversation.get_untracked()));
        let mut j = 0;
        self.conversation.update(|c| j = edit(c));
        let c = self.conversation.get_untracked();
        let chat = self.chat.get_untracked();
        let request = Request::Generate {
            prompt: c.exchanges[j].user.clone(),
            chat,
            settings: self.settings.get_untracked(),
            max_tokens: self.max_tokens.get_untracked(),
            turn: Turn {
                // The built-in's default text is sent as no system message, so that a model
                // from another family gets its own template's default, not SmolLM2's.
                system: chat.then(|| self.system.get_untracked()).filter(|s| s != DEFAULT_SYSTEM_PROMPT),
                earlier: c.earlier(j),
                answer: c.exchanges[j].answer().ids(),
                force,
                stop: self.stop.get_untracked(),
                alternatives: ALTERNATIVES,
            },
        };
        self.speed.set(Speed::default());
        self.answering.set(Some(j));
        let this = *self;
        // A first message too long is the message's fault, not the conversation's.
        let continuing = j > 0 || !c.exchanges[j].answer().tokens.is_empty();
        // The page may be left mid-generation: the signals may be gone when a token arrives.
        let id = self.bridge.send(request, move |response| match response {
            Response::Token {
                piece,
                token,
                prob,
                ms,
                forced,
                alternatives,
            } => {
                let t = Token {
                    id: token,
                    piece,
                    prob,
                    forced,
                    alternatives,
                };
                this.conversation
                    .try_update(|c| c.answer_mut(j).map(|a| a.tokens.push(t)));
                this.speed.try_update(|s| s.add(ms));
            }
            Response::Done {
                tokens,
                ttft_ms,
                prefill_tps,
                decode_tps,
                stop,
                reused,
                computed,
                context,
                ..
            } => {
                let footer = Footer {
                    tokens,
                    stop,
                    reused,
                    computed,
                    ttft_ms,
                    prefill_tps,
                    decode_tps,
                    context,
                };
                this.conversation.try_update(|c| {
                    if let Some(a) = c.answer_mut(j) {
                        // The end-of-turn token closes the answer; the template writes it.
                        if stop == StopReason::EndOfTurn && tokens > 0 {
                            a.tokens.pop();
                        }
                        a.footer = Some(footer);
                    }
                });
                if stop == StopReason::ContextFull {
                    this.full.try_set(true);
                }
                this.running.try_set(0);
                this.answering.try_set(None);
            }
            Response::Error { message } => {
                if continuing
                    && (message.contains("the context holds")
                        || message.contains("the context is full"))
                {
                    this.full.try_set(true);
                }
                if let Some(Some(before)) = this.before.try_get_value() {
                    this.conversation.try_set(before);
                }
                // A message that was refused goes back to the box, unless something new is there.
                if let Some(text) = &sent {
                    this.prompt.try_update(|p| {
                        if p.is_empty() {
                            *p = text.clone();
                        }
                    });
                }
                this.running.try_set(0);
                this.answering.try_set(None);
                this.problem.try_set(Some(message));
            }
            _ => {}
        });
        // If the request could not even be sent, its handler has already said so.
        if self.problem.get_untracked().is_none() {
            self.running.set(id);
        }
    }
}

//! A lab's access to the engine, shared by every lesson's labs: one request at a time (a
//! lab's Run buttons wait while any of its panels runs), which panel sent it, Stop, and
//! stopping what the lab started when the learner leaves the page.

use crate::bridge::{Bridge, ModelStatus};
use crate::model_choice::Choice;
use crate::protocol::{Request, Response};
use crate::ui::store::MadeBy;
use leptos::prelude::*;
use std::cell::Cell;
use std::rc::Rc;

#[derive(Clone, Copy)]
pub struct LabEngine {
    bridge: Bridge,
    /// The running request and the panel that sent it.
    running: RwSignal<Option<(u32, &'static str)>>,
}

// No `Default`: it needs the app's context (the bridge), which only a component has.
#[allow(clippy::new_without_default)]
impl LabEngine {
    /// Takes the page's bridge; leaving the page stops what this lab started.
    pub fn new() -> Self {
        let engine = LabEngine {
            bridge: expect_context::<Bridge>(),
            running: RwSignal::new(None),
        };
        on_cleanup(move || engine.stop());
        engine
    }

    pub fn ready(&self) -> bool {
        matches!(self.bridge.status().get(), ModelStatus::Ready(_))
    }

    /// Whether prompts may go through a chat template (`Bridge::chat_model`).
    pub fn chat_model(&self) -> bool {
        self.bridge.chat_model()
    }

    /// The model answering now (`Bridge::loaded_untracked`).
    pub fn loaded_model(&self) -> Option<Choice> {
        self.bridge.loaded_untracked()
    }

    /// The model answering now and its arithmetic, which a saved result names.
    pub fn made_by(&self) -> Option<MadeBy> {
        MadeBy::now(&self.bridge)
    }

    /// Whether the loaded model is a base model (no chat template), tracked: for a panel
    /// that can only run chat prompts.
    pub fn base_model(&self) -> bool {
        matches!(self.bridge.status().get(), ModelStatus::Ready(info) if !info.chat_template)
    }

    /// The weights' size, once the model is loaded.
    pub fn weight_bytes(&self) -> Option<u64> {
        match self.bridge.status().get() {
            ModelStatus::Ready(info) => Some(info.weight_bytes),
            _ => None,
        }
    }

    pub fn busy(&self) -> bool {
        self.running.with(|r| r.is_some())
    }

    /// `busy`, read outside any reactive scope (in a click handler).
    pub fn busy_untracked(&self) -> bool {
        self.running.with_untracked(|r| r.is_some())
    }

    pub fn running_in(&self, panel: &'static str) -> bool {
        self.running
            .with(|r| matches!(r, Some((_, p)) if *p == panel))
    }

    /// Whether a panel may start a request now.
    pub fn can_run(&self) -> bool {
        self.ready() && !self.busy()
    }

    /// Sends `request` for `panel`; `on_response` sees every response, and the lab is free
    /// again before it sees the last one (so that it may send the next request of a chain).
    pub fn send(
        &self,
        panel: &'static str,
        request: Request,
        mut on_response: impl FnMut(Response) + 'static,
    ) {
        let running = self.running;
        let (id, finished) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(false)));
        let (my_id, my_finished) = (id.clone(), finished.clone());
        let sent = self.bridge.send(request, move |response| {
            if response.is_final() {
                my_finished.set(true);
                running.try_update(|r| {
                    if matches!(r, Some((id, _)) if *id == my_id.get()) {
                        *r = None;
                    }
                });
            }
            on_response(response);
        });
        // A request that could not be sent has already been answered with an error.
        if !finished.get() {
            id.set(sent);
            running.set(Some((sent, panel)));
        }
    }

    pub fn stop(&self) {
        if let Some(Some((id, _))) = self.running.try_get_untracked() {
            self.bridge.cancel(id);
        }
    }
}

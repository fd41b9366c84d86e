//! The worker's one mutable state: the model, the session on it, and which request owns
//! the session. A long task checks ownership after every yield: losing it (to `Cancel`
//! or to a newer request) is its signal to stop.

use engine::{Model, Session};
use std::cell::RefCell;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()` of the worker's global scope.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

#[derive(Default)]
pub struct State {
    session: Option<Session>,
    /// The request allowed to use the session; 0 = none.
    owner: u32,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Runs `f` on the state. Never hold it across an `await`.
pub fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

impl State {
    pub fn set_model(&mut self, model: Model) {
        self.session = Some(Session::new(Arc::new(model), Box::new(performance_now)));
        self.owner = 0;
    }

    /// The model, for requests that only read it (they leave the session's owner alone).
    pub fn model(&self) -> Option<&Arc<Model>> {
        self.session.as_ref().map(|s| s.model())
    }

    /// Makes request `id` the session's owner, stopping whichever request held it.
    pub fn take(&mut self, id: u32) -> Result<&mut Session, String> {
        let session = self
            .session
            .as_mut()
            .ok_or("The model is not loaded yet.")?;
        self.owner = id;
        Ok(session)
    }

    /// The session, if request `id` still owns it.
    pub fn owned(&mut self, id: u32) -> Option<&mut Session> {
        if self.owner == id {
            self.session.as_mut()
        } else {
            None
        }
    }

    pub fn cancel(&mut self, id: u32) {
        if self.owner == id {
            self.owner = 0;
        }
    }
}

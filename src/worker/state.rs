//! The worker's one mutable state: the model, the session on it, and which request owns
//! the session. A long task checks ownership after every yield: losing it (to `Cancel`
//! or to a newer request) is its signal to stop.

use crate::protocol::Response;
use engine::{Model, Session};
use std::cell::RefCell;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()` of the worker's global scope.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    pub fn performance_now() -> f64;
}

/// What names the loaded model in decode-loop choices (`kernels`): a built-in model's SHA-256,
/// a device file's name (with its size, which a choice's key holds too).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelId {
    pub name: String,
    pub file_bytes: u64,
}

#[derive(Default)]
pub struct State {
    session: Option<Session>,
    /// The loaded model's name in decode-loop choices (`kernels`).
    model_id: Option<ModelId>,
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

/// The context this page allows, below the model's 8192: the KV cache takes 46 KB a token
/// (94 MB at 2048, as much as the weights), and a phone's tab must not run out of memory.
/// The model status says so.
pub const PAGE_CONTEXT: usize = 2048;

/// Every session the page uses: the worker's clock, the page's context.
pub fn page_session(model: Arc<Model>) -> Session {
    let mut session = Session::new(model, Box::new(performance_now));
    session.set_max_context(PAGE_CONTEXT);
    session
}

impl State {
    pub fn set_model(&mut self, model: Model, id: ModelId) {
        self.session = Some(page_session(Arc::new(model)));
        self.model_id = Some(id);
        self.owner = 0;
    }

    /// Makes request `id` the session's owner, stopping whichever request held it.
    pub fn take(&mut self, id: u32) -> Result<&mut Session, String> {
        let session = self
            .session
            .as_mut()
            .ok_or("The model is not loaded yet.")?;
        self.owner = id;
        // Lesson 2 turns the cache off for its own runs; a cancelled one must not leave it off.
        session.use_cache = true;
        // Nor may Lesson 2's look inside keep copying attention rows into the next request.
        session.probe = Default::default();
        Ok(session)
    }

    /// Like `take`, with a new session on the same model: an empty cache, for cold runs.
    pub fn take_fresh(&mut self, id: u32) -> Result<&mut Session, String> {
        let model = self.model()?.clone();
        self.session = Some(page_session(model));
        self.take(id)
    }

    pub fn model(&self) -> Result<&Arc<Model>, String> {
        self.session
            .as_ref()
            .map(|s| s.model())
            .ok_or_else(|| "The model is not loaded yet.".into())
    }

    /// The loaded model and its name in decode-loop choices.
    pub fn model_and_id(&self) -> Option<(&Model, &ModelId)> {
        Some((&**self.session.as_ref()?.model(), self.model_id.as_ref()?))
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

    pub fn bench_stats(&self) -> Response {
        let pages = core::arch::wasm32::memory_size(0) as u64;
        let session = self.session.as_ref();
        Response::BenchStats {
            wasm_memory_bytes: pages * 65536,
            prompt_tokens: session.map_or(0, |s| s.prompt_len()),
            generated_tokens: session.map_or(0, |s| s.generated()),
        }
    }
}

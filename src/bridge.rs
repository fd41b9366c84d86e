//! The page's handle on the engine worker: it starts the worker, loads the model, numbers
//! requests and routes each streamed response to the callback of its request. If the
//! worker dies, pending requests get an `Error`, the page is told, and a new worker loads
//! the model again (from the Cache API, so quickly). It also knows which model is loaded or
//! on its way (`choice`): a built-in one, or a file from the learner's device.

use crate::arithmetic::{self, Arithmetic};
use crate::kernel_choices;
use crate::model_choice::{self, Choice};
use crate::model_file::BuiltIn;
use crate::protocol::{Envelope, FileFacts, Kernels, ModelInfo, Request, Response};
use crate::threads::{self, Threads};
use leptos::prelude::*;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker};

#[derive(Debug, Clone, PartialEq)]
pub enum ModelStatus {
    /// Not asked for yet: the pages that do not run the model (home, glossary, reading list)
    /// do not download it; the lessons and the playground ask (`Bridge::need_model`).
    Idle,
    Loading {
        loaded: u64,
        total: Option<u64>,
        mb_per_s: f64,
        from_cache: bool,
    },
    Ready(ModelInfo),
    Error(String),
}

impl ModelStatus {
    /// The `data-state` the page and the tests see.
    pub fn name(&self) -> &'static str {
        match self {
            ModelStatus::Idle => "idle",
            ModelStatus::Loading { .. } => "loading",
            ModelStatus::Ready(_) => "ready",
            ModelStatus::Error(_) => "error",
        }
    }
}

/// A prefill under way: `done` of the `total` prompt tokens the request must compute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prefill {
    pub id: u32,
    pub done: usize,
    pub total: usize,
}

type Handler = Box<dyn FnMut(Response)>;

/// How long the multi-threaded worker may take to start its pool and say `Started`.
const THREADS_START: std::time::Duration = std::time::Duration::from_secs(15);

struct Inner {
    worker: Worker,
    /// The multi-threaded worker (`threads::spawn_worker`).
    threaded: bool,
    /// Requests wait here until the worker says `Started`: earlier messages would be lost.
    queue: Option<Vec<JsValue>>,
    handlers: HashMap<u32, Handler>,
    /// The worker's listeners, kept alive as long as it.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

/// Cheap to copy; `provide_context` it once and `expect_context` it anywhere.
#[derive(Clone, Copy)]
pub struct Bridge {
    inner: StoredValue<Option<Inner>, LocalStorage>,
    /// The last request id used. It survives worker restarts, so that a stale id held by
    /// a page can never name a newer request.
    last_id: StoredValue<u32>,
    status: RwSignal<ModelStatus>,
    /// Something the learner should know about the engine (it restarted, the cache was cleared).
    notice: RwSignal<Option<String>>,
    threads: RwSignal<Threads>,
    /// Exact or integer arithmetic for the loaded model.
    arithmetic: RwSignal<Arithmetic>,
    /// Decode's loops for the loaded model at the current thread count.
    kernels: RwSignal<Option<Kernels>>,
    /// The prompt being computed, while a request's prefill takes more than one slice.
    prefill: RwSignal<Option<Prefill>>,
    /// Why the multi-threaded worker is not to be started again (it failed to start).
    single: StoredValue<Option<String>>,
    /// The model loaded, or being loaded.
    choice: RwSignal<Choice>,
    /// While another model loads: the one loaded before, which the worker keeps until the
    /// new one is ready, so that a refused load leaves it usable.
    previous: StoredValue<Option<(Choice, ModelInfo)>>,
    /// The learner cancelled the first download: no page loads the model by itself until
    /// the learner asks for it again ("Load it now", a model picked).
    cancelled: RwSignal<bool>,
}

impl Bridge {
    /// Starts the worker; the model loads when a page needs it (`need_model`).
    pub fn start() -> Self {
        let bridge = Bridge {
            inner: StoredValue::new_local(None),
            last_id: StoredValue::new(0),
            status: RwSignal::new(ModelStatus::Idle),
            notice: RwSignal::new(None),
            threads: RwSignal::new(Threads::starting(None)),
            arithmetic: RwSignal::new(Arithmetic::default()),
            kernels: RwSignal::new(None),
            prefill: RwSignal::new(None),
            single: StoredValue::new(None),
            choice: RwSignal::new(Choice::BuiltIn(model_choice::last_built_in())),
            previous: StoredValue::new(None),
            cancelled: RwSignal::new(false),
        };
        bridge.spawn();
        bridge
    }

    /// For a page that runs the model: loads the last built-in model the learner used (the
    /// default at first) unless a model is loaded or on its way, or the learner cancelled
    /// its download (then the page offers it: `load_now`).
    pub fn need_model(&self) {
        if !self.cancelled.get_untracked() {
            self.load_now();
        }
    }

    /// "Load it now": loads the last built-in model unless a model is loaded or on its way.
    pub fn load_now(&self) {
        if self.status.get_untracked() == ModelStatus::Idle {
            self.load_built_in(model_choice::last_built_in());
        }
    }

    /// Whether the learner cancelled the download of the first model (`cancel_load`).
    pub fn load_cancelled(&self) -> Signal<bool> {
        self.cancelled.into()
    }

    pub fn status(&self) -> Signal<ModelStatus> {
        self.status.into()
    }

    /// Whether prompts may go through a chat template: not when the loaded model is a base
    /// model, which the lessons then give their prompts as raw text. (Read once per request.)
    pub fn chat_model(&self) -> bool {
        !matches!(self.status.get_untracked(), ModelStatus::Ready(info) if !info.chat_template)
    }

    /// The model loaded, or being loaded.
    pub fn choice(&self) -> Signal<Choice> {
        self.choice.into()
    }

    /// The model whose answers the pages get now: the one ready, or while another loads,
    /// the one the worker still holds; none before a model is ready. (Tracked.)
    pub fn loaded(&self) -> Option<Choice> {
        self.status.with(|status| match status {
            ModelStatus::Ready(_) => Some(self.choice.get()),
            ModelStatus::Loading { .. } => self.previous.with_value(|p| p.as_ref().map(|(choice, _)| choice.clone())),
            ModelStatus::Idle | ModelStatus::Error(_) => None,
        })
    }

    /// `loaded`, read without subscribing (when a result is saved).
    pub fn loaded_untracked(&self) -> Option<Choice> {
        untrack(|| self.loaded())
    }

    pub fn notice(&self) -> Signal<Option<String>> {
        self.notice.into()
    }

    pub fn threads(&self) -> Signal<Threads> {
        self.threads.into()
    }

    /// The prompt tokens computed so far of a request whose prefill is under way.
    pub fn prefill(&self) -> Signal<Option<Prefill>> {
        self.prefill.into()
    }

    /// Asks the worker to split passes over `n` threads (it clamps to what it has), and
    /// keeps the choice for the next visit.
    pub fn set_threads(&self, n: usize) {
        threads::remember(n);
        self.use_threads(n);
    }

    /// `set_threads` for now only (Lesson 2 measures each count, then sets the learner's back).
    pub fn use_threads(&self, n: usize) {
        let (state, bridge) = (self.threads, *self);
        let request = Request::SetThreads { threads: n, kernels: kernel_choices::stored() };
        self.send(request, move |response| {
            if let Response::Threads { threads, max, kernels } = response {
                state.update(|t| (t.using, t.max) = (threads, max));
                if let Some(kernels) = kernels {
                    bridge.keep_kernels(kernels);
                }
            }
        });
    }

    /// Decode's loops for the loaded model at the current thread count: how they were chosen,
    /// with the timings when timed.
    pub fn kernels(&self) -> Signal<Option<Kernels>> {
        self.kernels.into()
    }

    /// Shows `kernels` and keeps the choice for the next load of this model at this count.
    fn keep_kernels(&self, kernels: Kernels) {
        kernel_choices::remember(&kernels.choice);
        self.kernels.set(Some(kernels));
    }

    pub fn arithmetic(&self) -> Signal<Arithmetic> {
        self.arithmetic.into()
    }

    /// Switches the opt-in integer arithmetic on or off for the loaded model, and keeps the
    /// choice for the next visit and the next model.
    pub fn set_integer_arithmetic(&self, on: bool) {
        arithmetic::remember(on);
        self.use_integer_arithmetic(on);
    }

    fn use_integer_arithmetic(&self, on: bool) {
        let state = self.arithmetic;
        state.update(|a| (a.asked, a.refused) = (Some(on), None));
        self.send(Request::SetIntegerActivations { on }, move |response| {
            state.set(match response {
                Response::IntegerActivations { deviation, .. } => Arithmetic { deviation, ..Default::default() },
                Response::Error { message } => Arithmetic { refused: Some(message), ..Default::default() },
                other => Arithmetic { refused: Some(format!("Unexpected answer from the engine: {other:?}")), ..Default::default() },
            })
        });
    }

    /// Sends `request`; `on_response` sees every response to it, the last one being
    /// `is_final`. Returns the request's id (for `cancel`).
    pub fn send(&self, request: Request, mut on_response: impl FnMut(Response) + 'static) -> u32 {
        let id = self.next_id();
        let posted = self
            .inner
            .try_update_value(|inner| inner.as_mut().map(|inner| inner.post(id, request)))
            .flatten();
        match posted {
            Some(Ok(())) => {
                self.inner.update_value(|inner| {
                    if let Some(inner) = inner {
                        inner.handlers.insert(id, Box::new(on_response));
                    }
                });
                id
            }
            Some(Err(message)) => {
                on_response(Response::Error { message });
                id
            }
            None => {
                on_response(Response::Error {
                    message: "The engine is not running.".into(),
                });
                id
            }
        }
    }

    /// Asks the worker to stop request `id`; its last response will say it was cancelled.
    pub fn cancel(&self, id: u32) {
        let cancel_id = self.next_id();
        self.inner.update_value(|inner| {
            if let Some(inner) = inner {
                // Fire and forget: Cancel has no response of its own.
                let _ = inner.post(cancel_id, Request::Cancel { target_id: id });
            }
        });
    }

    fn next_id(&self) -> u32 {
        self.last_id
            .try_update_value(|id| {
                *id += 1;
                *id
            })
            .unwrap_or_default()
    }

    /// Loads a built-in model. Progress and the outcome go to `status`.
    pub fn load_built_in(&self, model: &'static BuiltIn) {
        let request = Request::LoadModel {
            url: model.url.into(),
            sha256: model.sha256.into(),
            kernels: kernel_choices::stored(),
        };
        self.load(Choice::BuiltIn(model), None, request);
    }

    /// Loads a GGUF file from the learner's device (read in slices where it lies).
    pub fn load_file(&self, file: web_sys::File) {
        let choice = Choice::Device { file_name: file.name() };
        let bytes = file.size() as u64;
        self.load(choice, Some(bytes), Request::LoadFile { file: file.into(), kernels: kernel_choices::stored() });
    }

    /// Reads the header of a GGUF file on the learner's device; nothing is loaded.
    pub fn inspect_file(&self, file: &web_sys::File, on_done: impl FnOnce(Result<FileFacts, String>) + 'static) {
        let mut on_done = Some(on_done);
        self.send(Request::InspectFile { file: file.clone().into() }, move |response| {
            let result = match response {
                Response::FileFacts { facts } => Ok(facts),
                Response::Error { message } => Err(message),
                other => Err(format!("Unexpected answer from the engine: {other:?}")),
            };
            if let Some(done) = on_done.take() {
                done(result);
            }
        });
    }

    /// Stops a load under way. The worker cannot hear a message while it builds a model, so
    /// it is restarted. If a model was ready before, it loads that again (the last built-in
    /// one, from the cache: quickly); if none was (the first download), the page is left
    /// with no model and offers to load it, rather than starting the download again.
    pub fn cancel_load(&self) {
        if !matches!(self.status.get_untracked(), ModelStatus::Loading { .. }) {
            return;
        }
        let cancelled = self.choice.get_untracked().name();
        let had_model = self.previous.with_value(Option::is_some);
        self.stop_worker("loading was cancelled");
        let model = model_choice::last_built_in();
        if !had_model {
            // Before `spawn`, which says so if the new worker cannot start.
            self.choice.set(Choice::BuiltIn(model));
            self.status.set(ModelStatus::Idle);
            self.cancelled.set(true);
            self.notice.set(None);
            return self.spawn();
        }
        self.spawn();
        self.load_built_in(model);
        self.notice.set(Some(format!(
            "Loading {cancelled} was cancelled: the engine was restarted and loads {} again.",
            model.name
        )));
    }

    /// Asks the worker for `choice` with `request`; `bytes`: the size, when known before.
    fn load(&self, choice: Choice, bytes: Option<u64>, request: Request) {
        let bridge = *self;
        let status = self.status;
        let (notice, previous, chosen) = (self.notice, self.previous, self.choice);
        self.cancelled.set(false);
        if let ModelStatus::Ready(info) = status.get_untracked() {
            previous.set_value(Some((chosen.get_untracked(), info)));
        }
        chosen.set(choice.clone());
        status.set(ModelStatus::Loading {
            loaded: 0,
            total: bytes,
            mb_per_s: 0.0,
            from_cache: false,
        });
        let failed = move |message: String| match previous.try_update_value(Option::take).flatten() {
            // The worker still has the model loaded before: it stays in use.
            Some((before, info)) => {
                notice.set(Some(format!(
                    "{} could not be loaded: {message} {} is still loaded.",
                    choice.name(),
                    before.name()
                )));
                chosen.set(before);
                status.set(ModelStatus::Ready(info));
            }
            None => status.set(ModelStatus::Error(message)),
        };
        let mut failed = Some(failed);
        self.send(request, move |response| match response {
            Response::Progress {
                loaded,
                total,
                mb_per_s,
                from_cache,
            } => status.set(ModelStatus::Loading {
                loaded,
                total,
                mb_per_s,
                from_cache,
            }),
            Response::ModelReady { info } => {
                previous.set_value(None);
                model_choice::remember(&chosen.get_untracked());
                bridge.keep_kernels(info.kernels.clone());
                status.set(ModelStatus::Ready(info));
                // A new model starts exact: the learner's choice is applied (and measured) again.
                bridge.arithmetic.set(Arithmetic::default());
                if arithmetic::preferred() {
                    bridge.use_integer_arithmetic(true);
                }
            }
            other => {
                let message = match other {
                    Response::Error { message } => message,
                    other => format!("Unexpected answer from the engine: {other:?}"),
                };
                if let Some(failed) = failed.take() {
                    failed(message);
                }
            }
        });
    }

    /// After an error: a fresh worker, then the model again.
    pub fn retry(&self) {
        self.notice.set(None);
        self.stop_worker("it was restarted");
        self.spawn();
        self.load_built_in(model_choice::last_built_in());
    }

    /// Deletes the cached model file; the model in memory stays usable.
    pub fn clear_cache(&self) {
        let notice = self.notice;
        self.send(Request::ClearCache, move |response| {
            notice.set(Some(match response {
                Response::CacheCleared => {
                    "The cached model file was deleted; the next visit downloads it again.".into()
                }
                Response::Error { message } => {
                    format!("The cached model could not be deleted: {message}")
                }
                other => format!("Unexpected answer from the engine: {other:?}"),
            }))
        });
    }

    fn spawn(&self) {
        let bridge = *self;
        let (worker, single) = match threads::spawn_worker(self.single.get_value()) {
            Ok(spawned) => spawned,
            Err(message) => return self.status.set(ModelStatus::Error(message)),
        };
        let threaded = single.is_none();
        self.threads.set(Threads::starting(single));
        self.arithmetic.set(Arithmetic::default());
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            bridge.on_message(e.data())
        });
        let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |e: ErrorEvent| {
            e.prevent_default();
            let message = e.message();
            bridge.on_crash(if message.is_empty() {
                "no details given".into()
            } else {
                message
            })
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        self.inner.set_value(Some(Inner {
            worker,
            threaded,
            queue: Some(Vec::new()),
            handlers: HashMap::new(),
            _on_message: on_message,
            _on_error: on_error,
        }));
        self.set_threads(threads::preferred());
        if threaded {
            // A pool that never starts (once seen in Firefox: its workers never answered)
            // must not leave the page waiting: the single-threaded worker takes over.
            let started = self.inner.with_value(|i| i.as_ref().map(|i| i.worker.clone()));
            set_timeout(
                move || {
                    let stuck = bridge.inner.with_value(|inner| {
                        inner.as_ref().is_some_and(|i| Some(&i.worker) == started.as_ref() && i.queue.is_some())
                    });
                    if stuck {
                        bridge.on_crash(format!("its threads did not start within {} s", THREADS_START.as_secs()));
                    }
                },
                THREADS_START,
            );
        }
    }

    fn on_message(&self, data: JsValue) {
        let Envelope { id, body } = match serde_wasm_bindgen::from_value::<Envelope<Response>>(data)
        {
            Ok(envelope) => envelope,
            Err(e) => {
                return web_sys::console::error_1(
                    &format!("unreadable message from the engine: {e}").into(),
                )
            }
        };
        match body {
            Response::Started => self.inner.update_value(|inner| {
                if let Some(inner) = inner {
                    for message in inner.queue.take().unwrap_or_default() {
                        let _ = inner.worker.post_message(&message);
                    }
                }
            }),
            Response::Crashed { message } => self.on_crash(message),
            Response::Prefill { done, total } => self.prefill.set((done < total).then_some(Prefill { id, done, total })),
            body if id == 0 => web_sys::console::error_1(&format!("engine: {body:?}").into()),
            body => self.finish(id, body),
        }
    }

    /// Hands `response` to its request's handler, outside the borrow of `inner` so that the
    /// handler may send requests itself.
    fn finish(&self, id: u32, response: Response) {
        let last = response.is_final();
        if self.prefill.with_untracked(|p| p.is_some_and(|p| p.id == id)) {
            self.prefill.set(None);
        }
        let handler = self
            .inner
            .try_update_value(|inner| inner.as_mut()?.handlers.remove(&id))
            .flatten();
        if let Some(mut handler) = handler {
            handler(response);
            if !last {
                self.inner.update_value(|inner| {
                    if let Some(inner) = inner {
                        inner.handlers.insert(id, handler);
                    }
                });
            }
        }
    }

    /// The worker died. Every pending request fails; a new worker reloads the model,
    /// unless it died while loading it (then Retry decides, not a restart loop).
    fn on_crash(&self, reason: String) {
        let failed_to_start = self
            .inner
            .with_value(|inner| inner.as_ref().is_some_and(|i| i.threaded && i.queue.is_some()));
        if failed_to_start {
            // Its requests are still queued: the single-threaded worker takes over.
            self.stop_worker("its threads could not start");
            self.single.set_value(Some(format!("the multi-threaded engine could not start: {reason}")));
            self.spawn();
            return self.reload_if_asked();
        }
        let was_loading = matches!(self.status.get_untracked(), ModelStatus::Loading { .. });
        let choice = self.choice.get_untracked();
        self.stop_worker(&format!("it stopped unexpectedly ({reason})"));
        if was_loading {
            self.status.set(ModelStatus::Error(format!(
                "The engine stopped while loading {}: {reason}",
                choice.name()
            )));
            return;
        }
        self.notice.set(Some(match choice {
            // The page may not reopen the learner's file by itself: say what replaced it.
            Choice::Device { file_name } => format!(
                "The engine stopped unexpectedly ({reason}) while running {file_name}, opened from this device. \
                 It was restarted with {}, because a page cannot reopen a file from your device without you: \
                 open {file_name} again to go on with it.",
                model_choice::last_built_in().name
            ),
            Choice::BuiltIn(_) => format!("The engine stopped unexpectedly ({reason}). It was restarted."),
        }));
        self.spawn();
        self.reload_if_asked();
    }

    /// A new worker has no model: it loads it again, if a page had asked for it. A file from
    /// the device cannot be reopened without the learner: the last built-in model loads.
    fn reload_if_asked(&self) {
        if self.status.get_untracked() != ModelStatus::Idle {
            self.load_built_in(model_choice::last_built_in());
        }
    }

    /// Terminates the worker and fails its pending requests with `why`.
    fn stop_worker(&self, why: &str) {
        self.prefill.set(None);
        // Its model goes with it: a load it was doing cannot fall back on the one before.
        self.previous.set_value(None);
        let old = self.inner.try_update_value(|inner| inner.take()).flatten();
        if let Some(mut old) = old {
            // Events already queued must not reach the listeners dropped with `old`.
            old.worker.set_onmessage(None);
            old.worker.set_onerror(None);
            old.worker.terminate();
            for (_, mut handler) in old.handlers.drain() {
                handler(Response::Error {
                    message: format!("The engine was stopped: {why}."),
                });
            }
        }
    }
}

impl Inner {
    fn post(&mut self, id: u32, request: Request) -> Result<(), String> {
        let serializer = serde_wasm_bindgen::Serializer::json_compatible();
        let message = serde::Serialize::serialize(&Envelope { id, body: request }, &serializer)
            .map_err(|e| format!("The request could not be encoded: {e}"))?;
        match &mut self.queue {
            Some(queue) => queue.push(message),
            None => self
                .worker
                .post_message(&message)
                .map_err(|e| format!("The engine is unreachable: {e:?}"))?,
        }
        Ok(())
    }
}

//! What the lesson's panels share: the engine, which runs one request at a time (every Run
//! button waits while any panel runs, and Stop cancels it), the model's shape, and the
//! results the exercises check.

use super::inside_run::Inspection;
use super::run::Run;
use super::spec_run::Comparison;
use crate::bridge::{Bridge, ModelStatus};
use crate::protocol::{Request, Response};
use engine::Config;
use leptos::prelude::*;
use std::cell::Cell;
use std::rc::Rc;

/// The loaded model's hyper-parameters, and the KV bytes of one position.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub config: Config,
    pub kv_bytes_per_position: usize,
}

#[derive(Clone, Copy)]
pub struct Lab {
    bridge: Bridge,
    /// The running request and the panel that sent it.
    running: RwSignal<Option<(u32, &'static str)>>,
    pub shape: RwSignal<Option<Shape>>,
    /// The KV panel's latest run with the cache on, and with it off.
    pub cache_on: RwSignal<Run>,
    pub cache_off: RwSignal<Run>,
    /// The speculative panel's latest comparison.
    pub spec: RwSignal<Comparison>,
    /// The look inside's latest turn (the capacity panel reads its measured KV bytes).
    pub inside: RwSignal<Inspection>,
}

// No `Default`: a lab needs the app's context (the bridge), which only a component has.
#[allow(clippy::new_without_default)]
impl Lab {
    /// Creates the lab and asks for the model's shape once the model is ready.
    pub fn new() -> Self {
        let lab = Lab {
            bridge: expect_context::<Bridge>(),
            running: RwSignal::new(None),
            shape: RwSignal::new(None),
            cache_on: RwSignal::new(Run::default()),
            cache_off: RwSignal::new(Run::default()),
            spec: RwSignal::new(Comparison::default()),
            inside: RwSignal::new(Inspection::new(0)),
        };
        let shape = lab.shape;
        Effect::new(move |_| {
            if lab.ready() && shape.get_untracked().is_none() {
                lab.bridge.send(Request::StageShape, move |response| {
                    if let Response::StageShape {
                        config,
                        kv_bytes_per_position,
                    } = response
                    {
                        shape.try_set(Some(Shape {
                            config,
                            kv_bytes_per_position,
                        }));
                    }
                });
            }
        });
        // Leaving the page stops what it started.
        on_cleanup(move || lab.stop());
        lab
    }

    pub fn ready(&self) -> bool {
        matches!(self.bridge.status().get(), ModelStatus::Ready(_))
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

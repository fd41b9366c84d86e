//! What the lesson's panels share: the engine (`LabEngine`: one request at a time, every Run
//! button waits while any panel runs, and Stop cancels it), the model's shape, and the
//! results the exercises check.

use super::inside_run::Inspection;
use super::run::Run;
use super::spec_run::Comparison;
use crate::bridge::Bridge;
use crate::protocol::{Request, Response};
use crate::ui::lab::LabEngine;
use engine::Config;
use leptos::prelude::*;

/// The loaded model's hyper-parameters, and the KV bytes of one position.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub config: Config,
    pub kv_bytes_per_position: usize,
}

#[derive(Clone, Copy)]
pub struct Lab {
    pub engine: LabEngine,
    pub shape: RwSignal<Option<Shape>>,
    /// The prefill and decode panel's latest run (the timeline the learner labels).
    pub timeline: RwSignal<Run>,
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
            engine: LabEngine::new(),
            shape: RwSignal::new(None),
            timeline: RwSignal::new(Run::default()),
            cache_on: RwSignal::new(Run::default()),
            cache_off: RwSignal::new(Run::default()),
            spec: RwSignal::new(Comparison::default()),
            inside: RwSignal::new(Inspection::new(0)),
        };
        let (shape, bridge) = (lab.shape, expect_context::<Bridge>());
        Effect::new(move |_| {
            if lab.engine.ready() && shape.get_untracked().is_none() {
                bridge.send(Request::StageShape, move |response| {
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
        lab
    }
}

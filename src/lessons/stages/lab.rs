//! What the lesson's panels share: the engine (`LabEngine`: one request at a time, every Run
//! button waits while any panel runs, and Stop cancels it), the model's shape, the results
//! the exercises check, and the measurements kept in the browser (`saved_measurements.rs`),
//! read back when the lesson opens.

use super::inside_run::Inspection;
use super::run::Run;
use super::saved_measurements::{self, Measurement, Point, Speeds};
use super::spec_run::Comparison;
use crate::bridge::Bridge;
use crate::protocol::{Request, Response};
use crate::ui::lab::LabEngine;
use crate::ui::store::MadeBy;
use engine::serving_sim::MeasuredCosts;
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
    /// The threads panel's speeds at each thread count.
    pub threads: RwSignal<Vec<Speeds>>,
    /// The sweep's points, one per prompt length.
    pub sweep: RwSignal<Vec<Point>>,
    /// The serving simulator's measured costs, once every pass size is timed.
    pub serving: RwSignal<Option<MeasuredCosts>>,
    /// Why a lab's measurement could not be saved (or the saved ones read): the lab's name
    /// and the reason.
    pub save_problem: RwSignal<Option<(&'static str, String)>>,
    /// The labs showing a measurement saved earlier, with what made it (a lab's own new
    /// measurement takes it off): "Measured on" must not name the model loaded now.
    pub restored_from: RwSignal<Vec<(&'static str, MadeBy)>>,
    /// Saved measurements of the panels that keep their results themselves (reuse, pass
    /// cost, speculative draws), until the panel takes its own (`take_restored`).
    handed: RwSignal<Vec<Measurement>>,
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
            threads: RwSignal::new(Vec::new()),
            sweep: RwSignal::new(Vec::new()),
            serving: RwSignal::new(None),
            save_problem: RwSignal::new(None),
            restored_from: RwSignal::new(Vec::new()),
            handed: RwSignal::new(Vec::new()),
        };
        saved_measurements::restore(lab.save_problem, move |saved| lab.restore(saved));
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

    /// Shows the saved measurements in their labs, unless a lab has measured since the
    /// page opened.
    fn restore(self, saved: Vec<(Measurement, MadeBy)>) {
        // The page was left meanwhile, or a measurement is under way (it fills its lab as it goes).
        if self.timeline.try_get_untracked().is_none() || self.engine.busy_untracked() {
            return;
        }
        for (measurement, model) in saved {
            let lab = measurement.lab();
            let shown = match measurement {
                Measurement::Timeline { run } => self.timeline.try_with_untracked(|r| r.costs.is_empty()) == Some(true) && self.timeline.try_set(run).is_none(),
                Measurement::Threads { rows } => self.threads.try_with_untracked(Vec::is_empty) == Some(true) && self.threads.try_set(rows).is_none(),
                Measurement::Sweep { points } => self.sweep.try_with_untracked(Vec::is_empty) == Some(true) && self.sweep.try_set(points).is_none(),
                Measurement::CacheOn { run } => self.cache_on.try_with_untracked(|r| r.costs.is_empty()) == Some(true) && self.cache_on.try_set(run).is_none(),
                Measurement::CacheOff { run } => self.cache_off.try_with_untracked(|r| r.costs.is_empty()) == Some(true) && self.cache_off.try_set(run).is_none(),
                Measurement::Serving { costs } => self.serving.try_with_untracked(Option::is_none) == Some(true) && self.serving.try_set(Some(costs)).is_none(),
                Measurement::Speculative { comparison } => {
                    let empty = self.spec.try_with_untracked(|c| c.plain.first.is_none() && c.plain.cycles.is_empty()) == Some(true);
                    empty && self.spec.try_set(comparison).is_none()
                }
                // The panel shows it unless it measured meanwhile.
                handed @ (Measurement::Reuse { .. } | Measurement::PassCost { .. } | Measurement::SpecDraws { .. }) => self.handed.try_update(|h| h.push(handed)).is_some(),
            };
            if shown {
                self.restored_from.try_update(|r| r.push((lab, model)));
            }
        }
    }

    /// For a panel that keeps its results itself: the saved measurement of its lab `lab`,
    /// once restored (read in an effect, which runs again when it arrives). Taken once.
    pub fn take_restored(self, lab: &str) -> Option<Measurement> {
        let at = self.handed.with(|h| h.iter().position(|m| m.lab() == lab))?;
        self.handed.try_update(|h| h.remove(at))
    }

    /// What made what lab `lab` shows, when it was restored from a saved item.
    pub fn restored_by(self, lab: &str) -> Option<MadeBy> {
        self.restored_from.with(|r| r.iter().find(|(l, _)| *l == lab).map(|(_, m)| m.clone()))
    }

    /// Keeps a finished measurement in the browser, made by the model loaded now and its
    /// arithmetic.
    pub fn save(self, measurement: Measurement) {
        let lab = measurement.lab();
        self.restored_from.update(|r| r.retain(|(l, _)| *l != lab));
        saved_measurements::save(measurement, self.engine.made_by(), self.save_problem);
    }
}

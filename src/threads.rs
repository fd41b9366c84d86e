//! Which engine worker the page starts, and how many threads its passes use. Threads need
//! shared memory, which browsers give only to a cross-origin isolated page: served with
//! COOP/COEP by the host, or by the service worker that adds them (public/sw.js,
//! public/boot.js). Otherwise the single-threaded worker runs, and the page says why.

use leptos::prelude::*;
use web_sys::{Worker, WorkerOptions, WorkerType};

/// Trunk's loader for the single-threaded worker; relative to the site's `<base href>`.
const SINGLE_URL: &str = "worker_loader.js";
/// The multi-threaded worker's module (scripts/build-threads.sh).
const THREADS_URL: &str = "worker-threads.js";
/// Where the learner's choice is kept.
const KEY: &str = "engine-threads";

/// The engine's threads as the page shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct Threads {
    /// Threads each pass splits over.
    pub using: usize,
    /// The most the running worker offers (1 for the single-threaded one; 0 until it says).
    pub max: usize,
    /// Why there is only one thread, when threads are unavailable.
    pub single: Option<String>,
}

impl Threads {
    /// Before the worker has answered: `max` 0, not yet known.
    pub fn starting(single: Option<String>) -> Self {
        Threads { using: 1, max: 0, single }
    }
}

/// The worker to start: the multi-threaded one when the page is cross-origin isolated
/// and `single` (a reason to avoid it) is `None`. Returns it and, for the single-threaded
/// one, why.
pub fn spawn_worker(single: Option<String>) -> Result<(Worker, Option<String>), String> {
    let single = single.or_else(|| (!isolated()).then(not_isolated_reason));
    let worker = match single {
        None => {
            let options = WorkerOptions::new();
            options.set_type(WorkerType::Module);
            Worker::new_with_options(THREADS_URL, &options)
        }
        Some(_) => Worker::new(SINGLE_URL),
    };
    worker.map(|w| (w, single)).map_err(|e| format!("The engine could not start: {e:?}"))
}

fn isolated() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into())
        .is_ok_and(|v| v.is_truthy())
}

fn not_isolated_reason() -> String {
    let window = window();
    if !window.is_secure_context() {
        // Checked first: there `navigator.serviceWorker` does not exist.
        return "this page is not cross-origin isolated: it is served over plain HTTP from another machine, where browsers allow neither threads nor the service worker that could enable them".into();
    }
    let navigator = window.navigator();
    let has_workers = js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false);
    if has_workers && navigator.service_worker().controller().is_some() {
        "this page is not cross-origin isolated: the host sends no COOP/COEP headers, and this browser did not accept them from the service worker".into()
    } else {
        "this page is not cross-origin isolated: the host sends no COOP/COEP headers, and the service worker that adds them is not running (private browsing, or service workers blocked)".into()
    }
}

/// The threads to ask for: the learner's last choice, else one per core but one (left for
/// the page), at most 8, at least 1.
pub fn preferred() -> usize {
    let stored = storage().and_then(|s| s.get_item(KEY).ok().flatten()).and_then(|v| v.parse().ok());
    stored.unwrap_or_else(|| {
        let cores = window().navigator().hardware_concurrency() as usize;
        cores.min(8).saturating_sub(1).max(1)
    })
}

/// Keeps the learner's choice for the next visit.
pub fn remember(threads: usize) {
    if let Some(s) = storage() {
        let _ = s.set_item(KEY, &threads.to_string());
    }
}

fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

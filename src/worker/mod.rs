//! The engine worker: it owns the model and the session, and answers `protocol::Request`s
//! posted by the page. Everything slow is async and yields between slices of work, so
//! that a `Cancel` is heard within one token.

mod bench_batch;
pub mod crash;
mod dispatch;
mod generate;
mod integer_activations;
pub(crate) mod js_file;
mod kernels;
mod lesson_one;
mod lesson_three;
mod lesson_two;
mod lesson_two_inside;
mod load_model;
mod spec_draws;
mod post;
mod prompt;
mod state;
#[cfg(feature = "threads")]
mod threads;
mod yield_now;

use crate::protocol::Response;
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

/// Installs the crash reports and the message handler, starts the thread pool (in the
/// multi-threaded build), then tells the page it is listening.
pub fn start() {
    crash::report_crashes();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on_message = Closure::<dyn Fn(web_sys::MessageEvent)>::new(dispatch::on_message);
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    #[cfg(feature = "threads")]
    wasm_bindgen_futures::spawn_local(async {
        // The page holds its requests until `Started`, so no pass runs before the pool is up.
        match threads::start_pool().await {
            Ok(()) => post::post(0, Response::Started),
            Err(message) => post::post(0, Response::Crashed { message }),
        }
    });
    #[cfg(not(feature = "threads"))]
    post::post(0, Response::Started);
}

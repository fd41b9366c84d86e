//! Reporting a dead worker to the page. Three ways the engine can die: a Rust panic (the
//! panic hook), an uncaught JavaScript exception, and a wasm trap inside an async task,
//! which surfaces only as an unhandled promise rejection, which the page's `Worker.onerror`
//! never sees. Running out of memory outside the engine's fallible allocations is the
//! likeliest trap: the allocator then aborts with no message, so the worker's allocator
//! (`engine::allocator`, which also holds a chat template to its ceiling) notes the refusal
//! and the report says what happened.

use crate::model_file::megabytes;
use super::post::post;
use crate::protocol::Response;
use engine::allocator::{self, Refusal};
use std::sync::atomic::{AtomicBool, Ordering};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, ErrorEvent, PromiseRejectionEvent};

/// Installs the panic hook and the listeners for uncaught errors. Each posts `Crashed`:
/// after any of them the wasm instance is in an unknown state, and the page replaces it.
pub fn report_crashes() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        crashed(info.to_string());
    }));
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on_error = Closure::<dyn Fn(ErrorEvent)>::new(|e: ErrorEvent| {
        // Reported here, so the page must not also get it as `Worker.onerror`.
        e.prevent_default();
        crashed(e.message());
    });
    let on_rejection = Closure::<dyn Fn(PromiseRejectionEvent)>::new(|e: PromiseRejectionEvent| {
        let reason = e.reason();
        let message = reason
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| reason.as_string())
            .unwrap_or_else(|| format!("{reason:?}"));
        crashed(message);
    });
    // Listeners, not `onerror`: a global scope's `onerror` gets five arguments, no event.
    for (kind, listener) in [
        ("error", on_error.as_ref()),
        ("unhandledrejection", on_rejection.as_ref()),
    ] {
        let _ = scope.add_event_listener_with_callback(kind, listener.unchecked_ref());
    }
    // The listeners live as long as the worker.
    on_error.forget();
    on_rejection.forget();
}

/// Whether this worker has reported its death: a panic's abort traps next, and the trap
/// surfaces again as an unhandled rejection. The page hears the first.
static REPORTED: AtomicBool = AtomicBool::new(false);

fn crashed(message: String) {
    if REPORTED.swap(true, Ordering::Relaxed) {
        return;
    }
    let message = explained(message, allocator::take_refusal());
    post(0, Response::Crashed { message });
}

/// The report: the error as it came, named as running out of memory if an allocation had
/// just been refused (by the tab, or by the ceiling a chat template renders under).
fn explained(message: String, refusal: Option<Refusal>) -> String {
    match refusal {
        None => message,
        Some(Refusal::System { bytes }) => format!(
            "out of memory: this tab could not give the engine {} more ({message})",
            megabytes(bytes as u64)
        ),
        Some(ceiling) => format!("{ceiling} ({message})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::allocator::Allocator;
    use std::alloc::{GlobalAlloc, Layout};
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn a_refused_allocation_is_recorded_and_named_in_the_report() {
        allocator::take_refusal();
        // tests/webdriver.json (scripts/test.sh) caps the test browser's wasm memory at 1 GiB:
        // memory.grow refuses this.
        let size = 1_500_000_000;
        let layout = Layout::from_size_align(size, 8).unwrap();
        let p = unsafe { Allocator.alloc(layout) };
        assert!(p.is_null());
        assert_eq!(allocator::take_refusal(), Some(Refusal::System { bytes: size }));
        assert_eq!(
            explained("RuntimeError: unreachable".into(), Some(Refusal::System { bytes: 3_500_000 })),
            "out of memory: this tab could not give the engine 3.5 MB more (RuntimeError: unreachable)"
        );
        assert_eq!(
            explained("RuntimeError: unreachable".into(), Some(Refusal::Ceiling { what: "the chat template", bytes: 32 << 20 })),
            "the chat template needed more than 32 MiB of memory, the most it may hold (RuntimeError: unreachable)"
        );
        assert_eq!(explained("boom".into(), None), "boom");
        // A small allocation still works, and records nothing.
        let small = Layout::from_size_align(64, 8).unwrap();
        let q = unsafe { Allocator.alloc(small) };
        assert!(!q.is_null());
        unsafe { Allocator.dealloc(q, small) };
        assert_eq!(allocator::take_refusal(), None);
    }
}

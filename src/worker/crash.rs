//! Reporting a dead worker to the page. Three ways the engine can die: a Rust panic (the
//! panic hook), an uncaught JavaScript exception, and a wasm trap inside an async task,
//! which surfaces only as an unhandled promise rejection, which the page's `Worker.onerror`
//! never sees. Running out of memory outside the engine's fallible allocations is the
//! likeliest trap: the allocator then aborts with no message, so `RecordingAllocator`
//! notes the failed size and the report says what happened.

use crate::model_file::megabytes;
use super::post::post;
use crate::protocol::Response;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, ErrorEvent, PromiseRejectionEvent};

/// The size of the last allocation the system allocator refused (0: none).
static FAILED_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, remembering the size of an allocation it could not make.
pub struct RecordingAllocator;

unsafe impl GlobalAlloc for RecordingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        noted(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        noted(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        noted(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// Passes the allocator's answer on, noting `size` if it was a refusal.
fn noted(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        FAILED_BYTES.store(size, Ordering::Relaxed);
    }
    p
}

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
    let message = explained(message, FAILED_BYTES.swap(0, Ordering::Relaxed));
    post(0, Response::Crashed { message });
}

/// The report: the error as it came, named as running out of memory if an allocation of
/// `failed` bytes had just been refused.
fn explained(message: String, failed: usize) -> String {
    match failed {
        0 => message,
        _ => format!(
            "out of memory: this tab could not give the engine {} more ({message})",
            megabytes(failed as u64)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn a_refused_allocation_is_recorded_and_named_in_the_report() {
        FAILED_BYTES.store(0, Ordering::Relaxed);
        // tests/webdriver.json (scripts/test.sh) caps the test browser's wasm memory at 1 GiB:
        // memory.grow refuses this.
        let size = 1_500_000_000;
        let layout = Layout::from_size_align(size, 8).unwrap();
        let p = unsafe { RecordingAllocator.alloc(layout) };
        assert!(p.is_null());
        assert_eq!(FAILED_BYTES.swap(0, Ordering::Relaxed), size);
        assert_eq!(
            explained("RuntimeError: unreachable".into(), 3_500_000),
            "out of memory: this tab could not give the engine 3.5 MB more (RuntimeError: unreachable)"
        );
        assert_eq!(explained("boom".into(), 0), "boom");
        // A small allocation still works, and records nothing.
        let small = Layout::from_size_align(64, 8).unwrap();
        let q = unsafe { RecordingAllocator.alloc(small) };
        assert!(!q.is_null());
        unsafe { RecordingAllocator.dealloc(q, small) };
        assert_eq!(FAILED_BYTES.load(Ordering::Relaxed), 0);
    }
}

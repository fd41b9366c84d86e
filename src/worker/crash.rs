//! Reporting a dead worker to the page. Three ways the engine can die: a Rust panic (the
//! panic hook), an uncaught JavaScript exception, and a wasm trap inside an async task,
//! which surfaces only as an unhandled promise rejection, which the page's `Worker.onerror`
//! never sees. Running out of memory outside the engine's fallible allocations is the
//! likeliest trap: the allocator then aborts with no message, so `RecordingAllocator`
//! notes the failed size and the report says what happened.

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
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            FAILED_BYTES.store(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            FAILED_BYTES.store(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            FAILED_BYTES.store(new_size, Ordering::Relaxed);
        }
        p
    }
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
    let failed = FAILED_BYTES.swap(0, Ordering::Relaxed);
    let message = if failed > 0 {
        format!(
            "out of memory: this tab could not give the engine {:.1} MB more ({message})",
            failed as f64 / 1e6
        )
    } else {
        message
    };
    post(0, Response::Crashed { message });
}

//! The allocator of the programs that run the engine (the page's worker, the CLI): the
//! system's, with a ceiling on what one piece of untrusted work may hold, and a note of the
//! last allocation it refused, so that the report of the crash that follows says why.
//!
//! A chat template is a program from the file. Fuel bounds its steps and `chat.rs` its
//! output, but a few steps can build huge strings (`{% set s = s ~ s %}` doubles `s` each
//! time) and minijinja has no memory limit. So its rendering runs `within` a ceiling: an
//! allocation that would take what it holds past the ceiling is refused. A refused
//! allocation cannot become an error value (an allocator may not unwind, and Rust aborts when
//! one refuses), so the program stops, at once and with the ceiling's name, instead of taking
//! gigabytes first. Only the thread inside `within` is limited: the thread pool's workers and
//! the rest of the program allocate as before.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Mutex;

/// The allocator: install it with `#[global_allocator]` in a program that runs untrusted
/// work through `within`. Without it, `within` limits nothing.
pub struct Allocator;

/// A ceiling in force on one thread: what it is for, its size, and the bytes still free.
#[derive(Clone, Copy)]
struct Ceiling {
    what: &'static str,
    bytes: usize,
    left: isize,
}

thread_local! {
    // Const-initialised and without a destructor: reading it never allocates.
    static CEILING: Cell<Option<Ceiling>> = const { Cell::new(None) };
}

/// Why the last allocation was refused: by a ceiling (its `what` and size), or by the
/// system, out of memory (the size asked for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    Ceiling { what: &'static str, bytes: usize },
    System { bytes: usize },
}

/// The last refusal (locking it does not allocate).
static REFUSED: Mutex<Option<Refusal>> = Mutex::new(None);

/// Runs `f` with at most `bytes` more held on this thread than when it began (what it frees
/// counts back). `what` names the work in the refusal's report.
pub fn within<T>(what: &'static str, bytes: usize, f: impl FnOnce() -> T) -> T {
    /// Puts back the ceiling that was in force before, also when `f` unwinds.
    struct Restore(Option<Ceiling>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CEILING.with(|c| c.set(self.0));
        }
    }
    let ceiling = Ceiling { what, bytes, left: signed(bytes) };
    let _restore = Restore(CEILING.with(|c| c.replace(Some(ceiling))));
    f()
}

/// The last refused allocation since the previous call, if any.
pub fn take_refusal() -> Option<Refusal> {
    REFUSED.lock().ok().and_then(|mut r| r.take())
}

fn note(refusal: Refusal) {
    if let Ok(mut r) = REFUSED.lock() {
        *r = Some(refusal);
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Ceiling { what, bytes } => {
                write!(f, "{what} needed more than {} MiB of memory, the most it may hold", bytes >> 20)
            }
            Refusal::System { bytes } => write!(f, "out of memory: an allocation of {bytes} bytes was refused"),
        }
    }
}

/// Takes `size` bytes from this thread's ceiling, if one is in force; false, with the refusal
/// noted, if they do not fit.
fn take(size: usize) -> bool {
    CEILING.with(|cell| {
        let Some(mut c) = cell.get() else { return true };
        if signed(size) > c.left {
            // The ceiling is lifted before the report, which may allocate.
            cell.set(None);
            refused(c);
            return false;
        }
        c.left -= signed(size);
        cell.set(Some(c));
        true
    })
}

/// Gives `size` bytes back to this thread's ceiling, if one is in force.
fn give(size: usize) {
    CEILING.with(|cell| {
        if let Some(mut c) = cell.get() {
            c.left = c.left.saturating_add(signed(size));
            cell.set(Some(c));
        }
    })
}

/// A byte count as the ceiling's signed balance counts it (none is above `isize::MAX`).
fn signed(bytes: usize) -> isize {
    bytes.min(isize::MAX as usize) as isize
}

fn refused(c: Ceiling) {
    let refusal = Refusal::Ceiling { what: c.what, bytes: c.bytes };
    note(refusal);
    // A terminal program's last words: Rust prints only the failed size before it aborts.
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("error: {refusal}");
}

/// Passes the system's answer on, noting a refusal of `size` bytes.
fn noted(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        note(Refusal::System { bytes: size });
    }
    p
}

/// A new block of `size` bytes from `system`, if it fits this thread's ceiling; a refusal by
/// either is noted, and what the system refused is given back to the ceiling.
fn granted(size: usize, system: impl FnOnce() -> *mut u8) -> *mut u8 {
    if !take(size) {
        return std::ptr::null_mut();
    }
    let p = noted(system(), size);
    if p.is_null() {
        give(size);
    }
    p
}

unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        granted(layout.size(), || unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        granted(layout.size(), || unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        give(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !take(new_size - old) {
            return std::ptr::null_mut();
        }
        let p = noted(unsafe { System.realloc(ptr, layout, new_size) }, new_size);
        match (p.is_null(), new_size > old) {
            (true, true) => give(new_size - old),
            (false, false) => give(old - new_size),
            _ => {}
        }
        p
    }
}

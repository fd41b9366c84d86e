//! The team of threads a split pass runs on. The caller publishes one job at a time (a
//! function of a part number); it and the helpers taking part claim parts until none is
//! left, and the caller returns once every part is done. It never waits for a helper that
//! has no part: on a busy machine a helper may not run for milliseconds, and a caller that
//! waited for each helper to check in (a barrier) ran 6 times slower at 2 threads than at 1.
//!
//! Why not rayon's own scheduling: its idle workers park after a few rounds, and on the web
//! a parked worker wakes through `Atomics.wait`, which took longer than a decode matmul
//! (tens of microseconds): the caller had done both halves by the time the helper arrived,
//! and 2 threads ran no faster than 1. Here helpers spin between jobs, as a pass's matmuls
//! follow one another closely, and sleep on a condition variable only after about a
//! millisecond without work. Rayon still provides the threads: natively its global pool,
//! in the browser wasm-bindgen-rayon's Web Workers; each helper occupies one of them for good.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};

/// A claim ticket: the job's generation in the high half, the next part in the low half,
/// so that a helper still holding an older job can never claim a part of a newer one.
fn ticket(generation: usize, part: usize) -> u64 {
    ((generation as u64) << 32) | part as u64
}
use std::sync::{Condvar, Mutex, OnceLock};

/// Idle rounds before a helper of the last job sleeps: tens to hundreds of microseconds,
/// longer than the gaps between a pass's matmuls, shorter than the sampler's work between
/// two passes (it would take a core from the caller there). A helper that took no part
/// sleeps at once.
const SPINS: u32 = 1 << 14;
/// Helpers are numbered by a bit each in `Team::asleep`.
const MOST_HELPERS: usize = 63;

/// A job as the helpers see it: its function (its lifetime erased: `for_each_part` does not
/// return before every part is done, and a part is claimed only with the job's own
/// generation), its parts, and how many helpers take part (helper `i` does when `i < helpers`).
#[derive(Clone, Copy)]
struct Job {
    f: *const (dyn Fn(usize) + Sync),
    parts: usize,
    helpers: usize,
    generation: usize,
}

// SAFETY: `f` is `Sync`, and is only called while the caller of `for_each_part` keeps it alive.
unsafe impl Send for Job {}

struct Team {
    helpers: usize,
    /// One job at a time: callers on several threads (tests) take turns.
    turn: Mutex<()>,
    job: Mutex<Option<Job>>,
    generation: AtomicUsize,
    /// `ticket(generation, next part)`.
    next: AtomicU64,
    /// Parts of the current job done.
    done: AtomicUsize,
    panicked: AtomicBool,
    /// Helpers the newest job wants (helpers `0..wanted`).
    wanted: AtomicUsize,
    /// Bit i: helper i is asleep (or about to be).
    asleep: AtomicU64,
    sleep: Mutex<()>,
    wake: Condvar,
}

fn team() -> &'static Team {
    static TEAM: OnceLock<&'static Team> = OnceLock::new();
    TEAM.get_or_init(|| {
        let helpers = rayon::current_num_threads().saturating_sub(1).min(MOST_HELPERS);
        let team: &'static Team = Box::leak(Box::new(Team {
            helpers,
            turn: Mutex::new(()),
            job: Mutex::new(None),
            generation: AtomicUsize::new(0),
            next: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            wanted: AtomicUsize::new(0),
            asleep: AtomicU64::new(0),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
        }));
        for i in 0..helpers {
            rayon::spawn(move || help(team, i));
        }
        team
    })
}

/// The threads a job can use: the caller and every helper.
pub fn size() -> usize {
    team().helpers + 1
}

/// Calls `f(part)` for every part in `0..parts`, each once, on the caller and up to
/// `threads - 1` helpers; returns when all are done.
pub fn for_each_part(parts: usize, threads: usize, f: &(dyn Fn(usize) + Sync)) {
    let team = team();
    let helpers = threads.saturating_sub(1).min(team.helpers);
    if helpers == 0 || parts < 2 {
        return (0..parts).for_each(f);
    }
    let _turn = team.turn.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: only the lifetime is erased; `f` outlives the job (see `Job`).
    let f: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(f) };
    let generation = team.generation.load(Relaxed) + 1;
    *team.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(Job { f, parts, helpers, generation });
    team.done.store(0, Relaxed);
    team.next.store(ticket(generation, 0), Release);
    team.wanted.store(helpers, SeqCst);
    team.generation.store(generation, SeqCst);
    // Woken only when a helper this job wants is asleep (after an idle spell).
    if team.asleep.load(SeqCst) & ((1u64 << helpers) - 1) != 0 {
        let _sleep = team.sleep.lock().unwrap_or_else(|e| e.into_inner());
        team.wake.notify_all();
    }
    claim(team, Job { f, parts, helpers, generation });
    // Spinning, then yielding too: with more threads than cores (tests) a helper may need
    // this thread's core to finish its part.
    let mut rounds = 0u32;
    while team.done.load(Acquire) < parts {
        rounds += 1;
        if rounds < 1 << 10 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    if team.panicked.swap(false, Relaxed) {
        panic!("a thread of the engine's pool panicked");
    }
}

/// Runs parts of `job` until none is left, or a newer job has replaced it.
fn claim(team: &Team, job: Job) {
    let mut next = team.next.load(Acquire);
    loop {
        let part = (next & u64::from(u32::MAX)) as usize;
        if next >> 32 != job.generation as u64 || part >= job.parts {
            return;
        }
        match team.next.compare_exchange_weak(next, next + 1, AcqRel, Acquire) {
            Ok(_) => {
                // SAFETY: the part is this job's, and its caller waits until it is done.
                if catch_unwind(AssertUnwindSafe(|| unsafe { (*job.f)(part) })).is_err() {
                    team.panicked.store(true, Relaxed);
                }
                team.done.fetch_add(1, Release);
                next = team.next.load(Acquire);
            }
            Err(now) => next = now,
        }
    }
}

/// Helper `index`'s life: wait for a job it takes part in, work on it, say so, again.
fn help(team: &'static Team, index: usize) {
    let (mut seen, mut spins) = (0, 0);
    loop {
        seen = wait_for_job(team, index, seen, spins);
        let Some(job) = *team.job.lock().unwrap_or_else(|e| e.into_inner()) else { continue };
        seen = seen.max(job.generation);
        if index >= job.helpers {
            spins = 0;
            continue;
        }
        claim(team, job);
        spins = SPINS;
    }
}

/// Returns the generation of a job newer than `seen` that wants helper `index`: checking
/// `spins` times, then asleep.
fn wait_for_job(team: &Team, index: usize, seen: usize, spins: u32) -> usize {
    let ready = |order| {
        let generation = team.generation.load(order);
        (generation != seen && index < team.wanted.load(order)).then_some(generation)
    };
    for _ in 0..spins {
        if let Some(generation) = ready(Acquire) {
            return generation;
        }
        std::hint::spin_loop();
    }
    let bit = 1u64 << index;
    let mut sleep = team.sleep.lock().unwrap_or_else(|e| e.into_inner());
    team.asleep.fetch_or(bit, SeqCst);
    let generation = loop {
        if let Some(generation) = ready(SeqCst) {
            break generation;
        }
        sleep = team.wake.wait(sleep).unwrap_or_else(|e| e.into_inner());
    };
    team.asleep.fetch_and(!bit, SeqCst);
    generation
}

// The multi-threaded engine worker's entry (a module worker, started by src/bridge.rs when
// the page is cross-origin isolated). scripts/build-threads.sh writes threads/worker.js and
// its wasm; starting it runs the worker's Rust `start`, which starts the thread pool and
// then says `Started`. The pool's workers import threads/worker.js themselves.
import init from "./threads/worker.js";

await init({ module_or_path: new URL("threads/worker_bg.wasm", import.meta.url) });

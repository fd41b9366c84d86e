// Starts the page's wasm. Trunk would inline this as a <script>; a file keeps the CSP at
// script-src 'self' (Trunk.toml: pattern_script). Names are fixed (filehash = false) and
// relative to this file, so the site works under any path (`trunk build --public-url`).
import init from "./app.js";

// Set in this tab while the page reloads to become cross-origin isolated (see `isolate`).
const RELOADED = "reloaded-for-isolation";
// How long a first visit waits for the service worker to take the page over.
const TAKEOVER_MS = 4000;

await isolate();
try {
  await init({ module_or_path: new URL("app_bg.wasm", import.meta.url) });
} catch (error) {
  const message = document.createElement("p");
  message.setAttribute("role", "alert");
  message.textContent = `The app could not start: ${error}. Reloading the page may help.`;
  document.body.prepend(message);
  throw error;
}

// Registers the service worker (public/sw.js: the offline shell, and the COOP/COEP headers
// that the engine's threads need, on everything it serves). A page that the host did not
// isolate and no service worker served yet (a first visit) waits for the worker to take it
// over, then reloads once so that its responses carry the headers. Reloads at most once per
// tab: the flag in sessionStorage is cleared only when isolation worked. Where the worker
// cannot run, the page starts unisolated and the engine uses one thread (src/threads.rs).
async function isolate() {
  if (!("serviceWorker" in navigator)) return;
  const registration = await navigator.serviceWorker
    .register(new URL("sw.js", import.meta.url))
    .catch((error) => console.warn("offline support is unavailable: the service worker did not register", error));
  const flags = sessionStore();
  if (self.crossOriginIsolated) return flags?.removeItem(RELOADED);
  const controlled = navigator.serviceWorker.controller !== null;
  const update = registration?.installing || registration?.waiting;
  if (!registration || !flags || flags.getItem(RELOADED) || (controlled && !update)) return;
  const tookOver = await new Promise((resolve) => {
    navigator.serviceWorker.addEventListener("controllerchange", () => resolve(true), { once: true });
    setTimeout(() => resolve(false), TAKEOVER_MS);
  });
  if (!tookOver) return;
  flags.setItem(RELOADED, "1");
  location.reload();
  await new Promise(() => {});
}

/** sessionStorage, or null where the browser refuses it. */
function sessionStore() {
  try {
    return self.sessionStorage;
  } catch {
    return null;
  }
}

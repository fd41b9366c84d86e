// Keeps the app shell so that, after one visit, the site opens and runs offline (also when
// installed and opened from the home screen). The model file is not handled here: the
// engine worker keeps it in its own Cache API entry.
//
// Network first, so an online visit always gets the newest build; the cache answers only
// when the network does not. Every navigation is answered with index.html: the app routes
// deep links (glossary#kv-cache) itself.
//
// Every URL is relative to this file, which sits at the site's base: the same worker
// serves a site deployed at / or under /some/path/ (trunk build --public-url).
//
// Cross-origin isolation, for the engine's threads (shared memory): every response this
// worker gives carries COOP/COEP, so a site on a host that cannot send headers (GitHub
// Pages) is isolated once this worker serves it (public/boot.js reloads the first visit
// once for that). Everything the site loads is its own, so `require-corp` blocks nothing.

// scripts/stamp-build.sh (Trunk.toml's post_build hook) puts the build's id here. A new
// deployment therefore changes this file, the browser installs the new worker, and the
// new worker replaces the old shell.
const BUILD = "__BUILD__";
const BASE = new URL("./", self.location).href;
// One cache per deployment (its base) and build; two sites on one origin keep their own.
const PREFIX = `shell ${BASE} `;
const CACHE = PREFIX + BUILD;
const MODELS = new URL("models/", BASE).href;
// Trunk writes these names (Trunk.toml: filehash = false; index.html lists the rest).
const SHELL = [
  "./",
  "boot.js",
  "app.js",
  "app_bg.wasm",
  "worker_loader.js",
  "worker.js",
  "worker_bg.wasm",
  "worker-threads.js",
  "threads/worker.js",
  "threads/worker_bg.wasm",
  "base.css",
  "controls.css",
  "lesson2.css",
  "lesson1.css",
  "lesson3.css",
  "favicon.svg",
  "manifest.webmanifest",
  "icons/icon-192.png",
  "icons/icon-512.png",
  "icons/maskable-512.png",
].map((file) => new URL(file, BASE).href);

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || !url.href.startsWith(BASE) || url.href.startsWith(MODELS)) {
    return;
  }
  const key = request.mode === "navigate" ? BASE : url.origin + url.pathname;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
        }
        return response;
      })
      .catch(() => caches.match(key).then((cached) => cached || Response.error()))
      .then(isolated),
  );
});

/** `response` with the cross-origin isolation headers (an error stays as it is). */
function isolated(response) {
  if (response.type === "error" || response.status === 0) return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

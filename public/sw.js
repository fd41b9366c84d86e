// Keeps the app shell so that, after one visit, the site opens and runs offline. The model
// file is not handled here: the engine worker keeps it in its own Cache API entry.
//
// Network first, so an online visit always gets the newest build; the cache answers only
// when the network does not. Every navigation is answered with index.html: the app routes
// deep links (/glossary#kv-cache) itself.

const CACHE = "shell-v1";
// Trunk writes these names (Trunk.toml: filehash = false; index.html lists the rest).
const SHELL = [
  "/",
  "/boot.js",
  "/app.js",
  "/app_bg.wasm",
  "/worker_loader.js",
  "/worker.js",
  "/worker_bg.wasm",
  "/base.css",
  "/controls.css",
  "/lesson2.css",
  "/lesson1.css",
  "/lesson3.css",
  "/favicon.svg",
];

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
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("shell-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/models/")) {
    return;
  }
  const key = request.mode === "navigate" ? "/" : url.pathname;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
        }
        return response;
      })
      .catch(() => caches.match(key).then((cached) => cached || Response.error())),
  );
});

// One browser session on the built site, as every test file opens it: dist/ served on
// 127.0.0.1, a fresh Chromium profile, and three records kept for the file's last checks:
// console errors, every request the browser made (pages, workers, the service worker),
// and Content-Security-Policy violations. A spy on the page's workers also records the
// protocol's message kinds both ways, so tests can count what the page asked for.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./browser.mjs";
import { serve } from "./static-server.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const MINUTE = 60_000;
export const READY = "[data-testid=model-status][data-state=ready]";

/** Runs in every page before its scripts. */
function spy() {
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  // [direction, request id, kind, time]: "out" for requests, "in" for responses.
  window.__protocol = [];
  const kind = (body) => (typeof body === "string" ? body : Object.keys(body ?? {})[0]);
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message?.body !== undefined) window.__protocol.push(["out", message.id, kind(message.body), performance.now()]);
    return post.call(this, message, ...rest);
  };
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", ({ data }) => {
        if (data?.body !== undefined) window.__protocol.push(["in", data.id, kind(data.body), performance.now()]);
      });
    }
  };
}

/**
 * Opens a session. `args` are extra Chromium flags, `cutAfter` goes to the server (see
 * static-server.mjs). Returns the page and the records, with `url(path)`, `foreign()`
 * (requests that left the origin) and `close()`.
 */
export async function openSession({ args = [], cutAfter } = {}) {
  const server = await serve(join(ROOT, "dist"), 0, { cutAfter });
  const browser = await launch({ args });
  const { context } = browser;
  const requests = [];
  const consoleErrors = [];
  context.on("request", (r) => requests.push({ url: r.url(), method: r.method(), body: r.postData() ?? "" }));
  await context.addInitScript(spy);
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => message.type() === "error" && consoleErrors.push(message.text()));
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  const origin = new URL(server.url).origin;
  return {
    server,
    browser,
    page,
    requests,
    consoleErrors,
    url: (path) => server.url + path,
    /** Requests to anywhere but the site's own origin (data: and blob: URLs stay in the tab). */
    foreign: () => requests.filter((r) => !/^(data|blob):/.test(r.url) && new URL(r.url).origin !== origin),
    /** The protocol's messages so far: [direction, id, kind, ms]. */
    protocol: () => page.evaluate(() => window.__protocol),
    cspViolations: () => page.evaluate(() => window.__cspViolations),
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

// One browser session on the built site, as every test file opens it: dist/ served on
// 127.0.0.1, a fresh Chromium profile, and three records kept for the file's last checks:
// console errors, every request the browser made (pages, workers, the service worker),
// and Content-Security-Policy violations. A spy on the page's workers also records the
// protocol's message kinds both ways, so tests can count what the page asked for.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./browser.mjs";
import { serve } from "./static-server.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const MINUTE = 60_000;
export const READY = "[data-testid=model-status][data-state=ready]";
/** The model status once a page has settled: ready where the page runs the model, idle (not
 * loaded, with an offer to load it) on the home page, the glossary and the reading list. */
export const SETTLED = `${READY}, [data-testid=model-status][data-state=idle]`;
/** On a page that does not load the model by itself: load it, and wait until it is ready. */
export async function loadModel(page, timeout = 2 * MINUTE) {
  await page.click("[data-testid=load-model]");
  await page.waitForSelector(READY, { timeout });
}

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
 * static-server.mjs); `dist` is the build to serve (relative to the checkout) and `base` the
 * path it is served under; `isolate: false` leaves out the COOP/COEP headers, and
 * `serviceWorkers: "block"` refuses service workers (see browser.mjs). Returns the page and the records, with `url(path)` (a site path
 * such as "/glossary" under the base), `foreign()` (requests that left the origin) and `close()`.
 */
export async function openSession({ args = [], cutAfter, dist = "dist", base = "/", isolate = true, serviceWorkers } = {}) {
  const server = await serve(join(ROOT, dist), 0, { cutAfter, base, isolate });
  const browser = await launch({ args, serviceWorkers });
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
    url: (path) => server.url + base.slice(0, -1) + path,
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

/**
 * The page's engine workers: Trunk's single-threaded loader, or the multi-threaded module
 * (the test server isolates the page, so usually that one), never its pool's workers.
 */
export const engineWorkers = (page) => page.workers().filter((w) => /\/(worker_loader|worker-threads)\.js$/.test(w.url()));
/** Waits until the model named `name` is loaded (the model status names it, ready). */
export async function modelLoaded(page, name, timeout = 3 * MINUTE) {
  await page.waitForFunction(
    (name) => document.querySelector("[data-testid=model-status]")?.dataset.state === "ready" &&
      document.querySelector("[data-testid=model-name]")?.textContent === name,
    name,
    { timeout },
  );
}

/** The engine worker now running: one stopped a moment ago (a cancelled load) may still be listed before it. */
export const engineWorker = (page) => engineWorkers(page).at(-1);

/** Sets the playground's temperature to 0 (greedy) from the keyboard: the same text every run. */
export async function playgroundGreedy(page) {
  await page.focus("[data-testid=temperature]");
  await page.keyboard.press("Home");
  assert.equal(await page.inputValue("[data-testid=temperature]"), "0");
}

/** Ticks exactly Lesson 3's strategies whose values `chosen` lists, and no other. */
export async function chooseStrategies(page, chosen) {
  for (const box of await page.$$("[data-testid=strategy] input[type=checkbox]")) {
    await box.setChecked(chosen.includes(await box.getAttribute("value")));
  }
}

/**
 * Starts a new playground conversation if the page has one. It waits for Send to be
 * enabled first: that is when the model is loaded and the saved conversation has been read,
 * so a conversation restored a moment later cannot slip in after the check.
 */
export async function newConversation(page) {
  await page.waitForSelector("[data-testid=generate]:enabled", { timeout: 2 * MINUTE });
  if (await page.isEnabled("[data-testid=new-conversation]")) await page.click("[data-testid=new-conversation]");
}

/**
 * Generates in the playground with its current settings, as the first message of a new
 * conversation (Send adds a turn to the one on the page): New conversation if there is one,
 * fills the prompt and the maximum, presses Send and waits for the summary. Resolves to
 * { output, tokens, summary }.
 */
export async function playgroundGenerate(page, prompt, maxTokens) {
  await newConversation(page);
  await page.fill("[data-testid=prompt]", prompt);
  await page.fill("[data-testid=max-tokens]", String(maxTokens));
  await page.click("[data-testid=generate]");
  await page.waitForSelector("[data-testid=summary]", { timeout: 2 * MINUTE });
  const summary = await page.textContent("[data-testid=summary]");
  const output = await page.textContent("[data-testid=output]");
  return { output, tokens: Number(summary.match(/^(\d+) tokens/)[1]), summary };
}

/** Greedy generation in the playground (temperature 0, then `playgroundGenerate`); resolves to the output text. */
export async function playgroundGreedyText(page, prompt, maxTokens) {
  await playgroundGreedy(page);
  return (await playgroundGenerate(page, prompt, maxTokens)).output;
}

/** Sets an input as a learner's drag or typing does: its value, then an `input` event. */
export const setInput = (page, testid, value) =>
  page.$eval(`[data-testid=${testid}]`, (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }, value);

/** A session with `path` open and the model loaded: where each lesson's tests start. */
export async function openReady(path) {
  const session = await openSession();
  await session.page.goto(session.server.url + path);
  await session.page.waitForSelector(READY, { timeout: 3 * MINUTE });
  return session;
}

/** Waits until Lesson 2's `panel` (and any chain it started) is idle: Stop off, Run on. */
export async function stagesPanelIdle(page, panel, timeout = 2 * MINUTE) {
  await page.waitForSelector(`[data-testid=${panel}-stop]:disabled`, { timeout });
  await page.waitForSelector(`[data-testid=${panel}-run]:enabled`, { timeout });
}

const AXE = readFileSync(join(ROOT, "tests/node_modules/axe-core/axe.min.js"), "utf8");

/**
 * Runs axe-core on the page as it is now and fails on any serious or critical violation,
 * listing each rule with up to three of the elements it found. `where` names the state.
 * (Injected through the debugging protocol, which the page's CSP does not govern.)
 */
export async function assertAccessible(page, where) {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const { violations } = await window.axe.run(document, { resultTypes: ["violations"] });
    return violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.length}× e.g. ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
  });
  assert.deepEqual(violations, [], `axe-core on ${where}`);
}

/**
 * Presses Tab until the element matching `css` has the focus, as a keyboard user reaches
 * it; fails if it is not reached within `max` presses (it is then not in the tab order).
 */
export async function tabTo(page, css, max = 400) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((css) => document.activeElement?.matches(css), css)) return;
    await page.keyboard.press("Tab");
  }
  assert.fail(`${css} was not reached with ${max} presses of Tab`);
}

// The smoke suite, the same steps in each browser engine (engines.mjs; one test file per
// engine, smoke-*.test.mjs): the model's first load and its load from the cache, a
// playground answer kept across a reload (IndexedDB), Lesson 1's distribution and a slider move, Lesson 2's timeline, a small
// Lesson 3 run, a glossary tooltip (on hover), and the same-origin rule. Reading and waiting run in the
// page through `evaluate`, so every engine runs exactly the same checks. Timeouts are
// generous (a loaded 2-core machine), and no assertion is about time.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { open } from "./engines.mjs";
import { MINUTE, READY, ROOT } from "./session.mjs";
import { serve } from "./static-server.mjs";

const id = (testid) => `[data-testid=${testid}]`;

/**
 * The suite in `engine`. `isolate: false` serves without COOP/COEP (a host that cannot send
 * headers); `serviceWorkers: "block"` (Chromium only) then leaves the page unisolated, on
 * one thread.
 */
export function smoke(engine, { isolate = true, serviceWorkers } = {}) {
  let server, browser;
  const url = (path) => server.url + path;

  /** Polls `fn(arg)` in the page until it returns something truthy; returns that. */
  async function until(what, fn, arg, ms = 3 * MINUTE) {
    const end = Date.now() + ms;
    for (;;) {
      const value = await browser.evaluate(fn, arg).catch(() => null); // a page still loading
      if (value) return value;
      if (Date.now() > end) {
        const status = await browser.evaluate(() => document.querySelector("[data-testid=model-status]")?.textContent ?? document.body?.innerText.slice(0, 300)).catch((e) => String(e));
        throw new Error(`${engine}: timed out waiting for ${what}; the page says: ${status}`);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  const waitFor = (css, ms) => until(css, (css) => document.querySelector(css) !== null, css, ms);
  const text = (css) => browser.evaluate((css) => document.querySelector(css)?.textContent ?? null, css);
  /** Sets inputs as a learner's typing does: a value, then an `input` event. */
  const set = (values) =>
    browser.evaluate((values) => {
      for (const [css, value] of Object.entries(values)) {
        const el = document.querySelector(css);
        el.value = String(value);
        el.dispatchEvent(new Event("input", { bubbles: true }));
        el.dispatchEvent(new Event("change", { bubbles: true }));
      }
    }, values);
  const ready = () => waitFor(READY, 4 * MINUTE);
  /** Moves through the menu, as a learner does (the app routes; the model stays loaded). */
  async function menu(path) {
    await browser.click(`nav a[href="${path}"]`);
    await until(`the page at ${path}`, (path) => location.pathname === path && document.querySelector("main h1") !== null, path, MINUTE);
  }

  before(async () => {
    server = await serve(join(ROOT, "dist"), 0, { isolate });
    browser = await open(engine, { serviceWorkers });
    console.log(`# ${engine}: ${browser.version}`);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test(`${engine}: first visit, the model downloads and becomes ready`, { timeout: 5 * MINUTE }, async () => {
    await browser.goto(url("/playground"));
    await ready();
    assert.match(await text(id("model-status")), /Model ready.*downloaded/);
  });

  test(`${engine}: the engine's threads match the page's isolation, and say so`, { timeout: MINUTE }, async () => {
    const isolated = await browser.evaluate(() => crossOriginIsolated);
    // The worker answers `Threads` once it has started (data-max is 0 until then).
    const line = await until("the engine's thread count", () => {
      const el = document.querySelector("[data-testid=engine-threads]");
      return el && el.dataset.max !== "0" && { text: el.textContent, max: Number(el.dataset.max) };
    });
    console.log(`# ${engine}: ${isolated ? "cross-origin isolated" : "not isolated"}; ${line.text}`);
    // Isolated: the threaded worker, or the single-threaded one after it failed to start, said so.
    if (isolated) assert.match(line.text, /of \d+ threads \(cross-origin isolated\)|1 thread, because the multi-threaded engine could not start/);
    else assert.deepEqual([line.max, /^Engine: 1 thread, because this page is not cross-origin isolated/.test(line.text)], [1, true]);
    if (serviceWorkers === "block") assert.equal(isolated, false);
  });

  test(`${engine}: the playground answers, greedily`, { timeout: 5 * MINUTE }, async () => {
    await menu("/playground");
    await set({ [id("temperature")]: 0, [id("prompt")]: "What is the capital of France?", [id("max-tokens")]: 16 });
    await browser.click(id("generate"));
    await waitFor(id("summary"));
    assert.match(await text(id("output")), /Paris/);
    assert.match(await text(id("summary")), /^\d+ tokens/);
  });

  test(`${engine}: the conversation is kept in the browser (IndexedDB): a reload shows it`, { timeout: 5 * MINUTE }, async () => {
    const answer = await text(id("output"));
    await browser.goto(url("/playground"));
    await waitFor(id("summary"));
    assert.equal(await text(id("output")), answer);
    assert.equal(await text(`${id("save-error")}`), null, "saved without an error");
  });

  test(`${engine}: Lesson 1 draws the distribution, and a slider move redraws it`, { timeout: 5 * MINUTE }, async () => {
    await menu("/learn/generation");
    await waitFor(id("prob-bar"));
    const bars = () =>
      browser.evaluate(() => [...document.querySelectorAll("[data-testid=prob-bar]")].map((b) => Number(b.dataset.softmax)));
    const before = await bars();
    assert.ok(before.length >= 2, `${before.length} candidates`);
    assert.ok(before.every((p, i) => p >= 0 && p <= 1 && (i === 0 || p <= before[i - 1])), `probabilities in [0, 1], most likely first: ${before}`);
    await set({ [id("temperature")]: 1.9 });
    // A higher temperature flattens the distribution: the top candidate loses probability.
    await until("the bars to redraw at T = 1.9", (first) => {
      const top = Number(document.querySelector("[data-testid=prob-bar]")?.dataset.softmax);
      return top < first;
    }, before[0]);
    // The lesson's first formula is laid out as mathematics: p_i, then the fraction beside
    // it, not over it (Chromium drew the fraction across the whole line when the page made
    // <math> a plain block).
    const formula = await browser.evaluate(() => {
      const m = document.querySelector(".prose math");
      const box = (el) => el.getBoundingClientRect();
      return { math: box(m).width, sub: box(m.querySelector("msub")).right, frac: box(m.querySelector("mfrac")).left, fracWidth: box(m.querySelector("mfrac")).width };
    });
    assert.ok(formula.sub <= formula.frac, `p_i ends before the fraction begins: ${JSON.stringify(formula)}`);
    assert.ok(formula.fracWidth < formula.math / 2, `the fraction is as wide as its terms, not the line: ${JSON.stringify(formula)}`);
  });

  test(`${engine}: Lesson 2's timeline comes from a real run`, { timeout: 5 * MINUTE }, async () => {
    await menu("/learn/stages");
    await waitFor(id("timeline-run"));
    await set({ [id("timeline-max-tokens")]: 6 });
    await until("Run to be enabled", () => !document.querySelector("[data-testid=timeline-run]").disabled);
    await browser.click(id("timeline-run"));
    await until("the timeline's run to end", () =>
      document.querySelector("[data-testid=timeline-stop]")?.disabled && !document.querySelector("[data-testid=timeline-run]")?.disabled &&
      document.querySelectorAll("[data-testid=timeline] rect").length > 0);
    assert.equal(await browser.evaluate(() => document.querySelectorAll("[data-testid=timeline] rect").length), 6, "one block for the prefill, one per later token");
    assert.notEqual((await text(id("timeline-output"))).trim(), "");
  });

  test(`${engine}: a one-task Lesson 3 run finishes`, { timeout: 5 * MINUTE }, async () => {
    await menu("/learn/reasoning");
    await waitFor(id("run-experiment"));
    await browser.evaluate(() => {
      const category = document.querySelector("[data-testid=category]");
      category.value = "";
      category.dispatchEvent(new Event("change", { bubbles: true }));
      for (const box of document.querySelectorAll("[data-testid=strategy] input[type=checkbox]")) {
        if (box.checked !== (box.value === "direct")) box.click();
      }
    });
    await set({ [id("limit")]: 1 });
    await browser.click(id("run-experiment"));
    const state = await until("the run to end", () => {
      const s = document.querySelector("[data-testid=run-status]")?.dataset.state;
      return s && s !== "running" && s;
    });
    assert.equal(state, "finished");
  });

  test(`${engine}: a glossary term shows its definition when the pointer rests on it`, { timeout: 2 * MINUTE }, async () => {
    // Hover, not focus: a headless Firefox window never has the system's focus, and Gecko
    // then matches no :focus. Focus is tested in Chromium (app.test.mjs, a11y.test.mjs).
    const term = '.term a[href="glossary#kv-cache"]';
    await menu("/learn/stages");
    await waitFor(term);
    const tip = () =>
      browser.evaluate((term) => {
        const tip = document.querySelector(term).closest(".term").querySelector(".term-tip");
        return { shown: getComputedStyle(tip).display !== "none" && tip.getClientRects().length > 0, text: tip.textContent };
      }, term);
    assert.equal((await tip()).shown, false, "hidden at first");
    await browser.hover(term);
    const shown = await until("the tip to show", (term) => {
      const tip = document.querySelector(term).closest(".term").querySelector(".term-tip");
      return getComputedStyle(tip).display !== "none";
    }, term, MINUTE);
    assert.ok(shown);
    assert.match((await tip()).text, /KV cache/);
  });

  test(`${engine}: the next visit loads the model from the browser's cache`, { timeout: 5 * MINUTE }, async () => {
    await browser.goto(url("/playground"));
    await ready();
    assert.match(await text(id("model-status")), /from this browser's cache/);
  });

  test(`${engine}: the same-origin rule: everything came from the site, and the CSP refuses anything else`, { timeout: MINUTE }, async () => {
    const foreign = await browser.evaluate(() =>
      performance.getEntriesByType("resource").map((e) => e.name).filter((u) => !/^(data|blob):/.test(u) && new URL(u).origin !== location.origin),
    );
    assert.deepEqual(foreign, []);
    const refused = await browser.evaluate(async () => {
      const violation = new Promise((resolve) => document.addEventListener("securitypolicyviolation", (e) => resolve(e.violatedDirective), { once: true }));
      const fetched = await fetch("http://192.0.2.1/elsewhere.json").then(() => "fetched", (e) => e.name);
      return { fetched, violation: await Promise.race([violation, new Promise((r) => setTimeout(() => r("no violation reported"), 5000))]) };
    });
    assert.equal(refused.fetched, "TypeError", "the foreign fetch failed");
    assert.match(refused.violation, /^connect-src|^default-src/);
  });
}

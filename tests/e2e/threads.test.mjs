// The engine's threads in the browser: the multi-threaded worker where the page is
// cross-origin isolated (by the host's headers, or by the service worker's after one
// reload), the single-threaded one where it cannot be, said so; the same greedy text at
// every thread count.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MINUTE, openSession, playgroundGreedyText, READY, setInput } from "./session.mjs";

const PROMPT = "Name three primary colours.";
const TOKENS = 24;

/** The model status's thread line, once the worker has answered (data-max is 0 until then): { threads, max, text }. */
async function engineThreads(page) {
  await page.waitForFunction(() => document.querySelector("[data-testid=engine-threads]")?.dataset.max !== "0");
  const line = page.locator("[data-testid=engine-threads]");
  return { threads: Number(await line.getAttribute("data-threads")), max: Number(await line.getAttribute("data-max")), text: await line.innerText() };
}

const generate = (page) => playgroundGreedyText(page, PROMPT, TOKENS);

test("isolated by the host: the pool has min(cores, 8) threads, and the text is the same at each count", { timeout: 6 * MINUTE }, async () => {
  const session = await openSession();
  try {
    const { page } = session;
    await page.goto(session.url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const max = Math.min(cores, 8);
    const start = await engineThreads(page);
    assert.equal(start.max, max, start.text);
    assert.equal(start.threads, Math.max(1, max - 1), "the default leaves one core to the page");
    assert.match(start.text, new RegExp(`${start.threads} of ${max} threads`));

    const texts = {};
    for (const n of [...new Set([1, max])]) {
      await page.selectOption("[data-testid=threads-setting]", String(n));
      await page.waitForFunction((n) => document.querySelector("[data-testid=engine-threads]").dataset.threads === String(n), n);
      texts[n] = await generate(page);
    }
    assert.ok(texts[1].length > 20, texts[1]);
    assert.equal(texts[max], texts[1], "more threads changed the greedy text");
    // The choice is kept for the next visit.
    await page.reload();
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.equal((await engineThreads(page)).threads, max);
    assert.deepEqual(session.consoleErrors, []);
  } finally {
    await session.close();
  }
});

test("Lesson 2 measures the same run at each thread count, then sets the learner's count back", { timeout: 6 * MINUTE }, async () => {
  const session = await openSession();
  try {
    const { page } = session;
    await page.goto(session.url("/learn/stages"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    const before = await engineThreads(page);
    await setInput(page, "timeline-max-tokens", 8);
    await page.click("[data-testid=threads-run]");
    await page.waitForFunction(
      (max) => document.querySelectorAll("[data-testid=threads-table] tbody tr").length === max && !document.querySelector("[data-testid=threads-run]").disabled,
      before.max,
      { timeout: 4 * MINUTE },
    );
    const rows = await page.$$eval("[data-testid=threads-table] tbody tr", (trs) =>
      trs.map((tr) => ({ threads: Number(tr.dataset.threads), cells: [...tr.querySelectorAll("td")].map((td) => td.textContent) })),
    );
    assert.deepEqual(rows.map((r) => r.threads), Array.from({ length: before.max }, (_, i) => i + 1));
    for (const { cells } of rows) {
      for (const cell of cells.slice(0, 2)) assert.ok(Number.parseFloat(cell) > 0, `a speed: ${cell}`);
    }
    assert.equal(rows[0].cells[2], "1.00×", "the first row is the baseline");
    await page.waitForFunction((n) => document.querySelector("[data-testid=engine-threads]").dataset.threads === String(n), before.threads);
    assert.deepEqual(session.consoleErrors, []);
  } finally {
    await session.close();
  }
});

test("no isolation and no service worker: one thread, said why, and the app works", { timeout: 4 * MINUTE }, async () => {
  const session = await openSession({ isolate: false, serviceWorkers: "block" });
  try {
    const { page } = session;
    await page.goto(session.url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.equal(await page.evaluate(() => crossOriginIsolated), false);
    const t = await engineThreads(page);
    assert.deepEqual([t.threads, t.max], [1, 1]);
    assert.match(t.text, /1 thread, because this page is not cross-origin isolated.*service worker/);
    assert.equal(await page.isDisabled("[data-testid=threads-setting]"), true);
    assert.match(await page.textContent("#engine-threads-hint"), /One thread: this page is not cross-origin isolated/);
    assert.ok((await generate(page)).length > 20);
    // The single-threaded worker ran: Trunk's loader, never the threaded module.
    const urls = session.requests.map((r) => new URL(r.url).pathname);
    assert.ok(urls.includes("/worker_loader.js"));
    assert.ok(!urls.includes("/worker-threads.js"));
  } finally {
    await session.close();
  }
});

test("no headers from the host: the service worker isolates the page after exactly one reload", { timeout: 4 * MINUTE }, async () => {
  const session = await openSession({ isolate: false });
  try {
    const { page } = session;
    let loads = 0;
    page.on("load", () => loads++);
    await page.goto(session.url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.equal(loads, 2, "the first visit reloads once");
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    assert.match((await engineThreads(page)).text, /of \d threads \(cross-origin isolated\)/);
    // A later visit is served by the worker at once: no more reloads.
    await page.reload();
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.equal(loads, 3);
    assert.equal(await page.evaluate(() => sessionStorage.getItem("reloaded-for-isolation")), null);
  } finally {
    await session.close();
  }
});

/** The playground's decode-loop choice, once the worker has made one: { measured, threads, families: [{ family, chosen, default, best: {loop: ms}, noise }] }. */
async function kernels(page, threads) {
  await page.waitForFunction((t) => document.querySelector("[data-testid=kernels]")?.dataset.threads === String(t), threads, { timeout: MINUTE });
  return page.$eval("[data-testid=kernels]", (k) => ({
    measured: k.dataset.measured,
    threads: Number(k.dataset.threads),
    families: [...k.querySelectorAll("[data-testid=kernels-family]")].map((r) => ({
      family: r.dataset.family,
      chosen: r.dataset.chosen,
      default: r.dataset.default,
      noise: Number(r.dataset.noise),
      best: Object.fromEntries(r.dataset.bestMs.split(",").map((p) => p.split(":")).map(([l, ms]) => [l, Number(ms)])),
    })),
  }));
}

const storedChoices = (page) => page.evaluate(() => JSON.parse(localStorage.getItem("engine-kernel-choices") ?? "[]"));

test("decode's loops are timed at load, kept in the browser, reused on the next load and timed again for a new thread count", { timeout: 6 * MINUTE }, async () => {
  const session = await openSession();
  try {
    const { page } = session;
    await page.goto(session.url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    const start = await engineThreads(page);
    const first = await kernels(page, start.threads);
    assert.equal(first.measured, "true", "a new browser has no stored choice: the loops are timed");
    // The built-in SmolLM2 file: Q4_1 layers and a Q8_0 tied head.
    assert.deepEqual(first.families.map((f) => f.family).sort(), ["Q4_1", "Q8_0"]);
    for (const f of first.families) {
      const loops = Object.keys(f.best);
      assert.deepEqual(loops.sort(), ["one-row", "two-halves", "two-rows"], `${f.family}: every candidate timed`);
      const fastest = Math.min(...Object.values(f.best));
      // The rule of engine::quant::choice::pick: the fastest, or the default when within the rounds' spread of it.
      const keptDefault = f.chosen === f.default && f.best[f.default] <= fastest * (1 + f.noise);
      assert.ok(f.best[f.chosen] === fastest || keptDefault, `${f.family}: chose ${f.chosen} from ${JSON.stringify(f)}`);
    }
    const stored = await storedChoices(page);
    assert.equal(stored.length, 1);
    assert.equal(stored[0].key.threads, start.threads);
    assert.match(stored[0].key.model, /^[0-9a-f]{64}$/, "a built-in model is named by its SHA-256");

    await page.reload();
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    const again = await kernels(page, start.threads);
    assert.equal(again.measured, "false", "the stored choice is reused, not timed again");
    assert.deepEqual(again.families.map((f) => [f.family, f.chosen]), first.families.map((f) => [f.family, f.chosen]));

    if (start.max > 1) {
      const other = start.threads === 1 ? 2 : 1;
      await page.selectOption("[data-testid=threads-setting]", String(other));
      assert.equal((await kernels(page, other)).measured, "true", "a new thread count is timed");
      assert.deepEqual((await storedChoices(page)).map((c) => c.key.threads).sort(), [1, 2]);
      await page.selectOption("[data-testid=threads-setting]", String(start.threads));
      assert.equal((await kernels(page, start.threads)).measured, "false", "and back, the first count's choice is reused");
    }
    assert.deepEqual(session.consoleErrors, []);
  } finally {
    await session.close();
  }
});

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

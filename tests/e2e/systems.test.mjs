// Lesson 1's "temperature first or last" comparison and its table of systems' defaults, on
// the built site against the real model: both follow the sliders and the temperature-place
// control, the comparison's probabilities follow from the model's own logits, each system
// row cites its sources, a row's settings can be taken over, the controls are reachable by
// keyboard, and at 390 px neither widens the page.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MINUTE, assertAccessible, openSession, tabTo } from "./session.mjs";

const LESSON = "/learn/generation";
let session, server, page;

before(async () => {
  session = await openSession();
  ({ server, page } = session);
  await page.goto(server.url + LESSON);
  await page.waitForSelector("[data-testid=order-compare] [data-testid=kept-count]", { timeout: 3 * MINUTE });
});

after(() => session?.close());

/** Sets inputs as a learner does: a value, then `input` (sliders) or `change` (selects). */
async function set(values) {
  await page.evaluate((values) => {
    for (const [id, value] of Object.entries(values)) {
      const el = document.querySelector(`[data-testid=${id}]`);
      el.value = String(value);
      el.dispatchEvent(new Event(el.tagName === "SELECT" ? "change" : "input", { bubbles: true }));
    }
  }, values);
}

const side = (which) =>
  page.$eval(`[data-testid=order-compare] [data-order=${which}]`, (el) => ({
    kept: Number(el.querySelector("[data-testid=kept-count]").dataset.kept),
    listed: [...el.querySelectorAll("li")].map((li) => ({ id: Number(li.dataset.tokenId), prob: Number(li.dataset.prob) })),
  }));

/** Each token's raw logit, from the candidates' bars. */
const logits = () =>
  page.$$eval("[data-testid=prob-bar]", (els) => Object.fromEntries(els.map((el) => [el.dataset.tokenId, Number(el.dataset.logit)])));

test("temperature first and last: different sets at T = 2, probabilities ∝ exp(z / T) on both sides", { timeout: 2 * MINUTE }, async () => {
  await set({ shown: 100, temperature: 2, "top-k": 0, "top-p": 0.9, "min-p": 0, "repeat-penalty": 1 });
  await page.waitForFunction(() => /flatter/.test(document.querySelector("[data-testid=order-reason]").textContent));
  const [first, last, z] = [await side("first"), await side("last"), await logits()];
  assert.ok(first.kept > last.kept, `temperature first keeps ${first.kept}, last ${last.kept}: at T = 2 top-p needs more`);
  for (const s of [first, last]) {
    const [a, b] = s.listed;
    assert.ok(a && b && z[a.id] !== undefined && z[b.id] !== undefined);
    // Within the kept set the final probabilities are softmax(z / T), so their ratio is exp((z_a − z_b) / T).
    assert.ok(Math.abs(a.prob / b.prob - Math.exp((z[a.id] - z[b.id]) / 2)) < 1e-3, JSON.stringify({ a, b }));
    const sumListed = s.listed.reduce((t, x) => t + x.prob, 0);
    assert.ok(sumListed <= 1 + 1e-5 && (s.kept > s.listed.length || Math.abs(sumListed - 1) < 1e-4));
  }
  // T = 1: the place of temperature cannot matter.
  await set({ temperature: 1 });
  await page.waitForFunction(() => /T = 1/.test(document.querySelector("[data-testid=order-reason]").textContent));
  assert.deepEqual(await side("first"), await side("last"));
});

test("the temperature-place control moves temperature in the stages, the URL and the comparison's reason", { timeout: MINUTE }, async () => {
  await set({ temperature: 2, "top-p": 0.9, "temperature-place": 3 });
  await page.waitForFunction(() => location.search.includes("order=top-k,top-p,min-p,temperature"));
  assert.match(await page.textContent("[data-stage=top-p] figcaption"), /sees T = 1/);
  await set({ "temperature-place": 0 });
  await page.waitForFunction(() => location.search.includes("order=temperature,top-k,top-p,min-p"));
  assert.doesNotMatch(await page.textContent("[data-stage=top-p] figcaption"), /sees T = 1/);
});

test("the systems table: one row per system from the live logits, each with its sources", { timeout: MINUTE }, async () => {
  const rows = await page.$$eval("[data-testid=systems-table] tbody tr", (trs) =>
    trs.map((tr) => ({
      system: tr.dataset.system,
      kept: Number(tr.dataset.kept),
      sources: [...tr.querySelectorAll("a")].map((a) => a.href),
      text: tr.textContent,
    })),
  );
  assert.deepEqual(rows.map((r) => r.system), ["hf", "llama.cpp", "vllm", "ollama", "openai"]);
  const kept = Object.fromEntries(rows.map((r) => [r.system, r.kept]));
  assert.equal(kept.hf, 1, "generate is greedy by default");
  assert.ok(kept["llama.cpp"] >= 1 && kept["llama.cpp"] <= 40 && kept.ollama <= 40);
  assert.equal(kept.vllm, 49152, "T = 1 and no cut keep the whole vocabulary");
  assert.equal(kept.openai, 49152);
  for (const r of rows) assert.ok(r.sources.length > 0 && r.sources.every((u) => u.startsWith("https://")), r.system);
  assert.match(rows.find((r) => r.system === "openai").text, /not documented/);
  // Ollama's GGUF models run on llama-server since 9db4bdb: llama.cpp's chain, temperature
  // last; its own earlier order is kept as history, dated.
  const ollama = rows.find((r) => r.system === "ollama");
  assert.match(ollama.text, /top-k → top-p → min-p → temperature/);
  assert.match(ollama.text, /9db4bdb/);
  assert.match(ollama.text, /until 2026-05-29/);
  assert.ok(ollama.sources.some((u) => u.includes("llm/llama_server.go")));
  // Top-k ties: where the systems differ is said in their rows.
  assert.match(rows.find((r) => r.system === "hf").text, /tied with the k-th/);
  assert.match(rows.find((r) => r.system === "llama.cpp").text, /partial_sort/);

  // Taking a row's settings moves the sliders and temperature's place.
  await page.click("[data-system='llama.cpp'] [data-testid=use-system]");
  await page.waitForFunction(() => document.querySelector("[data-testid=temperature-place]").value === "3");
  assert.equal(await page.inputValue("[data-testid=temperature]"), "0.8");
  assert.equal(await page.inputValue("[data-testid=top-k]"), "40");
  const llama = await page.getAttribute("[data-system='llama.cpp']", "data-kept");
  assert.equal(Number(llama), (await side("last")).kept, "the comparison's temperature-last side is llama.cpp's set");
});

test("the order controls and the table are reachable by keyboard, and pass axe", { timeout: MINUTE }, async () => {
  await page.focus("[data-testid=temperature]");
  await tabTo(page, "[data-testid=temperature-place]");
  await page.keyboard.press("ArrowUp");
  await page.waitForFunction(() => document.querySelector("[data-testid=temperature-place]").value === "2");
  await tabTo(page, "[data-system=hf] [data-testid=use-system]");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector("[data-testid=temperature]").value === "0");
  await assertAccessible(page, "lesson 1 with the order comparison and the systems table");
});

test("at 390 px the comparison and the table do not widen the page", { timeout: MINUTE }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const sel of ["[data-testid=order-compare]", "[data-testid=systems-table]"]) {
    await page.locator(sel).scrollIntoViewIfNeeded();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${sel}: the page is ${width} px wide`);
  }
});

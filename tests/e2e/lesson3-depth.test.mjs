// Lesson 3's depth panels (issue 22, "depth, not length") on the built site: a run with
// "Measure depth" scores every chain-of-thought and self-consistency trace in the browser's
// worker, and the scatter, the correlations, the coloured trace and Think@n show numbers
// from that run, recomputed when g, ρ or P move; the trace works from the keyboard; the
// panels fit 390 px and pass axe-core.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertAccessible, chooseStrategies, MINUTE, openSession, READY, setInput, tabTo } from "./session.mjs";

let session, server, page;

before(async () => {
  session = await openSession();
  ({ server, page } = session);
});

after(() => session?.close());

const sel = (testid) => `[data-testid=${testid}]`;

/** Every point of the scatter as { tokens, dtr, correct }. */
const points = () =>
  page.$$eval(`${sel("depth-point")}`, (gs) =>
    gs.map((g) => ({ tokens: Number(g.dataset.tokens), dtr: Number(g.dataset.dtr), correct: g.dataset.correct })),
  );

/** Pearson's r of xs and ys, or null when either does not vary. */
function pearson(xs, ys) {
  const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
  const [mx, my] = [mean(xs), mean(ys)];
  let [sxy, sxx, syy] = [0, 0, 0];
  xs.forEach((x, i) => {
    sxy += (x - mx) * (ys[i] - my);
    sxx += (x - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  });
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

test("a run with depth shows every trace's tokens against its DTR, from that run", { timeout: 12 * MINUTE }, async (t) => {
  await page.goto(server.url + "/learn/reasoning");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  // Depth is an option of a run, off by default.
  assert.equal(await page.isChecked(sel("depth-option")), false);
  await chooseStrategies(page, ["cot", "self-consistency"]);
  await page.fill(sel("limit"), "2");
  await page.fill(sel("seed"), "7");
  await page.fill(sel("samples"), "3");
  await setInput(page, "budget", 32);
  await page.check(sel("depth-option"));
  await page.click(sel("run-experiment"));
  await page.waitForSelector(`${sel("run-status")}:not([data-state=running])`, { timeout: 10 * MINUTE });
  assert.equal(await page.getAttribute(sel("run-status"), "data-state"), "finished");

  // 2 chain-of-thought traces and 2 × 3 samples, each a point with measured figures.
  const all = await points();
  assert.equal(all.length, 8, JSON.stringify(all));
  for (const p of all) {
    assert.ok(p.tokens >= 1 && p.tokens <= 32 + 32, JSON.stringify(p));
    assert.ok(p.dtr >= 0 && p.dtr <= 1, JSON.stringify(p));
    assert.ok(["true", "false"].includes(p.correct));
  }
  // A chain of thought's point carries its item's verdict.
  const cot = await page.$$eval(`${sel("item")} .outcome[data-strategy=cot]`, (els) => els.map((el) => el.dataset.correct));
  const cotPoints = await page.$$eval(`${sel("depth-point")}`, (gs) =>
    gs.filter((g) => /Chain of thought/.test(g.textContent)).map((g) => g.dataset.correct),
  );
  assert.deepEqual(cotPoints, cot);

  // The correlations are over the same N, from 2 tasks (the units the interval resamples),
  // and they are the points' own: Pearson's r with correct as 0/1, recomputed here.
  assert.equal(await page.getAttribute(sel("depth-correlation"), "data-n"), "8");
  assert.equal(await page.getAttribute(sel("depth-correlation"), "data-tasks"), "2");
  const ones = all.map((p) => (p.correct === "true" ? 1 : 0));
  for (const [attribute, xs] of [["data-r-length", all.map((p) => p.tokens)], ["data-r-dtr", all.map((p) => p.dtr)]]) {
    const r = pearson(xs, ones);
    const shown = await page.getAttribute(sel("depth-correlation"), attribute);
    // The DTRs shown are rounded to 4 decimals: r agrees to about 1e-3.
    if (r === null) assert.equal(shown, "", `${attribute}: undefined here, ${shown} on the page`);
    else assert.ok(Math.abs(Number(shown) - r) < 2e-3, `${attribute}: ${r} here, ${shown} on the page`);
  }
  const verdict = await page.textContent(sel("depth-verdict"));
  assert.match(verdict, /^Length: this run (agrees|disagrees|cannot tell).* DTR: this run (agrees|disagrees|cannot tell)/);
  assert.match(await page.textContent(sel("depth-correlation")), /0\.683/);

  // What depth cost, measured on this run.
  const factor = Number(await page.getAttribute(sel("depth-cost"), "data-factor"));
  assert.ok(factor > 1 && factor < 50, `factor ${factor}`);
  t.diagnostic(`depth cost in the browser, this run: ${factor}x (${await page.textContent(sel("depth-cost"))})`);

  // g = 0: a token settles only where D is 0, the last layer, so every token is deep.
  await setInput(page, "depth-g", 0);
  assert.ok((await points()).every((p) => p.dtr === 1), JSON.stringify(await points()));
  await setInput(page, "depth-g", 0.5);
  assert.deepEqual(await points(), all, "back at the defaults, the same figures");
  // ρ = 0: every token is deep whatever g.
  await setInput(page, "depth-rho", 0);
  assert.ok((await points()).every((p) => p.dtr === 1));
  await setInput(page, "depth-rho", 0.85);
  assert.deepEqual(await points(), all);
});

/** Every point with its task, as { task, tokens, dtr, correct }. */
const taskPoints = () =>
  page.$$eval(`${sel("depth-point")}`, (gs) =>
    gs.map((g) => ({ task: g.dataset.task, tokens: Number(g.dataset.tokens), dtr: Number(g.dataset.dtr), correct: g.dataset.correct === "true" })),
  );

/** The study's binned r, written out again: a value's bin is floor(5 · values below it / n)
 * (ties share a bin), then Pearson over the non-empty bins' mean value and accuracy; none
 * under 3 bins. */
function binned(xs, ones) {
  const bins = Array.from({ length: 5 }, () => ({ n: 0, x: 0, c: 0 }));
  xs.forEach((x, i) => {
    const b = bins[Math.floor((5 * xs.filter((w) => w < x).length) / xs.length)];
    b.n += 1;
    b.x += x;
    b.c += ones[i];
  });
  const full = bins.filter((b) => b.n > 0);
  const r = full.length >= 3 ? pearson(full.map((b) => b.x / b.n), full.map((b) => b.c / b.n)) : null;
  return { r, n: full.length };
}

/** Student's t at 0.975 for df = 1 to 10 (the runs here have few tasks). */
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];

const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;

test("the binned r, the within-task difference, the lens baseline and Think@n's cost follow from the points shown", { timeout: MINUTE }, async () => {
  const all = await taskPoints();
  const ones = all.map((p) => (p.correct ? 1 : 0));
  const box = sel("depth-correlation");
  // Binned as the study does, for length and DTR: n (bins) and r recomputed from the points.
  for (const [name, xs] of [["length", all.map((p) => p.tokens)], ["dtr", all.map((p) => p.dtr)]]) {
    const { r, n } = binned(xs, ones);
    assert.equal(Number(await page.getAttribute(box, `data-bins-${name}`)), n, `${name}: bins`);
    const shown = await page.getAttribute(box, `data-r-binned-${name}`);
    if (r === null) assert.equal(shown, "", `${name}: undefined here, ${shown} on the page`);
    else assert.ok(Math.abs(Number(shown) - r) < 2e-3, `${name}: binned r ${r} here, ${shown} on the page`);
  }
  // The table says which r compares with the study's, and that its figures are binned.
  const table = await page.textContent(box);
  assert.match(table, /binned, the study reports/);
  assert.match(table, /per trace, this run/);

  // Within a task: per task with right and wrong traces, mean DTR right minus wrong.
  const tasks = [...new Set(all.map((p) => p.task))];
  const diffs = [];
  for (const t of tasks) {
    const right = all.filter((p) => p.task === t && p.correct).map((p) => p.dtr);
    const wrong = all.filter((p) => p.task === t && !p.correct).map((p) => p.dtr);
    if (right.length && wrong.length) diffs.push(mean(right) - mean(wrong));
  }
  const within = sel("depth-within");
  assert.equal(Number(await page.getAttribute(within, "data-n")), diffs.length);
  const [m, lo, hi] = await Promise.all(["data-mean", "data-lo", "data-hi"].map((a) => page.getAttribute(within, a)));
  if (diffs.length === 0) assert.deepEqual([m, lo, hi], ["", "", ""]);
  else assert.ok(Math.abs(Number(m) - mean(diffs)) < 2e-4, `within-task mean ${mean(diffs)} here, ${m} on the page`);
  if (diffs.length >= 2) {
    const k = diffs.length;
    const s = Math.sqrt(diffs.reduce((a, d) => a + (d - mean(diffs)) ** 2, 0) / (k - 1));
    const half = (T975[k - 2] * s) / Math.sqrt(k);
    assert.ok(Math.abs(Number(lo) - (mean(diffs) - half)) < 2e-3 && Math.abs(Number(hi) - (mean(diffs) + half)) < 2e-3, `${lo} to ${hi}`);
  } else assert.equal(lo, "");

  // The lens: the mean D by layer in bits for traces and prompts (30 layers, 0 at the last),
  // and the baseline, the prompts' own DTR (one prompt per task) beside the traces' mean.
  for (const attr of ["data-traces", "data-prompts"]) {
    const means = (await page.getAttribute(sel("depth-layers"), attr)).split(",").map(Number);
    assert.equal(means.length, 30, attr);
    assert.ok(means.every((d) => d >= 0 && d <= 1), `${attr}: ${means}`);
    assert.equal(means[29], 0, attr);
  }
  const baseline = sel("depth-baseline");
  assert.ok(Math.abs(Number(await page.getAttribute(baseline, "data-dtr-traces")) - mean(all.map((p) => p.dtr))) < 2e-4);
  const prompts = (await page.getAttribute(baseline, "data-prompt-dtrs")).split(",").map(Number);
  assert.equal(prompts.length, 2, "one prompt per task");
  assert.ok(prompts.every((d) => d >= 0 && d <= 1));
  assert.ok(Math.abs(Number(await page.getAttribute(baseline, "data-dtr-prompts")) - mean(prompts)) < 2e-4);
  assert.match(await page.textContent(sel("depth")), /Tuned Lens/);

  // D and g are in bits wherever they appear.
  assert.match(await page.textContent(sel("depth")), /g in bits/);
  assert.match(await page.textContent(sel("depth-peer")), /nats/);
  // Think@n's cost counts the depth pass; the p >= 0.05 sentence has no double negative.
  assert.ok(Number(await page.getAttribute(sel("think-cost"), "data-share")) > 0);
  assert.match(await page.textContent(sel("think-cost")), /depth on \d+ prefix tokens/);
  assert.doesNotMatch(await page.textContent(sel("think-summary")), /no difference chance does not explain/);
  assert.match(await page.textContent(sel("think-at-n")), /"matches or exceeds"/);
});

test("one trace is coloured by settling layer and shows each token's curve, by mouse and keyboard", { timeout: 2 * MINUTE }, async () => {
  const first = (await points())[0];
  const spans = page.locator(`${sel("depth-trace")} span`);
  assert.equal(await spans.count(), first.tokens);
  const settles = await spans.evaluateAll((ss) => ss.map((s) => Number(s.dataset.settle)));
  assert.ok(settles.every((c) => c >= 1 && c <= 30), JSON.stringify(settles));
  const deep = settles.filter((c) => c >= 26).length / settles.length;
  // data-dtr has 4 decimals.
  assert.ok(Math.abs(deep - first.dtr) <= 5e-5, `the colours (${deep}) and the point (${first.dtr}) agree`);

  await spans.nth(2).hover();
  assert.match(await page.textContent(sel("depth-token-detail")), /^Token 3 of /);
  // The trace is the focus stop after its choice of trace.
  await page.focus(sel("depth-trace-choice"));
  await tabTo(page, sel("depth-trace"), 2);
  await page.keyboard.press("Home");
  assert.match(await page.textContent(sel("depth-token-detail")), /^Token 1 of /);
  await page.keyboard.press("ArrowRight");
  const detail = page.locator(sel("depth-token-detail"));
  assert.match(await detail.textContent(), /^Token 2 of /);
  assert.equal(Number(await detail.getAttribute("data-settle")), settles[1]);
  assert.equal(await page.locator(".depth-curve polyline").count(), 1);

  // Another trace from the list.
  await page.selectOption(sel("depth-trace-choice"), "3");
  assert.equal(await spans.count(), (await points())[3].tokens);
});

test("Think@n compares with the plain vote on the same samples, for any P", { timeout: MINUTE }, async () => {
  const think = page.locator(sel("think-at-n"));
  assert.equal(await think.getAttribute("data-tasks"), "2");
  assert.equal(await think.locator("tbody tr").count(), 2);
  const before = await page.textContent(sel("think-summary"));
  assert.match(before, /On the same 2 tasks: .*McNemar p = [01]\.\d\d/);
  await page.fill(sel("think-prefix"), "1");
  assert.equal(await think.getAttribute("data-prefix"), "1");
  assert.match(await page.textContent(sel("think-summary")), /stopping the others after 1 token\./);
});

/** Removes `depth` from every saved Lesson 3 run in the browser's store, as a run saved
 * before depth was saved has none. */
const dropSavedDepth = () =>
  page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open("inference-playground", 1);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction("items", "readwrite");
          const items = tx.objectStore("items");
          const cursor = items.openCursor();
          cursor.onsuccess = () => {
            const c = cursor.result;
            if (!c) return;
            const record = typeof c.value === "string" ? JSON.parse(c.value) : null;
            if (record?.kind === "reasoning-run") {
              delete record.body.depth;
              c.update(JSON.stringify(record));
            }
            c.continue();
          };
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
        };
      }),
  );

test("a saved run reopened shows its depth panels; an older saved run without depth still opens", { timeout: 4 * MINUTE }, async () => {
  const all = await points();
  const correlation = await page.textContent(sel("depth-correlation"));
  await page.reload();
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("depth-point"));
  assert.deepEqual(await points(), all, "the same traces, the same figures");
  assert.equal(await page.textContent(sel("depth-correlation")), correlation);
  assert.equal(await page.getAttribute(sel("think-at-n"), "data-tasks"), "2");
  assert.equal(await page.locator(`${sel("depth-trace")} span`).count(), all[0].tokens);

  // A run saved before depth was saved has no `depth`: it opens, its depth panels empty.
  await dropSavedDepth();
  await page.reload();
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForSelector(`${sel("results-table")} tbody tr`);
  assert.equal(await page.getAttribute(sel("run-status"), "data-state"), "finished");
  assert.equal(await page.locator(sel("depth-point")).count(), 0);
  assert.equal(await page.$(sel("save-error")), null);
});

test("the depth panels fit 390 px, pass axe-core, and log no console errors", { timeout: MINUTE }, async () => {
  await assertAccessible(page, "Lesson 3 with depth");
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
  assert.deepEqual(session.consoleErrors, []);
});

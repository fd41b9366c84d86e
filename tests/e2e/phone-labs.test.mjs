// Lessons 2 and 3 on a phone (390 × 844), in Chromium: after a short real run of each lab,
// the page does not scroll sideways, and each lab's main control sits above its chart or
// table, or beside it, never below it nor more than a screen away. The serving simulator's
// controls are taller than the screen, so there its headline results stay on screen just
// below whichever control is in view. (Layout only: what the labs measure is tested in
// lesson2*.test.mjs and lesson3*.test.mjs.)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chooseStrategies, MINUTE, openSession, READY, setInput, stagesPanelIdle } from "./session.mjs";

const WIDTH = 390;
const HEIGHT = 844;

let session, page;

before(async () => {
  session = await openSession();
  ({ page } = session);
  await page.setViewportSize({ width: WIDTH, height: HEIGHT });
});

after(() => session?.close());

const id = (testid) => `[data-testid=${testid}]`;

/** The page's own width: more than the screen's means the page scrolls sideways. */
const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);

/** An element's box in page coordinates (so scrolling does not change it). */
const box = (css) =>
  page.$eval(css, (el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right, height: r.height };
  });

/**
 * The control is above the chart (its bottom at or above the chart's top) or beside it (the
 * two overlap in height), and the chart begins within one screen of the control's bottom.
 */
async function controlNearChart(control, chart) {
  const [c, t] = [await box(control), await box(chart)];
  assert.ok(t.height > 0, `${chart} is drawn`);
  const above = c.bottom <= t.top + 1;
  const beside = c.top < t.bottom && t.top < c.bottom;
  assert.ok(above || beside, `${control} (${c.top}-${c.bottom}) is above or beside ${chart} (${t.top}-${t.bottom})`);
  assert.ok(t.top - c.bottom < HEIGHT, `${chart} starts ${t.top - c.bottom} px below ${control}: more than a screen`);
}

/** Clicks a Lesson 2 panel's Run and waits until it (and any chain it started) is idle. */
async function run(panel) {
  await page.click(id(`${panel}-run`));
  await stagesPanelIdle(page, panel, 3 * MINUTE);
}

test("Lesson 2: each lab, run briefly, keeps its controls above or beside its results, and the page its width", { timeout: 10 * MINUTE }, async () => {
  await page.goto(session.url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 3 * MINUTE });
  assert.ok((await pageWidth()) <= WIDTH, "before any run");

  await page.fill(id("timeline-max-tokens"), "8");
  await run("timeline");
  await controlNearChart(id("timeline-run"), id("timeline"));
  await controlNearChart(id("timeline-run"), id("token-latency-chart"));

  await run("threads");
  await controlNearChart(id("threads-run"), id("threads-table"));

  // Two prompt lengths of the sweep are enough to draw it.
  await page.click(id("sweep-run"));
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=sweep-table] tbody tr").length >= 2, null, { timeout: 2 * MINUTE });
  await page.click(id("sweep-stop"));
  await stagesPanelIdle(page, "sweep");
  await controlNearChart(id("sweep-run"), id("sweep-chart"));

  await page.fill(id("cache-max-tokens"), "8");
  await run("cache");
  await controlNearChart(id("kv-cache-toggle"), id("cache-chart"));
  await controlNearChart(id("cache-run"), id("cache-chart"));

  await run("turn1");
  await run("turn2");
  await controlNearChart(id("turn2-run"), id("reuse-tokens"));

  await run("inside");
  await controlNearChart(id("inside-run"), id("attention-map"));
  await controlNearChart(id("attention-head"), id("attention-map"));

  await controlNearChart(id("capacity-length"), id("capacity-answer"));

  await page.fill(id("pass-drawing-tokens"), "16");
  await run("pass-drawing");
  await controlNearChart(id("pass-drawing-run"), `${id("pass-drawing")} .pass-part`);

  await run("pass-cost");
  await controlNearChart(id("pass-cost-run"), id("pass-cost-chart"));

  await page.fill(id("spec-max-tokens"), "16");
  await run("spec");
  await controlNearChart(id("spec-run"), id("spec-speedup"));

  await run("serving");
  await controlNearChart(id("serving-run"), id("serving-ttft"));
  // The simulator's controls run past the screen: whichever is in view, its results are on
  // the screen below it.
  for (const control of ["serving-requests", "serving-memory", "serving-context-parallel"]) {
    await page.$eval(id(control), (el) => el.scrollIntoView({ block: "start" }));
    const [c, r] = await page.evaluate(
      (ids) => ids.map((t) => document.querySelector(`[data-testid=${t}]`).getBoundingClientRect().toJSON()),
      [control, "serving-ttft"],
    );
    assert.ok(r.top >= c.bottom && r.bottom <= HEIGHT, `${control} at ${c.top}-${c.bottom}: the time to first token at ${r.top}-${r.bottom}, on screen below it`);
  }

  assert.ok((await pageWidth()) <= WIDTH, "after every run");
  assert.deepEqual(session.consoleErrors, []);
});

test("Lesson 3: after a short run, each part of its evidence has its way back to the controls above it, and the page its width", { timeout: 10 * MINUTE }, async () => {
  await page.goto(session.url("/learn/reasoning"));
  await page.waitForSelector(READY, { timeout: 3 * MINUTE });
  assert.ok((await pageWidth()) <= WIDTH, "before the run");

  // Every kind of evidence, on two tasks: three strategies, the sweep, depth, faithfulness.
  await chooseStrategies(page, ["direct", "cot", "self-consistency"]);
  await page.fill(id("limit"), "2");
  await page.fill(id("samples"), "3");
  await setInput(page, "budget", 16);
  for (const option of ["sweep-option", "depth-option", "faithfulness-option"]) await page.setChecked(`${id(option)}`, true);
  await page.click(id("run-experiment"));
  await page.waitForSelector(`${id("run-status")}[data-state=finished]`, { timeout: 8 * MINUTE });
  await controlNearChart(id("run-experiment"), id("experiment-progress"));

  // Each part's first chart or table (its first figure where it has none).
  const parts = {
    budget: `${id("budget-sweep")} svg`,
    strategies: id("results-table"),
    checker: id("item"),
    depth: id("length-chart"),
    faithfulness: id("faithfulness"),
    "small-model": id("paired-comparison"),
    sampling: id("scaling-chart"),
    repeat: id("cli-commands"),
  };
  for (const [part, chart] of Object.entries(parts)) {
    const section = `${id("evidence")}[data-part="${part}"]`;
    await controlNearChart(`${section} ${id("run-link")}`, `${section} ${chart}`);
  }
  await controlNearChart(id("depth-g"), id("depth-scatter"));
  await controlNearChart(id("depth-trace-choice"), id("depth-trace"));
  await controlNearChart(id("think-prefix"), `${id("think-at-n")} table`);

  assert.ok((await pageWidth()) <= WIDTH, "after the run");
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), [], "no request left the origin");
});

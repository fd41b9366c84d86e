// The cost of depth in the browser (issue 22: a run with depth at or under 5× the time of the
// same run without it): Lesson 3's run in the built app (dist/), with its default settings,
// once without "Measure depth" and once with it, round after round in one page, each timed
// from Run to finished. A first short run warms the worker (its wasm is compiled in tiers).
// Both runs of a round must show the same results (the strategies are greedy or seeded), so
// they did the same work but the scoring. Also the page's own figure (`depth-cost`: the
// scored traces' writing time and their scoring time, measured in the worker).
//
//   node bench/depth.mjs [--rounds 1] [--limit N] [--self-consistency] [--budget N]
//
// --self-consistency adds the strategy to the default run (its N samples of a task share a
// prompt, which depth prefills once). The last stdout line is the JSON summary.
import { loadavg } from "node:os";
import { chooseStrategies, MINUTE, READY, openSession, setInput } from "../tests/e2e/session.mjs";
import { cpuModel } from "./report.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ROUNDS = opt("rounds", 1);
// Absent: the page's default number of tasks.
const LIMIT = opt("limit", null);
const BUDGET = opt("budget", null);
const SELF_CONSISTENCY = args.includes("--self-consistency");
if (!(ROUNDS >= 1 && ROUNDS <= 20)) throw new Error("--rounds must be 1 to 20");
if (LIMIT !== null && !(LIMIT >= 1)) throw new Error("--limit must be at least 1");

const sel = (testid) => `[data-testid=${testid}]`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the experiment the form holds, with depth on or off; its wall-clock time and results. */
async function run(page, depth) {
  await page.setChecked(sel("depth-option"), depth);
  // No run yet: no status line.
  const status = await page.$(sel("run-status"));
  const before = Number((await status?.getAttribute("data-run")) ?? 0);
  const t0 = Date.now();
  await page.click(sel("run-experiment"));
  await page.waitForSelector(`${sel("run-status")}[data-run="${before + 1}"]:not([data-state=running])`, { timeout: 60 * MINUTE });
  const ms = Date.now() - t0;
  const state = await page.getAttribute(sel("run-status"), "data-state");
  if (state !== "finished") throw new Error(`the run ended ${state}: ${await page.textContent(sel("run-status"))}`);
  // Each strategy's figures but its time.
  const results = await page.$$eval(`${sel("results-table")} tbody tr`, (trs) =>
    trs.map(({ dataset: { latencyMs, ...figures } }) => figures),
  );
  const pageFactor = depth ? Number(await page.getAttribute(sel("depth-cost"), "data-factor")) : null;
  const pageText = depth ? await page.textContent(sel("depth-cost")) : null;
  return { ms, results, pageFactor, pageText };
}

const session = await openSession();
let summary;
try {
  const { page } = session;
  await page.goto(session.url("/learn/reasoning"));
  await page.waitForSelector(READY, { timeout: 5 * MINUTE });
  await page.waitForSelector(`${sel("run-experiment")}:enabled`, { timeout: MINUTE });
  const defaults = { limit: await page.inputValue(sel("limit")), budget: await page.inputValue(sel("budget")) };

  // The warm-up: one task, direct.
  const defaultStrategies = await page.$$eval(`${sel("strategy")} input[type=checkbox]:checked`, (els) => els.map((e) => e.value));
  await chooseStrategies(page, ["direct"]);
  await page.fill(sel("limit"), "1");
  await run(page, false);

  await chooseStrategies(page, SELF_CONSISTENCY ? [...defaultStrategies, "self-consistency"] : defaultStrategies);
  await page.fill(sel("limit"), String(LIMIT ?? defaults.limit));
  if (BUDGET !== null) await setInput(page, "budget", BUDGET);
  const experiment = {
    strategies: await page.$$eval(`${sel("strategy")} input[type=checkbox]:checked`, (els) => els.map((e) => e.value)),
    limit: Number(await page.inputValue(sel("limit"))),
    budget: Number(await page.inputValue(sel("budget"))),
    samples: Number(await page.inputValue(sel("samples"))),
  };
  console.log(`the run: ${JSON.stringify(experiment)}`);
  const rounds = [];
  for (let i = 1; i <= ROUNDS; i++) {
    const without = await run(page, false);
    const withDepth = await run(page, true);
    if (JSON.stringify(without.results) !== JSON.stringify(withDepth.results)) {
      throw new Error(`round ${i}: the two runs' results differ, so they did not do the same work`);
    }
    const factor = withDepth.ms / without.ms;
    rounds.push({ without_ms: without.ms, with_depth_ms: withDepth.ms, factor, page_factor: withDepth.pageFactor });
    console.log(
      `round ${i}: without depth ${(without.ms / 1000).toFixed(1)} s, with it ${(withDepth.ms / 1000).toFixed(1)} s: ` +
        `${factor.toFixed(2)}x; the page: ${withDepth.pageText}`,
    );
  }
  if (session.foreign().length > 0) throw new Error(`requests left the origin: ${session.foreign().map((r) => r.url)}`);
  if (session.consoleErrors.length > 0) throw new Error(`console errors: ${session.consoleErrors.join("; ")}`);
  const pick = (key) => median(rounds.map((r) => r[key]));
  summary = {
    cpu: await cpuModel(),
    load_average: loadavg().map((l) => Number(l.toFixed(2))),
    experiment,
    rounds: ROUNDS,
    without_ms: pick("without_ms"),
    with_depth_ms: pick("with_depth_ms"),
    factor: pick("factor"),
    page_factor: pick("page_factor"),
  };
} finally {
  await session.close();
}
console.log(JSON.stringify(summary));

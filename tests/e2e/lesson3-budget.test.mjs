// Lesson 3's budget sweep and "no forced answer" (issue 22) on the built site: one run
// runs chain of thought on the same tasks at budgets 16 to 256; the sweep shows accuracy
// with intervals, tokens per correct answer and the share each budget cut, from that run.
// With Force an answer unticked, a trace the budget cuts ends with no answer.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertAccessible, chooseStrategies, MINUTE, openSession, READY, setInput } from "./session.mjs";

let session, server, page;

before(async () => {
  session = await openSession();
  ({ server, page } = session);
});

after(() => session?.close());

const sel = (testid) => `[data-testid=${testid}]`;
const TASKS = 2;

test("one run sweeps the budget, and without a forced answer a cut trace has none", { timeout: 10 * MINUTE }, async (t) => {
  await page.goto(server.url + "/learn/reasoning");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  assert.equal(await page.isChecked(sel("forced-answer")), true, "an answer is forced by default");
  assert.equal(await page.isChecked(sel("sweep-option")), false);
  await chooseStrategies(page, ["cot"]);
  await page.selectOption(sel("category"), "multi-digit");
  await page.fill(sel("limit"), String(TASKS));
  await page.fill(sel("seed"), "3");
  await setInput(page, "budget", 16);
  await page.uncheck(sel("forced-answer"));
  await page.check(sel("sweep-option"));
  const started = Date.now();
  await page.click(sel("run-experiment"));
  await page.waitForFunction(
    () => /under chain of thought at budget (16|32|64|128|256): \d+ tokens so far/.test(document.querySelector("[data-testid=run-status]").textContent),
    null,
    { timeout: 3 * MINUTE },
  );
  await page.waitForSelector(`${sel("run-status")}:not([data-state=running])`, { timeout: 8 * MINUTE });
  assert.equal(await page.getAttribute(sel("run-status"), "data-state"), "finished");
  t.diagnostic(`the run took ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const rows = await page.$$eval(`${sel("budget-sweep")} tbody tr`, (trs) => trs.map((tr) => ({ ...tr.dataset, text: tr.textContent })));
  t.diagnostic(JSON.stringify(rows.map(({ text, ...r }) => r)));
  assert.deepEqual(rows.map((r) => Number(r.budget)), [16, 32, 64, 128, 256]);
  for (const r of rows) {
    assert.equal(Number(r.n), TASKS);
    assert.equal(Number(r.samples), TASKS);
    assert.ok(Number(r.correct) <= TASKS && Number(r.cut) <= TASKS, JSON.stringify(r));
    assert.match(r.text, new RegExp(`^${r.budget}${r.correct}/${TASKS} \\(\\d+%, 95% interval \\d+–\\d+%\\)`));
  }
  // Greedy traces share their beginning: one the budget cut at 32 tokens was cut at 16 too.
  const cuts = rows.map((r) => Number(r.cut));
  assert.ok(cuts.every((c, i) => i === 0 || c <= cuts[i - 1]), `cut per budget: ${cuts}`);

  // The run's own chain of thought ran at budget 16 with nothing forced, as the sweep's first:
  // the same traces, and every one the budget cut says it has no answer, and has none.
  const cot = await page.$$eval(`${sel("item")} .outcome[data-strategy=cot]`, (els) =>
    els.map((el) => ({
      correct: el.dataset.correct === "true",
      meta: el.querySelector(".meta").textContent,
      noAnswer: el.querySelector("[data-testid=no-answer]") !== null,
    })),
  );
  assert.equal(cot.length, TASKS);
  assert.equal(cot.filter((i) => i.correct).length, Number(rows[0].correct));
  assert.equal(cot.filter((i) => i.noAnswer).length, cuts[0]);
  for (const i of cot.filter((i) => i.noAnswer)) {
    assert.equal(i.correct, false);
    assert.match(i.meta, /^Extracted answer: \(none\) · 16 tokens \(16 reasoning \+ 0 answer\)/);
  }
  assert.match(await page.textContent(sel("sweep-summary")), /^No answer was forced: .*McNemar's exact p/);
  assert.match(await page.textContent(sel("cli-commands")), /--budget 16 --no-forced-answer/);
});

test("the sweep fits 390 px and passes axe-core, with no console errors", { timeout: MINUTE }, async () => {
  await assertAccessible(page, "Lesson 3 with the budget sweep");
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
  assert.deepEqual(session.consoleErrors, []);
});

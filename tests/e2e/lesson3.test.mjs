// Lesson 3 (/learn/reasoning) on the built site: experiments on the real model in the
// browser, compared with the CLI on the same tasks; Cancel; the downloads; the exercises'
// checks; the page at 390 px. One browser profile; the tests run in order and build on
// each other's runs (the checks read the runs of the visit).
//
// The CLI comparison needs the native binary: `cargo build --release -p playground-cli`
// (scripts/test.sh builds it with the native tests); it is looked for in $CARGO_TARGET_DIR.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { assertAccessible, chooseStrategies, MINUTE, modelLoaded, openSession, READY, ROOT, setInput } from "./session.mjs";

const CLI = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "release/playground");
// Set SCREENSHOTS=dir to keep pictures of the page at 1200 and 390 px.
const SHOTS = process.env.SCREENSHOTS;

let session, server, page;

before(async () => {
  session = await openSession();
  ({ server, page } = session);
});

after(() => session?.close());

const sel = (testid) => `[data-testid=${testid}]`;
const text = (testid) => page.textContent(sel(testid));

/** Runs the CLI as the page printed its command, from the repository root. */
function cli(command) {
  assert.ok(existsSync(CLI), `${CLI} is missing: build it with cargo build --release -p playground-cli`);
  const [name, ...args] = command.trim().split(/\s+/);
  assert.equal(name, "playground");
  return JSON.parse(execFileSync(CLI, args, { cwd: ROOT, encoding: "utf8" }));
}

/** Sets a range input as a drag does (`setInput`) and checks that it holds the value. */
async function slide(testid, value) {
  await setInput(page, testid, value);
  assert.equal(await page.inputValue(sel(testid)), String(value));
}

async function configure({ strategies, category = "", limit, seed = 2, budget = 32, samples = 5, temperature = 0.7 }) {
  await chooseStrategies(page, strategies);
  await page.selectOption(sel("category"), category);
  await page.fill(sel("limit"), String(limit));
  await page.fill(sel("seed"), String(seed));
  await page.fill(sel("samples"), String(samples));
  await slide("budget", budget);
  await slide("sc-temperature", temperature);
}

/** Starts a run and waits for its end; returns its state. */
async function run({ timeout = 3 * MINUTE } = {}) {
  const status = await page.$(sel("run-status"));
  const number = Number((await status?.getAttribute("data-run")) ?? 0) + 1;
  await page.click(sel("run-experiment"));
  const ended = `${sel("run-status")}[data-run="${number}"]:not([data-state=running])`;
  await page.waitForSelector(ended, { timeout });
  return page.getAttribute(sel("run-status"), "data-state");
}

/** The results table as { strategy: { accuracy, correct, n, tokens, latencyMs, samples, formatFailures } }. */
async function table() {
  const rows = await page.$$eval(`${sel("results-table")} tbody tr`, (trs) =>
    trs.map((tr) => ({ ...tr.dataset })),
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.strategy,
      {
        accuracy: Number(r.accuracy),
        correct: Number(r.correct),
        n: Number(r.n),
        tokens: Number(r.tokens),
        latencyMs: Number(r.latencyMs),
        samples: Number(r.samples),
        formatFailures: Number(r.formatFailures),
      },
    ]),
  );
}

/** Clicks an exercise's Check; returns { pass, message }. */
async function check(id) {
  await page.click(sel(`check-${id}`));
  const verdict = page.locator(sel(`verdict-${id}`));
  await verdict.waitFor();
  return { pass: (await verdict.getAttribute("data-pass")) === "true", message: await verdict.textContent() };
}

test("the lesson loads with labelled controls; bad settings get a message and run nothing", { timeout: 3 * MINUTE }, async () => {
  await page.goto(server.url + "/learn/reasoning");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  const unlabelled = await page.$$eval(".lab input, .lab select, .exercise select", (els) =>
    els.filter((el) => !(el.labels?.length > 0 || el.closest("label"))).map((el) => el.outerHTML),
  );
  assert.deepEqual(unlabelled, [], "every control has a label");
  // The exercises come from the Markdown, each with its own Check.
  for (const id of ["ex-token-budget", "ex-self-consistency", "ex-cot-no-help", "ex-pass-at-k"]) {
    await page.waitForSelector(`${sel(`exercise-${id}`)} h3#${id}`);
  }

  await configure({ strategies: ["direct"], limit: 0 });
  await page.click(sel("run-experiment"));
  assert.match(await text("experiment-error"), /Number of tasks must be a whole number from 1 to 122/);
  await configure({ strategies: [], limit: 3 });
  await page.click(sel("run-experiment"));
  assert.match(await text("experiment-error"), /Choose at least one strategy/);
  await page.fill(sel("seed"), "-1");
  await page.click(sel("run-experiment"));
  assert.match(await text("experiment-error"), /Seed must be a whole number/);
  assert.equal(await page.$(sel("run-status")), null, "nothing ran");

  await configure({ strategies: ["self-consistency"], limit: 1, temperature: 0 });
  assert.match(await text("temperature-warning"), /every sample is the same answer/);

  // With no run yet, every check fails and says what to do.
  for (const id of ["ex-token-budget", "ex-self-consistency", "ex-pass-at-k"]) {
    const verdict = await check(id);
    assert.equal(verdict.pass, false);
    assert.match(verdict.message, /No experiment has finished yet/);
  }
});

test("the default run shows a difference worth discussing, the one the CLI measures", { timeout: 5 * MINUTE }, async (t) => {
  // A fresh page has the default settings.
  await page.reload();
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  assert.equal(await run({ timeout: 4 * MINUTE }), "finished");
  const [directCli, cotCli] = (await page.$$eval(`${sel("cli-commands")} li`, (lis) => lis.map((li) => li.textContent))).map(cli);
  assert.equal(directCli.strategy, "direct");
  assert.equal(cotCli.strategy, "cot");
  const { direct, cot } = await table();
  assert.deepEqual([direct.correct, cot.correct], [directCli.correct, cotCli.correct], "browser vs CLI");
  // The two strategies disagree on enough of the same tasks, in one direction, for the
  // paired test to say something: p below the checks' "shows nothing" line of 0.5.
  const row = await page.$eval(`${sel("paired-comparison")} li[data-first=direct][data-second=cot]`, (li) => ({ ...li.dataset }));
  const right = (items) => items.map((i) => i.correct);
  const [d, c] = [right(directCli.items), right(cotCli.items)];
  const onlyDirect = d.filter((x, i) => x && !c[i]).length;
  const onlyCot = d.filter((x, i) => !x && c[i]).length;
  assert.deepEqual([Number(row.onlyFirst), Number(row.onlySecond)], [onlyDirect, onlyCot]);
  assert.ok(Math.abs(Number(row.p) - mcnemar(onlyDirect, onlyCot)) < 1e-12);
  assert.ok(Number(row.p) < 0.5, `McNemar's p = ${row.p} on the default run: it shows nothing`);
  t.diagnostic(`default run: direct ${direct.correct}/${direct.n}, chain of thought ${cot.correct}/${cot.n}, p = ${row.p}`);

  // Format failures (the right answer in the trace, not on the answer line): per strategy, the
  // CLI's per-sample verdicts summed, never a right answer, and shown beside accuracy.
  for (const [shown, native] of [[direct, directCli], [cot, cotCli]]) {
    const samples = native.items.flatMap((i) => i.samples);
    assert.ok(samples.every((x) => !(x.format_failure && x.correct)), "a format failure is a wrong answer");
    assert.equal(shown.formatFailures, samples.filter((x) => x.format_failure).length, native.strategy);
    assert.equal(shown.formatFailures, native.format_failures, native.strategy);
  }
  const cells = await page.$$eval(`${sel("results-table")} tbody tr`, (trs) =>
    trs.map((tr) => [tr.dataset.formatFailures, tr.dataset.samples, tr.querySelector('[data-label="Right answer in the trace, not on the answer line"]').textContent]),
  );
  for (const [k, n, cell] of cells) assert.equal(cell, `${k}/${n}`);
  // The sentence on format appears exactly when a strategy's format failures would close its
  // gap to a better one.
  const rows = { direct, cot };
  const closes = Object.values(rows).some((a) => {
    const best = Math.max(...Object.values(rows).map((b) => b.correct));
    return a.samples === a.n && best > a.correct && a.formatFailures > 0 && a.correct + a.formatFailures >= best;
  });
  assert.equal((await page.$(sel("format-note"))) !== null, closes, "the format note");
  if (closes) assert.match(await text("format-note"), /That gap is the format, not the reasoning\./);
  t.diagnostic(`format failures: direct ${direct.formatFailures}, chain of thought ${cot.formatFailures}`);
});

test("a 3-task direct experiment fills the table with measured numbers, the same as the CLI's", { timeout: 4 * MINUTE }, async () => {
  await configure({ strategies: ["direct"], limit: 3, seed: 2 });
  assert.match(await text("plan"), /3 tasks × 1 strategy/);
  assert.equal(await run(), "finished");
  assert.equal(await page.getAttribute(sel("experiment-progress"), "value"), "3");
  assert.equal(await page.getAttribute(sel("experiment-progress"), "max"), "3");

  const { direct } = await table();
  assert.equal(direct.n, 3);
  assert.equal(direct.accuracy, direct.correct / 3);
  assert.ok(direct.tokens > 3, `${direct.tokens} tokens`);
  assert.ok(direct.latencyMs > 0, `${direct.latencyMs} ms`);

  const items = await page.$$eval(`${sel("item")}`, (els) =>
    els.map((el) => ({ id: el.dataset.task, correct: el.querySelector(".outcome[data-strategy=direct]").dataset.correct === "true" })),
  );
  const command = (await text("cli-commands")).trim();
  assert.equal(command, "playground reason --strategy direct --limit 3 --seed 2 --budget 32");
  const native = cli(command);
  assert.equal(direct.correct, native.correct, "correct answers, browser vs CLI");
  assert.equal(direct.accuracy, native.accuracy, "accuracy, browser vs CLI");
  assert.equal(direct.tokens, native.total_tokens, "tokens, browser vs CLI");
  assert.deepEqual(items, native.items.map((i) => ({ id: i.task_id, correct: i.correct })), "per task, browser vs CLI");

  // The charts are drawn from the same run: one point per strategy, one mark per task.
  assert.equal(await page.locator(`${sel("accuracy-chart")} circle`).count(), 1);
  const marks = await page.$$eval(`${sel("length-chart")} circle`, (cs) => cs.map((c) => Number(c.dataset.count)));
  assert.equal(marks.reduce((a, b) => a + b, 0), 3, "every task has its mark");
  // Units and facts have open answers: no chance baseline beside them.
  const chance = await page.$$eval(`${sel("category-table")} tbody tr`, (trs) => trs.map((tr) => [tr.dataset.category, tr.dataset.chance ?? null]));
  assert.deepEqual(chance, [["units", null], ["facts", null]]);
  // "Length is not quality" is told with this run's lengths (the CLI measured the same ones).
  const part = (correct) => {
    const lengths = native.items.filter((i) => i.correct === correct).map((i) => i.total_tokens);
    const verdict = correct ? "correct" : "wrong";
    if (lengths.length === 0) return `there were no ${verdict} answers`;
    const mean = (lengths.reduce((a, b) => a + b, 0) / lengths.length).toFixed(1);
    return `${verdict} answers took ${mean} tokens on average (${lengths.length} answer${lengths.length === 1 ? "" : "s"})`;
  };
  assert.equal(await text("length-summary"), `In this run, ${part(true)}; ${part(false)}.`);
  assert.match(await text("trace-note"), /need not reveal what caused the model's answer/);
});

test("each section's evidence follows its own text, and every part leads back to the run's controls", { timeout: MINUTE }, async () => {
  // The lesson's headings and parts in document order: each part closes its section.
  const order = await page.$$eval(
    `${sel("lesson-reasoning")} :is(h1, h2, [data-testid=evidence], [data-testid=interactive-reasoning])`,
    (els) => els.map((el) => (/^H[12]$/.test(el.tagName) ? el.textContent.trim() : `[${el.dataset.part ?? "controls"}]`)),
  );
  assert.deepEqual(order, [
    "Lesson 3: Reasoning compute",
    "[controls]",
    "Run an experiment",
    "Strategies on this page",
    "[budget]",
    "[strategies]",
    "How correctness is checked",
    "[checker]",
    "Length is not quality",
    "[depth]",
    "A trace is not an explanation",
    "[faithfulness]",
    "A small model",
    "[small-model]",
    "More samples: coverage against voting",
    "[sampling]",
    "What to compare",
    "[repeat]",
    "Try it",
  ]);
  // Within its section, each part comes right after the text that makes its claim.
  const before = await page.$$eval(sel("evidence"), (parts) =>
    parts.map((part) => {
      // The paragraph as read: a glossary term's tooltip is not part of its text.
      const paragraph = part.previousElementSibling.lastElementChild.cloneNode(true);
      paragraph.querySelectorAll(".term-tip").forEach((tip) => tip.remove());
      return [part.dataset.part, paragraph.textContent.slice(0, 40)];
    }),
  );
  assert.deepEqual(Object.fromEntries(before), {
    budget: "Chain of thought. The prompt asks the mo",
    strategies: "Hidden tokens also count against the out",
    checker: "A reply that names several candidates (“",
    depth: "Read the length chart below with care: h",
    faithfulness: "Three tests from the faithfulness litera",
    "small-model": "The lesson therefore reports whatever th",
    sampling: "With self-consistency at N samples, the ",
    repeat: "Use the same tasks, the same seed and th",
  });
  // The run's evidence is in its part: the table beside the strategies, the tasks beside the checker.
  assert.equal(await page.locator(`${sel("evidence")}[data-part=strategies] ${sel("results-table")}`).count(), 1);
  assert.equal(await page.locator(`${sel("evidence")}[data-part=checker] ${sel("item")}`).count(), 3);
  assert.equal(await page.locator(`${sel("evidence")}[data-part=depth] ${sel("length-chart")}`).count(), 1);
  assert.equal(await page.locator(`${sel("evidence")}[data-part=small-model] ${sel("category-table")}`).count(), 1);
  assert.match(await page.textContent(`${sel("evidence")}[data-part=budget] ${sel("evidence-needs")}`), /Tick Budget sweep/);

  // Every part says which run it shows and takes the reader back to its controls.
  const links = page.locator(`${sel("evidence")} ${sel("run-link")}`);
  assert.equal(await links.count(), 8);
  const number = await page.getAttribute(sel("run-status"), "data-run");
  for (let i = 0; i < 8; i++) {
    const link = links.nth(i);
    assert.equal(await link.getAttribute("data-run"), number);
    assert.equal(await link.getAttribute("data-state"), "finished");
    assert.match(await link.textContent(), new RegExp(`^From run ${number} \\(finished, 3 tasks\\)`));
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await link.locator("a").click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "l3-lab");
    const top = await page.locator("#l3-lab").evaluate((h) => h.getBoundingClientRect().top);
    assert.ok(top > -2 && top < 900, `the controls' heading is on screen (top ${top})`);
    assert.equal(new URL(page.url()).pathname, "/learn/reasoning", "the link stays on the lesson");
  }
});

test("the results download as CSV and JSON from a same-origin Blob", { timeout: MINUTE }, async () => {
  const save = async (testid) => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click(sel(testid))]);
    assert.match(download.url(), new RegExp(`^blob:${server.url}/`));
    return readFileSync(await download.path(), "utf8");
  };
  const { direct } = await table();
  const csv = (await save("export-csv")).trim().split("\n");
  assert.match(csv[0], /^task_id,category,question,strategy,final_answer,correct,reasoning_tokens,answer_tokens,total_tokens,latency_ms,votes$/);
  assert.equal(csv.length, 4);
  const json = JSON.parse(await save("export-json"));
  assert.equal(json.state, "finished");
  assert.equal(json.items.length, 3);
  assert.equal(json.summaries[0].correct, direct.correct);
  assert.equal(json.summaries[0].total_tokens, direct.tokens);
  assert.equal(json.experiment.seed, 2);
});

/** McNemar's exact two-sided p for discordant counts b and c, computed independently. */
function mcnemar(b, c) {
  const n = b + c;
  let tail = 0;
  let choose = 1;
  for (let i = 0; i <= Math.min(b, c); i++) {
    tail += choose / 2 ** n;
    choose = (choose * (n - i)) / (i + 1);
  }
  return Math.min(1, 2 * tail);
}

const numbers = (list) => list.split(",").map(Number);

test("sampling curves, paired comparison, chance and truncation come from the run, as the CLI measures them", { timeout: 4 * MINUTE }, async () => {
  // Seed 7 draws a yes/no question and a chain of comparisons (and no units task, which the
  // exercises' test below needs no run to have had).
  await configure({ strategies: ["direct", "cot", "self-consistency"], limit: 2, seed: 7, budget: 16, samples: 4 });
  assert.equal(await run(), "finished");
  const commands = await page.$$eval(`${sel("cli-commands")} li`, (lis) => lis.map((li) => li.textContent.trim()));
  const [directCli, cotCli, scCli] = commands.map(cli);

  // The scaling chart: N points per curve, the CLI's figures, the greedy runs as references.
  const chart = page.locator(sel("scaling-chart"));
  assert.equal(await chart.getAttribute("data-n"), "4");
  const pass = numbers(await chart.getAttribute("data-pass-at-k"));
  const majority = numbers(await chart.getAttribute("data-majority-at-k"));
  assert.equal(pass.length, 4);
  pass.forEach((p, i) => assert.ok(Math.abs(p - scCli.pass_at_k[i]) < 1e-12, `pass@${i + 1}: ${p} vs ${scCli.pass_at_k[i]}`));
  majority.forEach((m, i) => assert.ok(Math.abs(m - scCli.majority_at_k[i]) < 1e-12, `majority@${i + 1}`));
  pass.slice(1).forEach((p, i) => assert.ok(p >= pass[i] - 1e-12, "pass@k never falls"));
  majority.forEach((m, i) => assert.ok(m <= pass[i] + 1e-12, "a right vote needs a right sample"));
  assert.equal(await page.locator(`${sel("scaling-chart")} .curve circle`).count(), 8);
  await assertAccessible(page, "Lesson 3 with the sampling curves and the paired comparison");
  const refs = await page.$$eval(`${sel("scaling-chart")} .reference`, (gs) => gs.map((g) => [g.dataset.strategy, Number(g.dataset.accuracy)]));
  assert.deepEqual(refs, [["direct", directCli.accuracy], ["cot", cotCli.accuracy]]);

  // The paired comparison: counted from the tasks' own verdicts, p recomputed here.
  const verdicts = await page.$$eval(sel("item"), (els) =>
    els.map((el) => Object.fromEntries([...el.querySelectorAll(".outcome")].map((o) => [o.dataset.strategy, o.dataset.correct === "true"]))),
  );
  const rows = await page.$$eval(`${sel("paired-comparison")} li`, (lis) => lis.map((li) => ({ ...li.dataset, text: li.textContent })));
  assert.equal(rows.length, 3, "three strategies, three pairs");
  for (const row of rows) {
    const b = verdicts.filter((v) => v[row.first] && !v[row.second]).length;
    const c = verdicts.filter((v) => !v[row.first] && v[row.second]).length;
    assert.deepEqual([Number(row.onlyFirst), Number(row.onlySecond)], [b, c], `${row.first} vs ${row.second}`);
    assert.ok(Math.abs(Number(row.p) - mcnemar(b, c)) < 1e-12, `p ${row.p} vs ${mcnemar(b, c)}`);
    assert.match(row.text, /McNemar's exact p [=<]/);
  }

  // Traces cut by the budget, as the CLI counts them; direct has none to cut.
  const cut = await page.$$eval(`${sel("results-table")} tbody tr`, (trs) => trs.map((tr) => [tr.dataset.strategy, Number(tr.dataset.truncated), Number(tr.dataset.samples)]));
  assert.deepEqual(cut, [["direct", 0, 2], ["cot", cotCli.truncated, 2], ["self-consistency", scCli.truncated, 8]]);

  // Chance beside each category: half for yes/no, one over the options for a choice, none for open answers.
  const chance = await page.$$eval(`${sel("category-table")} tbody tr`, (trs) => trs.map((tr) => [tr.dataset.category, Number(tr.dataset.chance)]));
  assert.deepEqual(chance, [["yes-no", 0.5], ["chains", 1 / 3]]);

  // The exercise: the smallest k with pass@k above greedy chain of thought, on this run.
  const truth = pass.findIndex((p) => p > cotCli.accuracy + 1e-12);
  const answer = truth < 0 ? "none" : String(truth + 1);
  const wrong = truth < 0 ? "1" : "none";
  await page.fill(sel("smallest-k"), wrong);
  assert.equal((await check("ex-pass-at-k")).pass, false);
  await page.fill(sel("smallest-k"), "99");
  assert.match((await check("ex-pass-at-k")).message, /from 1 to 4/);
  await page.fill(sel("smallest-k"), answer);
  const verdict = await check("ex-pass-at-k");
  assert.equal(verdict.pass, true, verdict.message);
});

test("Cancel stops a run at once, and the page keeps working", { timeout: 3 * MINUTE }, async () => {
  // Chain of thought one token per turn; self-consistency one token of each of 8 samples decoding together.
  for (const [strategy, samples] of [["cot", 1], ["self-consistency", 8]]) {
    await configure({ strategies: [strategy], limit: 5, budget: 512, samples });
    const number = Number(await page.getAttribute(sel("run-status"), "data-run")) + 1;
    await page.click(sel("run-experiment"));
    await page.waitForFunction(() => /: ([1-9]\d*) tokens so far/.test(document.querySelector("[data-testid=run-status]").textContent));
    const clicked = Date.now();
    await page.click(sel("cancel-experiment"));
    await page.waitForSelector(`${sel("run-status")}[data-run="${number}"][data-state=cancelled]`, { timeout: 10_000 });
    // A turn takes well under a second here; the rest of the run would take minutes.
    assert.ok(Date.now() - clicked < 2000, `${strategy}: cancelled after ${Date.now() - clicked} ms`);
    assert.match(await text("run-status"), /Cancelled/);
    assert.ok(await page.isEnabled(sel("run-experiment")));
    assert.ok(await page.isDisabled(sel("cancel-experiment")));
    assert.ok(Number(await page.getAttribute(sel("experiment-progress"), "value")) < 5, `${strategy}: the run did not finish`);
  }
});

test("the exercises' checks pass on the runs that do what they ask, and fail on the others", { timeout: 10 * MINUTE }, async () => {
  // Self-consistency against direct: N = 3 is not what the exercise asks; N = 5 is.
  await configure({ strategies: ["direct", "self-consistency"], limit: 1, budget: 16, samples: 3 });
  assert.equal(await run(), "finished");
  let verdict = await check("ex-self-consistency");
  assert.equal(verdict.pass, false);
  assert.match(verdict.message, /N = 3; set Samples N to 5/);
  await configure({ strategies: ["direct", "self-consistency"], limit: 1, budget: 16, samples: 5 });
  assert.equal(await run(), "finished");
  assert.match(await page.textContent(`${sel("item")} ${sel("votes")}`), /^Votes: .*Winner: /);
  // One task cannot show a difference (McNemar's p is 1): the check says what the run
  // showed and what to change, never Done.
  verdict = await check("ex-self-consistency");
  assert.equal(verdict.pass, false, verdict.message);
  const { direct, "self-consistency": sc } = await table();
  assert.match(verdict.message, new RegExp(`Direct answer: ${direct.correct}/1 .*Self-consistency@5: ${sc.correct}/1.*shows nothing.*Take more tasks`));

  // The budget: one budget is not a comparison; the same tasks at a second budget are.
  await configure({ strategies: ["cot"], limit: 1, budget: 16 });
  assert.equal(await run(), "finished");
  verdict = await check("ex-token-budget");
  assert.equal(verdict.pass, false);
  assert.match(verdict.message, /different budget/);
  await configure({ strategies: ["hidden"], limit: 1, budget: 24 });
  assert.equal(await run(), "finished");
  assert.match(await text("hidden-counts"), /^\d+ reasoning tokens spent out of sight \(budget 24\) for \d+ visible answer tokens\.$/);
  assert.equal(await check("ex-token-budget").then((v) => v.pass), false, "hidden at 24 and cot at 16 are different strategies");
  await configure({ strategies: ["cot"], limit: 1, budget: 32 });
  assert.equal(await run(), "finished");
  verdict = await check("ex-token-budget");
  assert.equal(verdict.pass, false, "one task at two budgets shows nothing");
  assert.match(verdict.message, /budget 16: .*budget 32: .*At budget 16, the budget cut [01] of 1 trace .*shows nothing/);

  // Chain of thought on capitals, the category chosen before the run that tests it: the check
  // agrees with what the CLI measures there.
  await page.selectOption(sel("cot-category"), "capitals");
  await configure({ strategies: ["direct", "cot"], category: "capitals", limit: 2, budget: 32 });
  assert.equal(await run(), "finished");
  const [directCli, cotCli] = [...(await page.$$eval(`${sel("cli-commands")} li`, (lis) => lis.map((li) => li.textContent)))].map(cli);
  const { direct: d, cot: c } = await table();
  assert.deepEqual([d.correct, c.correct], [directCli.correct, cotCli.correct], "browser vs CLI");
  verdict = await check("ex-cot-no-help");
  // Two tasks cannot show that chain of thought does not help (McNemar's p is at least 0.5).
  assert.equal(verdict.pass, false, verdict.message);
  assert.match(verdict.message, new RegExp(`chain of thought got ${c.correct}/2 .*direct answering got ${d.correct}/2 .*shows nothing`));
  await page.selectOption(sel("cot-category"), "units");
  verdict = await check("ex-cot-no-help");
  assert.equal(verdict.pass, false);
  assert.match(verdict.message, /None of your runs with both strategies had units tasks/);
  // Chosen again after seeing the results: the runs made before the choice do not count.
  await page.selectOption(sel("cot-category"), "capitals");
  verdict = await check("ex-cot-no-help");
  assert.equal(verdict.pass, false);
  assert.match(verdict.message, /Your runs with capitals tasks were made before you chose it\./);
});

test("the results fit a 390 px screen; no console errors; no request left the origin", { timeout: MINUTE }, async () => {
  await page.click(`${sel("item")} summary`);
  if (SHOTS) {
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "lesson3-1200.png"), fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, "lesson3-390.png"), fullPage: true });
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), [], "no request left the origin");
});

const loaded = (name, timeout) => modelLoaded(page, name, timeout);

test("with a base model, the lab says in one sentence why it cannot run, and Run is off; a chat model runs it", { timeout: 6 * MINUTE }, async () => {
  await page.click(sel("pick-gemma3-270m"));
  await loaded("Gemma 3 270M");
  const why = await text("reasoning-needs-chat");
  assert.match(why, /^Gemma 3 270M is a base model with no chat template, .* so Run is off: pick SmolLM2-135M-Instruct or another chat model above\.$/);
  assert.equal(why.match(/\. /g), null, "one sentence");
  assert.ok(await page.isDisabled(sel("run-experiment")));
  assert.equal(await page.$(sel("model-dependence")), null, "the base model's reason replaces the notice for other chat models");
  // Enter in a field does not start it either.
  await page.press(sel("limit"), "Enter");
  assert.equal(await page.getAttribute(sel("run-status"), "data-state"), "finished", "the last run is still the one shown");

  await page.click(sel("pick-smollm2"));
  await loaded("SmolLM2-135M-Instruct");
  assert.equal(await page.$(sel("reasoning-needs-chat")), null);
  assert.ok(await page.isEnabled(sel("run-experiment")));
});

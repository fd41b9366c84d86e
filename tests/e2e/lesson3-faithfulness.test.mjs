// Lesson 3's faithfulness panels (issue 22, "a trace is not an explanation") on the built
// site: a small run with "Test faithfulness" runs the engine's three tests on every
// chain-of-thought trace in the browser's worker, with progress; the panels beside the
// lesson's text show numbers from that run (the same traces the results list, the counts
// equal to the examples'), keep them across a reload (the run is saved), work from the
// keyboard, fit 390 px and pass axe-core.
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
const TASKS = 2;

/** Everything the three panels report, as data attributes. */
const figures = () =>
  page.evaluate(() => {
    const panel = (id) => document.querySelector(`[data-testid=${id}]`);
    return {
      early: [...panel("faithfulness-early").querySelectorAll("tbody tr")].map((tr) => ({ ...tr.dataset })),
      mistake: { ...panel("faithfulness-mistake").dataset },
      hint: { ...panel("faithfulness-hint").dataset },
      hints: [...panel("faithfulness-hint").querySelectorAll("tbody tr")].map((tr) => ({ ...tr.dataset })),
      chance: panel("faithfulness-early").querySelector("[data-testid=faithfulness-early-chance]").dataset.chance,
    };
  });

test("before a run, the panels say how to get one; faithfulness needs chain of thought", { timeout: 3 * MINUTE }, async () => {
  await page.goto(server.url + "/learn/reasoning");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("faithfulness-none"));
  // The panels sit in the lesson's text, right after "A trace is not an explanation".
  const heading = await page.evaluate(() => {
    // The panels' part of the run's evidence (`evidence.rs`), in the text.
    let el = document.querySelector("[data-testid=faithfulness-none]").closest("[data-testid=evidence]");
    while (el && !el.previousElementSibling) el = el.parentElement;
    for (let p = el?.previousElementSibling; p; p = p.previousElementSibling) {
      const h = p.matches("h2") ? p : [...p.querySelectorAll("h2")].pop();
      if (h) return h.textContent;
    }
    return null;
  });
  assert.match(heading ?? "", /A trace is not an explanation/);
  assert.equal(await page.isChecked(sel("faithfulness-option")), false, "off by default");
  await chooseStrategies(page, ["direct"]);
  await page.check(sel("faithfulness-option"));
  await page.click(sel("run-experiment"));
  assert.match(await page.textContent(sel("experiment-error")), /Faithfulness is tested on chain-of-thought traces/);
});

test("a run with faithfulness tests every chain of thought, with progress, and the panels show that run", { timeout: 8 * MINUTE }, async (t) => {
  await chooseStrategies(page, ["cot"]);
  await page.selectOption(sel("category"), "word-problems");
  await page.fill(sel("limit"), String(TASKS));
  await page.fill(sel("seed"), "7");
  await setInput(page, "budget", 32);
  const started = Date.now();
  await page.click(sel("run-experiment"));
  // Progress while the tests run: each is a variant, one greedy generation.
  await page.waitForFunction(
    () => /Testing the faithfulness of word-\d+'s chain of thought: variant \d of [89], \d+ tokens so far\./.test(document.querySelector("[data-testid=run-status]").textContent),
    null,
    { timeout: 3 * MINUTE },
  );
  await page.waitForSelector(`${sel("run-status")}:not([data-state=running])`, { timeout: 6 * MINUTE });
  assert.equal(await page.getAttribute(sel("run-status"), "data-state"), "finished");
  t.diagnostic(`the run took ${((Date.now() - started) / 1000).toFixed(0)} s`);

  // The traces tested are the run's chains of thought, with the answers the results show.
  const items = await page.$$eval(`${sel("item")}`, (els) =>
    els.map((el) => ({
      task: el.dataset.task,
      answer: el.querySelector(".outcome[data-strategy=cot] .meta").textContent.match(/Extracted answer: (.*?) ·/)[1],
    })),
  );
  assert.equal(items.length, TASKS);
  const early = page.locator(sel("faithfulness-early"));
  const examples = await early.locator("figure").evaluateAll((fs) =>
    fs.map((f) => ({
      task: f.dataset.task,
      caption: f.querySelector("figcaption").textContent,
      full: f.querySelector("figcaption").textContent.match(/the full trace answered (.*)$/)[1],
      same: [...f.querySelectorAll("li")].map((li) => li.dataset.same),
      answers: [...f.querySelectorAll("li")].map((li) => li.dataset.answer),
      notNeeded: f.querySelector("[data-testid=faithfulness-not-needed]") !== null,
      cuts: [...f.querySelectorAll(".cut-mark")].map((m) => m.textContent),
    })),
  );
  assert.deepEqual(examples.map((e) => e.task), items.map((i) => i.task));
  for (const [e, i] of examples.map((e, k) => [e, items[k]])) {
    // The checker's key where it has one; where it has none, the trace may still have answered
    // one of the question's own numbers, which early answering compares as it is.
    if (i.answer !== "(none)") assert.equal(e.caption, `${i.task}: the full trace answered ${i.answer}`);
    assert.equal(e.same.length, 5);
    assert.deepEqual(e.cuts, ["✂25%", "✂50%", "✂75%"], "the three inner cuts are marked in order");
    // Each verdict follows from the answers shown: no answer on either side is "none", never
    // "same"; otherwise same exactly when the keys are equal.
    const full = e.full === "nothing the checker could read" ? "" : e.full;
    e.answers.forEach((a, k) => assert.equal(e.same[k], a === "" || full === "" ? "none" : String(a === full), `${e.task} at cut ${k}`));
    assert.equal(e.notNeeded, e.same[0] === "true", `${e.task}: "not needed" exactly when the 0% answer is the same`);
  }

  // Early answering: per fraction, the same, different and no-answer counts are the examples'
  // (every trace is shown); the share is of the traces with two answers.
  const f = await figures();
  assert.deepEqual(f.early.map((r) => r.fraction), ["0", "0.25", "0.5", "0.75", "1"]);
  f.early.forEach((row, k) => {
    const count = (v) => examples.filter((e) => e.same[k] === v).length;
    assert.equal(Number(row.same), count("true"), `same at ${row.fraction}`);
    assert.equal(Number(row.different), count("false"), `different at ${row.fraction}`);
    assert.equal(Number(row.none), count("none"), `no answer at ${row.fraction}`);
    assert.equal(Number(row.n), count("true") + count("false"), `compared at ${row.fraction}`);
  });
  const rowTexts = await early.locator("tbody tr").allTextContents();
  const first = f.early[0];
  if (Number(first.n) > 0) {
    assert.match(rowTexts[0], new RegExp(`^0%${first.same}/${first.n} \\(\\d+%, 95% interval \\d+–\\d+%\\)${first.none}$`));
  }
  assert.match(rowTexts[4], /^100% \(control: the whole trace given back\)/);
  // Word problems have open answers: no chance level, and the page says so.
  assert.equal(f.chance, "");
  assert.match(await page.textContent(sel("faithfulness-early-chance")), /^Chance level: none\./);

  // An added mistake: one number changed, by one, and the answer judged after it.
  const mistake = page.locator(sel("faithfulness-mistake"));
  assert.equal(Number(f.mistake.n) + Number(f.mistake.without), TASKS);
  const changes = await mistake.locator("figure").evaluateAll((fs) =>
    fs.map((fig) => ({ from: fig.querySelector("del").textContent, to: fig.querySelector("ins").textContent, changed: fig.dataset.changed === "true" })),
  );
  assert.equal(changes.length, Number(f.mistake.n));
  for (const c of changes) assert.equal(Number(c.to), Number(c.from) + 1, JSON.stringify(c));
  assert.equal(Number(f.mistake.changed), changes.filter((c) => c.changed).length);

  // Hints: three on every trace, each in the question, marked; every row of the table follows
  // from the examples' own verdicts.
  const hints = await page.locator(`${sel("faithfulness-hint")} .faith-hint`).evaluateAll((ds) =>
    ds.map((d) => ({ kind: d.dataset.kind, mark: d.querySelector("mark").textContent, follows: d.dataset.follows === "true", mentions: d.dataset.mentions === "true" })),
  );
  assert.equal(hints.length, 3 * TASKS);
  const marks = { wrong: /^ A classmate says the answer is \S+\.$/, correct: /^ A classmate says the answer is \S+\.$/, unrelated: /^ A classmate's locker number is \d+\.$/ };
  for (const h of hints) assert.match(h.mark, marks[h.kind], h.kind);
  assert.deepEqual(f.hints.map((r) => r.kind), ["wrong", "correct", "unrelated"]);
  for (const row of f.hints) {
    const of = hints.filter((h) => h.kind === row.kind);
    const following = of.filter((h) => h.follows);
    const others = of.filter((h) => !h.follows);
    assert.equal(Number(row.n), TASKS, row.kind);
    assert.equal(Number(row.follows), following.length, row.kind);
    assert.equal(Number(row.followingMentioning), following.filter((h) => h.mentions).length, row.kind);
    assert.equal(Number(row.others), others.length, row.kind);
    assert.equal(Number(row.othersMentioning), others.filter((h) => h.mentions).length, row.kind);
  }
  assert.equal(Number(f.hint.n), TASKS);
  assert.equal(f.hint.follows, f.hints[0].follows, "the panel's own figure is the wrong hint's");
  t.diagnostic(`early ${JSON.stringify(f.early.map((r) => r.same))}, mistake ${f.mistake.changed}/${f.mistake.n}, hints followed ${f.hints.map((r) => `${r.kind} ${r.follows}/${r.n}`).join(", ")}`);

  // The same tests from the command line, one per trace.
  const commands = await page.$$eval(`${sel("faithfulness")} details.native li`, (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(commands, items.map((i) => `playground faithfulness --task ${i.task} --budget 32`));
});

test("the panels are reachable from the keyboard, fit 390 px and pass axe-core", { timeout: 2 * MINUTE }, async () => {
  for (const panel of ["faithfulness-early", "faithfulness-mistake", "faithfulness-hint"]) {
    const summary = `${sel(panel)} summary`;
    if ((await page.$(summary)) === null) continue; // no trace had a number of its own to change
    await page.focus(sel("faithfulness-option"));
    await page.keyboard.down("Shift");
    try {
      await tabTo(page, summary);
    } finally {
      await page.keyboard.up("Shift");
    }
    await page.keyboard.press("Enter");
    assert.equal(await page.$eval(`${sel(panel)} details`, (d) => d.open), false, `${panel}: Enter closes its examples`);
    await page.keyboard.press("Enter");
    assert.equal(await page.$eval(`${sel(panel)} details`, (d) => d.open), true);
  }
  await assertAccessible(page, "Lesson 3 with the faithfulness panels");
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide`);
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});

test("the run is saved with its tests: after a reload the panels show the same figures", { timeout: 3 * MINUTE }, async () => {
  const shown = await figures();
  await page.reload();
  await page.waitForSelector(sel("faithfulness-early"), { timeout: 2 * MINUTE });
  assert.deepEqual(await figures(), shown);
  assert.deepEqual(session.consoleErrors, []);
});

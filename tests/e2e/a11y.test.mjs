// Accessibility: axe-core finds no serious or critical violation on any page once the model
// is ready, nor after each lesson's main interaction; a keyboard alone (Tab, arrows, Space,
// Enter, typing) completes one exercise in each lesson, and the playground; and with
// prefers-reduced-motion nothing on the site moves.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertAccessible, MINUTE, openSession, READY, SETTLED, tabTo } from "./session.mjs";

const ROUTES = ["/", "/learn/generation", "/learn/stages", "/learn/reasoning", "/playground", "/glossary", "/reading", "/saved", "/no/such/page"];
const id = (testid) => `[data-testid=${testid}]`;

let session, page;

before(async () => {
  session = await openSession();
  page = session.page;
});

after(() => session?.close());

const value = (css) => page.$eval(css, (el) => el.value);
const key = (name) => page.keyboard.press(name);
/** Replaces a text field's contents from the keyboard. */
async function type(css, text) {
  await tabTo(page, css);
  await key("Control+A");
  await page.keyboard.type(text);
}
/** Presses `name` until `css`'s value is `want` (a select or a slider), at most `max` times. */
async function keyUntil(css, name, want, max = 40) {
  for (let i = 0; i < max && (await value(css)) !== want; i++) await key(name);
  assert.equal(await value(css), want, `${css} reached ${want} with ${name}`);
}

/** Presses an exercise's Check button from the keyboard, waits for `passed`, then runs axe-core. */
async function checkFromKeyboard(button, passed, lesson) {
  await tabTo(page, id(button));
  await key("Enter");
  await page.waitForSelector(passed, { timeout: MINUTE });
  await assertAccessible(page, `${lesson} with an exercise checked`);
}

test("every page, once the model is ready, light and dark: no serious or critical axe-core violation", { timeout: 5 * MINUTE }, async () => {
  await page.goto(session.url("/playground"));
  await page.waitForSelector(READY, { timeout: 3 * MINUTE });
  try {
    for (const colorScheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme });
      for (const path of ROUTES) {
        await page.goto(session.url(path));
        await page.waitForSelector(SETTLED, { timeout: 2 * MINUTE });
        await page.waitForSelector("main h1");
        await assertAccessible(page, `${path} (${colorScheme})`);
      }
    }
  } finally {
    await page.emulateMedia({ colorScheme: null });
  }
});

test("Lesson 1 from the keyboard: the distribution, a step, and the deterministic-output exercise", { timeout: 5 * MINUTE }, async () => {
  await page.goto(session.url("/learn/generation"));
  await page.waitForSelector(id("prob-bar"), { timeout: 3 * MINUTE });
  await page.waitForSelector(`${id("step")}:enabled`, { timeout: 2 * MINUTE });
  await tabTo(page, id("step"));
  await key("Enter");
  await page.waitForSelector(`${id("step")}:enabled`, { timeout: 2 * MINUTE });
  await tabTo(page, id("prob-bar"));
  await assertAccessible(page, "Lesson 1 after a step, a candidate focused");
  // "Deterministic output": temperature 0.
  await tabTo(page, id("temperature"));
  await key("Home");
  assert.equal(await value(id("temperature")), "0");
  await page.waitForSelector(`${id("exercise-ex-deterministic")}[data-pass=true]`, { timeout: 2 * MINUTE });
  await assertAccessible(page, "Lesson 1 with an exercise solved");
});

test("Lesson 2 from the keyboard: the timeline, and the prompt-and-answer exercise", { timeout: 5 * MINUTE }, async () => {
  await page.goto(session.url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await type(id("timeline-max-tokens"), "6");
  await tabTo(page, `${id("timeline-run")}:enabled`);
  await key("Enter");
  await page.waitForSelector(`${id("timeline-stop")}:disabled`, { timeout: 2 * MINUTE });
  await page.waitForSelector(`${id("timeline-run")}:enabled`, { timeout: 2 * MINUTE });
  assert.equal(await page.$$eval(`${id("timeline")} rect`, (r) => r.length), 6);
  await assertAccessible(page, "Lesson 2 after the timeline's run");

  for (const [select, want] of [["stage-for-prompt", "prefill"], ["stage-for-answer", "decode"], ["cache-reuses", "keys-values"]]) {
    await tabTo(page, id(select));
    await keyUntil(id(select), "ArrowDown", want);
  }
  await checkFromKeyboard("ex-prompt-and-answer-check", `${id("ex-prompt-and-answer-result")}[data-state=pass]`, "Lesson 2");
});

test("Lesson 3 from the keyboard: two chain-of-thought runs at two budgets, checked against the budget exercise", { timeout: 8 * MINUTE }, async () => {
  await page.goto(session.url("/learn/reasoning"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  // Only chain of thought: Space toggles a focused checkbox.
  const boxes = await page.$$eval(`${id("strategy")} input[type=checkbox]`, (els) => els.map((el) => [el.value, el.checked]));
  for (const [strategy, checked] of boxes) {
    if (checked === (strategy === "cot")) continue;
    await tabTo(page, `${id("strategy")} input[value="${strategy}"]`);
    await key("Space");
  }
  assert.deepEqual(await page.$$eval(`${id("strategy")} input:checked`, (els) => els.map((el) => el.value)), ["cot"]);
  await tabTo(page, id("category"));
  await keyUntil(id("category"), "Home", "");
  await type(id("limit"), "1");
  await tabTo(page, id("budget"));
  await key("Home");
  assert.equal(await value(id("budget")), "8");
  const run = async (number) => {
    await tabTo(page, id("run-experiment"));
    await key("Enter");
    await page.waitForSelector(`${id("run-status")}[data-run="${number}"]:not([data-state=running])`, { timeout: 3 * MINUTE });
    assert.equal(await page.getAttribute(id("run-status"), "data-state"), "finished");
  };
  await run(1);
  await assertAccessible(page, "Lesson 3 after a run");
  await tabTo(page, id("budget"));
  await key("ArrowRight");
  assert.equal(await value(id("budget")), "16");
  await run(2);
  // One task at two budgets shows nothing, and the check says so (and what to change).
  await checkFromKeyboard("check-ex-token-budget", `${id("verdict-ex-token-budget")}[data-pass=false]`, "Lesson 3");
  assert.match(await page.textContent(id("verdict-ex-token-budget")), /budget 8: .*budget 16: .*shows nothing/);
});

test("the playground from the keyboard: a prompt typed and generated", { timeout: 4 * MINUTE }, async () => {
  await page.goto(session.url("/playground"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await tabTo(page, id("temperature"));
  await key("Home");
  await type(id("prompt"), "What is the capital of France?");
  await type(id("max-tokens"), "12");
  await tabTo(page, id("generate"));
  await key("Enter");
  await page.waitForSelector(id("summary"), { timeout: 2 * MINUTE });
  assert.match(await page.textContent(id("output")), /Paris/);
  await assertAccessible(page, "the playground after a generation");
});

test("prefers-reduced-motion: nothing on any page animates or transitions", { timeout: 2 * MINUTE }, async () => {
  await page.emulateMedia({ reducedMotion: "reduce" });
  try {
    for (const path of ROUTES) {
      await page.goto(session.url(path));
      await page.waitForSelector("main h1");
      const moving = await page.evaluate(() => {
        const seconds = (list) => Math.max(...list.split(",").map((t) => parseFloat(t) * (t.trim().endsWith("ms") ? 0.001 : 1)));
        return [...document.querySelectorAll("*")]
          .map((el) => [el, getComputedStyle(el)])
          .filter(([, s]) => seconds(s.animationDuration) > 0.001 || seconds(s.transitionDuration) > 0.001)
          .map(([el]) => el.tagName + (el.className ? "." + el.className : ""));
      });
      assert.deepEqual(moving, [], `${path}: elements that still move`);
    }
  } finally {
    await page.emulateMedia({ reducedMotion: null });
  }
});

test("no errors reached the console, and nothing left the origin", () => {
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), []);
});

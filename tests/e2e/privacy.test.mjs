// Nothing leaves the machine: one session walks through every page and runs each lesson's
// main experiment with text a learner typed, the way a learner moves (the menu, not page
// loads), while every request of the pages, the engine worker and the service worker is
// recorded. None may leave the origin, none may carry the typed text, and the
// Content-Security-Policy must never have had to block anything.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chooseStrategies, loadModel, MINUTE, openSession, playgroundGenerate, setInput, stagesPanelIdle } from "./session.mjs";

// Typed into every prompt field, to be looked for in every request.
const MARKER = "Zebrafish-7f3q";
const id = (testid) => `[data-testid=${testid}]`;

let session, page;

before(async () => {
  session = await openSession();
  page = session.page;
});

after(() => session?.close());

/** Clicks a menu entry and waits for its page's heading. */
async function menu(label) {
  await page.click(`nav >> text="${label}"`);
  await page.waitForSelector("main h1");
}

/** Clicks a Lesson 2 panel's Run and waits until the lab is idle again. */
async function run(panel) {
  await page.click(id(`${panel}-run`));
  await stagesPanelIdle(page, panel, 3 * MINUTE);
}

test("a whole session through the lessons, the playground, the glossary and the reading list", { timeout: 12 * MINUTE }, async () => {
  await page.goto(session.url("/"));
  await loadModel(page, 3 * MINUTE);

  await menu("1. Generation");
  await page.waitForSelector(id("prob-bar"), { timeout: 2 * MINUTE });
  await page.fill(id("prompt"), `Describe a ${MARKER} in one sentence.`);
  await page.click(id("start"));
  await page.waitForFunction(() => document.querySelector(".strip-prompt")?.textContent.includes("Zebrafish"), null, { timeout: 2 * MINUTE });
  await page.waitForSelector(`${id("step")}:enabled`, { timeout: 2 * MINUTE });
  await setInput(page, "temperature", 1.3);
  await page.click(id("step"));
  await page.waitForSelector(`${id("step")}:enabled`, { timeout: 2 * MINUTE });
  await page.click(id("sample"));
  await page.waitForSelector(id("sample-result"), { timeout: MINUTE });

  await menu("2. Stages");
  await page.fill(id("timeline-max-tokens"), "6");
  await run("timeline");
  await page.fill(id("turn1-message"), `My pet is a ${MARKER}.`);
  await run("turn1");
  await run("turn2");
  await page.fill(id("spec-prompt"), `Repeat: ${MARKER}, ${MARKER}, ${MARKER}.`);
  await page.fill(id("spec-max-tokens"), "16");
  await run("spec");

  await menu("3. Reasoning");
  await page.selectOption(id("category"), "");
  await chooseStrategies(page, ["direct"]);
  await page.fill(id("limit"), "1");
  await page.click(id("run-experiment"));
  await page.waitForSelector(`${id("run-status")}:not([data-state=running])`, { timeout: 3 * MINUTE });
  assert.equal(await page.getAttribute(id("run-status"), "data-state"), "finished");

  await menu("Playground");
  await playgroundGenerate(page, `What is a ${MARKER}?`, 12);

  await menu("Glossary");
  await menu("Reading");
  assert.deepEqual(session.consoleErrors, []);
});

test("no request left the origin or carried the learner's text, and the CSP blocked nothing", async () => {
  const { requests } = session;
  // The record includes the worker's traffic: the model is fetched by the engine worker.
  assert.ok(requests.some((r) => r.url.endsWith("/worker_loader.js")), "the worker script was seen");
  assert.ok(requests.some((r) => r.url.endsWith(".gguf")), "the worker's model download was seen");
  assert.deepEqual(session.foreign(), []);
  const carrying = requests.filter((r) => `${r.url} ${r.body}`.includes(MARKER));
  assert.deepEqual(carrying, [], "the typed text stayed in the tab");
  assert.deepEqual(await session.cspViolations(), []);
  // The session did send the typed text to the engine, inside the tab.
  const sent = (await session.protocol()).filter(([dir]) => dir === "out").map(([, , kind]) => kind);
  for (const kind of ["Logits", "StageMeasure", "StageSpeculate", "RunExperiment", "Generate"]) {
    assert.ok(sent.includes(kind), `the page asked the worker for ${kind} (it sent ${[...new Set(sent)]})`);
  }
});

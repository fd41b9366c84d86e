// Interrupting the engine the ways a learner does, and breaking it the ways a browser can:
// Stop while the prompt is still being read, Run pressed twice, leaving a page mid-
// generation, a trap inside the worker, and a tab that cannot give the model its memory.
// The page must say what happened, lose nothing, and keep working.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chooseStrategies, engineWorker, engineWorkers, MINUTE, openSession, playgroundGreedyText, READY, setInput, stagesPanelIdle } from "./session.mjs";

const id = (testid) => `[data-testid=${testid}]`;
const QUESTION = "What is the capital of France?";
// About 1,500 tokens: its prefill takes many seconds, in 16-token slices.
const LONG_PROMPT = `Summarise this text. ${"The river runs past the old mill, and the miller counts the sacks of grain. ".repeat(90)}`;

let session, page;

before(async () => {
  session = await openSession();
  page = session.page;
  await page.goto(session.url("/playground"));
  await page.waitForSelector(READY, { timeout: 3 * MINUTE });
});

after(() => session?.close());

/** The kinds of the requests the page sent since `since` ms (page clock). */
async function sent(since = 0) {
  return (await session.protocol()).filter(([dir, , , t]) => dir === "out" && t >= since).map(([, , kind]) => kind);
}
const now = () => page.evaluate(() => performance.now());
const text = (testid) => page.textContent(id(testid));

const greedy = (prompt, maxTokens) => playgroundGreedyText(page, prompt, maxTokens);

test("Generate pressed twice in one tick sends one request and streams one answer", { timeout: 3 * MINUTE }, async () => {
  const single = await greedy(QUESTION, 16);
  const tokens = (await text("summary")).match(/^\d+ tokens/)[0];
  const t = await now();
  // The same question as a new conversation's first message.
  await page.click(id("new-conversation"));
  await page.fill(id("prompt"), QUESTION);
  // Two clicks before the page has re-rendered: the button is not disabled yet.
  await page.$eval(id("generate"), (button) => {
    button.click();
    button.click();
  });
  await page.waitForSelector(id("summary"), { timeout: 2 * MINUTE });
  assert.deepEqual(await sent(t), ["Generate"]);
  assert.equal(await text("output"), single, "the same greedy answer, not two interleaved");
  assert.equal((await text("summary")).match(/^\d+ tokens/)[0], tokens);
});

test("Stop while the prompt is being read ends the request before any token, and the next one runs", { timeout: 3 * MINUTE }, async () => {
  await page.fill(id("prompt"), LONG_PROMPT);
  await page.fill(id("max-tokens"), "8");
  await page.click(id("generate"));
  await page.waitForTimeout(1500);
  assert.equal(await text("output"), "", "still reading the prompt");
  await page.click(id("stop"));
  await page.waitForSelector(id("summary"), { timeout: MINUTE });
  assert.match(await text("summary"), /^0 tokens.*stopped by you/);
  assert.ok(await page.isEnabled(id("generate")));
  assert.match(await greedy(QUESTION, 16), /Paris/);
});

test("leaving the page mid-generation stops the generation, and the next page's request runs", { timeout: 3 * MINUTE }, async () => {
  await page.fill(id("prompt"), "Write a long story about a lighthouse keeper.");
  await page.fill(id("max-tokens"), "1000");
  await page.click(id("generate"));
  await page.waitForFunction(() => parseInt(document.querySelector("[data-testid=tokens-per-second]").textContent) >= 3);
  const left = await now();
  await page.click('nav >> text="1. Generation"');
  await page.waitForSelector(id("prob-bar"), { timeout: 2 * MINUTE });
  // The playground's request was cancelled on the way out; its tokens stopped.
  const protocol = await session.protocol();
  const generate = protocol.findLast(([dir, , kind]) => dir === "out" && kind === "Generate")[1];
  assert.ok(protocol.some(([dir, , kind, t]) => dir === "out" && kind === "Cancel" && t >= left), "a Cancel was sent on leaving");
  const done = protocol.find(([dir, rid, kind]) => dir === "in" && rid === generate && kind === "Done");
  assert.ok(done, "the generation ended");
  await page.waitForTimeout(1000);
  const late = (await session.protocol()).filter(([dir, rid, kind, t]) => dir === "in" && rid === generate && kind === "Token" && t > done[3]);
  assert.deepEqual(late, [], "no tokens after its end");
  await page.click('nav >> text="Playground"');
  await page.waitForSelector(READY);
  // Nothing is lost: the stopped answer is back with its conversation.
  assert.notEqual(await text("output"), "", "the stopped answer was kept");
  assert.match(await greedy(QUESTION, 16), /Paris/);
});

test("Run pressed twice in Lessons 2 and 3 sends one request each", { timeout: 4 * MINUTE }, async () => {
  await page.click('nav >> text="2. Stages"');
  await page.fill(id("timeline-max-tokens"), "4");
  let t = await now();
  await page.$eval(id("timeline-run"), (button) => {
    button.click();
    button.click();
  });
  await stagesPanelIdle(page, "timeline");
  assert.deepEqual(await sent(t), ["StageMeasure"]);
  assert.equal(await page.$$eval(`${id("timeline")} rect`, (r) => r.length), 4, "one complete run");

  await page.click('nav >> text="3. Reasoning"');
  await chooseStrategies(page, ["direct"]);
  await page.fill(id("limit"), "1");
  t = await now();
  await page.$eval(id("run-experiment"), (button) => {
    button.click();
    button.click();
  });
  await page.waitForSelector(`${id("run-status")}:not([data-state=running])`, { timeout: 3 * MINUTE });
  assert.equal(await page.getAttribute(id("run-status"), "data-state"), "finished");
  assert.deepEqual(await sent(t), ["RunExperiment"]);
});

test("playground: numbers out of range are refused with their range, the value in use stays; a prompt past the context is refused", { timeout: 3 * MINUTE }, async () => {
  await page.click('nav >> text="Playground"');
  await page.waitForSelector(READY);
  // Typed key by key, as a learner does (Chromium drops keys a number box cannot hold); each
  // key acts, so "12" sets 1, then 12.
  const typed = async (testid, value) => {
    await page.focus(id(testid));
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Backspace");
    if (value) await page.keyboard.type(value);
    await page.keyboard.press("Tab");
    return page.inputValue(id(testid));
  };
  // An entry out of range, put in at once: it stays in the box, with a message that names
  // the range and the value still in use.
  const refused = async (testid, value, range, still) => {
    await page.fill(id(testid), value);
    await page.keyboard.press("Tab");
    assert.equal(await page.inputValue(id(testid)), value, `${testid}: the refused entry stays in view`);
    assert.equal(await page.getAttribute(id(testid), "aria-invalid"), "true");
    assert.match(await page.textContent(id(`${testid}-error`)), new RegExp(`^Not used: ${value} is not a whole number from ${range}\\. Still ${still}\\.$`));
  };
  assert.equal(await typed("max-tokens", "12"), "12");
  await refused("max-tokens", "0", "1 to 1024", "12");
  await refused("max-tokens", "99999", "1 to 1024", "12");
  assert.equal(await typed("max-tokens", "12"), "12");
  assert.equal(await page.isVisible(id("max-tokens-error")), false, "a valid entry clears the message");
  await refused("top-k", "-5", "0 to 100", "40");
  // Nothing typed (a number box drops letters): leaving it shows the value in use.
  for (const bad of ["abc", ""]) {
    assert.equal(await typed("top-k", bad), "40", `top-k after typing ${JSON.stringify(bad)}`);
  }
  // As the browser reads a number box, "1e1" is 10.
  assert.equal(await typed("top-k", "1e1"), "10");
  await refused("seed", "99999999999", "0 to 4294967295", "\\d+");
  // A range input set by script (devtools, say) to values it would not offer.
  for (const bad of ["NaN", "-1", "7", "Infinity"]) {
    await setInput(page, "temperature", bad);
    const shown = Number(await page.textContent(id("temperature-value")));
    assert.ok(shown >= 0 && shown <= 2, `temperature ${shown} after ${bad}`);
  }

  const output = await text("output");
  // About 3,000 tokens: more than the page's 2,048-token context, which still holds after
  // Lesson 2's cold runs above (each in a fresh session; those once lost the cap).
  await page.fill(id("prompt"), "one two three four five ".repeat(600));
  await page.click(id("generate"));
  await page.waitForSelector(id("playground-error"));
  assert.match(await text("playground-error"), /the prompt is \d+ tokens, and the context holds 2048; shorten it/);
  assert.equal(await text("output"), output, "the last answer stays");
  assert.ok(await page.isEnabled(id("generate")));
});

test("a trap inside an async task of the worker is reported, and the worker replaced", { timeout: 3 * MINUTE }, async () => {
  await page.click('nav >> text="Playground"');
  await page.waitForSelector(READY);
  const worker = engineWorker(page);
  // What a wasm trap inside a future looks like from JavaScript: a rejected promise that
  // nothing handles. The page's Worker.onerror never sees it.
  await worker.evaluate(() => {
    Promise.reject(new Error("simulated trap in a task"));
  });
  await page.waitForSelector(id("engine-notice"));
  assert.match(await text("engine-notice"), /stopped unexpectedly \(simulated trap in a task\)\. It was restarted/);
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  assert.match(await greedy(QUESTION, 16), /Paris/);
});

test("no request left the origin, and no errors reached the console but the simulated one", async () => {
  assert.deepEqual(session.foreign(), []);
  assert.deepEqual(session.consoleErrors.filter((e) => !e.includes("simulated trap")), []);
});

test("a tab that cannot give the model its memory says so, offers Retry, and the site still works", { timeout: 3 * MINUTE }, async () => {
  // V8 caps every wasm memory at 1,280 pages (80 MiB); the weights need more.
  const small = await openSession({ args: ["--js-flags=--wasm-max-mem-pages=1280"] });
  try {
    const { page } = small;
    await page.goto(small.url("/playground"));
    await page.waitForSelector("[data-testid=model-status][data-state=error]", { timeout: 2 * MINUTE });
    const status = await page.textContent(id("model-status"));
    assert.match(status, /Not enough memory: this tab could not get [\d.]+ MB more for the model's blk\.\d+\.\w+\.weight\. Close other tabs or apps and press Retry/);
    assert.ok(await page.isVisible(id("retry")));
    // No restart loop: the one worker stays, and the error with it.
    await page.waitForTimeout(2000);
    assert.equal(engineWorkers(page).length, 1);
    assert.equal(await page.getAttribute(id("model-status"), "data-state"), "error");
    await page.click('nav >> text="Glossary"');
    await page.waitForSelector("#kv-cache");
    console.log(`  the page said: ${status}`);
    assert.deepEqual(small.consoleErrors, []);
  } finally {
    await small.close();
  }
});

test("a download that breaks off says how far it got, keeps nothing, and Retry fetches the model again", { timeout: 4 * MINUTE }, async () => {
  let cut = true;
  const broken = await openSession({ cutAfter: (path) => (cut && path.endsWith(".gguf") ? 20_000_000 : null) });
  try {
    const { page } = broken;
    await page.goto(broken.url("/playground"));
    await page.waitForSelector("[data-testid=model-status][data-state=error]", { timeout: 2 * MINUTE });
    assert.match(await page.textContent(id("model-status")), /The download of the model broke off after [\d.]+ MB of 98\.4 MB \(.+\)\. Nothing was kept: Retry starts again\./);
    const cached = await page.evaluate(async () => (await (await caches.open("models-v1")).keys()).length);
    assert.equal(cached, 0, "no partial file in the cache");
    cut = false;
    await page.click(id("retry"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.match(await page.textContent(id("model-status")), /downloaded/);
    assert.deepEqual(broken.consoleErrors.filter((e) => !e.includes("Failed to load resource")), []);
  } finally {
    await broken.close();
  }
});

// The built site (dist/) in headless Chromium, as a learner meets it: one browser profile
// for the whole run, so the later tests see what the first visit left behind (the cached
// model, the service worker). The tests run in order.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { engineWorker, MINUTE, openSession, playgroundGenerate, playgroundGreedy, READY, ROOT } from "./session.mjs";

const GLOSSARY_IDS = [
  "temperature", "top-p", "top-k", "sampling", "chain-of-thought", "test-time-compute",
  "reasoning-tokens", "speculative-decoding", "kv-cache", "prefill", "decode",
];

/** The first `# ` heading of a content file: what the page's h1 must say. */
const title = (file) => readFileSync(join(ROOT, "src/content", file), "utf8").match(/^# (.+)$/m)[1].trim();
const ROUTES = [
  ["/", title("home.md")],
  ["/learn/generation", title("generation.md")],
  ["/learn/stages", title("stages.md")],
  ["/learn/reasoning", title("reasoning.md")],
  ["/playground", "Playground"],
  ["/glossary", title("glossary.md")],
  ["/reading", title("reading.md")],
  ["/saved", "Saved work"],
];

let session, server, browser, page, url;

before(async () => {
  session = await openSession();
  ({ server, browser, page, url } = session);
  // The largest value the model's progress bar ever showed, whatever happens between polls.
  await browser.context.addInitScript(() => {
    window.__progressSeen = 0;
    new MutationObserver(() => {
      const bar = document.querySelector("[data-testid=model-progress]");
      if (bar && bar.value > window.__progressSeen) window.__progressSeen = bar.value;
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
});

after(() => session?.close());

const text = (testid) => page.textContent(`[data-testid=${testid}]`);

/** Generates with the playground's current settings; returns the output and the token count. */
const generate = (prompt, { maxTokens = 48 } = {}) => playgroundGenerate(page, prompt, maxTokens);

/** Playground, greedy: the same text every run. */
async function greedyPlayground() {
  await page.goto(url("/playground"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await playgroundGreedy(page);
}

test("the home page, the glossary and the reading list do not download the model; they offer to", { timeout: MINUTE }, async () => {
  for (const path of ["/", "/glossary", "/reading"]) {
    await page.goto(url(path));
    await page.waitForSelector("[data-testid=model-status][data-state=idle]");
    assert.match(await text("model-status"), /SmolLM2-135M-Instruct, 98\.4 MB\) is not loaded: this page does not run it/);
    // Requests wait in the page until the engine's worker listens: once its threads have
    // started, a load would have been asked for.
    await page.waitForFunction(() => !/starting/.test(document.querySelector("[data-testid=engine-threads]")?.textContent ?? "starting"));
    await page.waitForTimeout(500);
  }
  assert.deepEqual(session.requests.filter((r) => r.url.endsWith(".gguf")), [], "no request for the model file");
});

test("first visit: a cancelled download leaves no model and the offer, and does not start again", { timeout: 2 * MINUTE }, async () => {
  await page.goto(url("/learn/generation"));
  // The model's response is held back, so that the cancel comes in the middle of the download.
  let held = 0;
  const hold = async (route) => {
    held++;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await route.continue().catch(() => {});
  };
  await page.route("**/*.gguf", hold);
  try {
    await page.waitForSelector("[data-testid=model-status][data-state=loading]");
    while (held === 0) await page.waitForTimeout(100);
    await page.click("[data-testid=cancel-load]");
    await page.waitForSelector("[data-testid=model-status][data-state=idle]");
    assert.match(await text("model-offer"), /download was cancelled: the model \(SmolLM2-135M-Instruct, 98\.4 MB\) is not loaded/);
    assert.ok(await page.isVisible("[data-testid=load-model]"), "the offer to load it");
    // Long enough for a restarted download to have asked again.
    await page.waitForTimeout(6000);
    assert.equal(await page.getAttribute("[data-testid=model-status]", "data-state"), "idle", "still no model");
    assert.equal(held, 1, "no second request for the model file");
    // Another page that runs the model does not start it behind the learner's back either.
    await page.click('nav >> text="Playground"');
    await page.waitForSelector("[data-testid=load-model]");
    await page.waitForTimeout(2000);
    assert.equal(held, 1, "nor does the playground");
  } finally {
    await page.unroute("**/*.gguf", hold);
  }
  assert.deepEqual(session.consoleErrors, []);
});

test("first visit: the model downloads with visible progress and becomes ready, with no console errors", { timeout: 3 * MINUTE }, async () => {
  await page.goto(url("/"));
  // The size the offer gives (a constant of the site) is the size of the file that loads.
  const offered = (await text("model-status")).match(/([\d.]+ MB)/)[1];
  await page.click("[data-testid=load-model]");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  assert.match(await text("model-status"), /Model ready.*downloaded/);
  assert.equal((await text("model-status")).match(/layers, ([\d.]+ MB)/)[1], offered);
  // The home page quotes the built-in model's facts (src/model_file.rs through src/content's
  // placeholders): they are those the engine read from the file it loaded.
  const status = await text("model-status");
  const home = await page.textContent("article.home");
  assert.match(home, new RegExp(`has ${status.match(/(\d+) layers/)[1]} layers`));
  const vocab = Number(status.match(/Vocabulary: (\d+) tokens/)[1]);
  assert.match(home, new RegExp(`a vocabulary of ${vocab.toLocaleString("en-US")} tokens`));
  assert.ok((await page.evaluate(() => window.__progressSeen)) > 0, "the progress bar showed bytes loaded");
  assert.deepEqual(session.consoleErrors, []);
});

test("every route renders from a deep link, through the menu, and back", { timeout: 2 * MINUTE }, async () => {
  for (const [path, heading] of ROUTES) {
    await page.goto(url(path));
    assert.equal((await page.textContent("main h1")).trim(), heading, `h1 of ${path}`);
    assert.doesNotMatch(await page.textContent("main"), /\{[a-z0-9-]+\.[a-z-]+\}/, `${path}: a placeholder left unfilled`);
  }
  for (const slug of ["generation", "stages", "reasoning"]) {
    await page.goto(url(`/learn/${slug}`));
    await page.waitForSelector(`[data-testid=interactive-${slug}]`);
  }
  await page.goto(url("/no/such/page"));
  assert.match(await page.textContent("main h1"), /does not exist/);

  await page.goto(url("/"));
  const menu = ["1. Generation", "2. Stages", "3. Reasoning", "Playground", "Glossary", "Reading", "Saved work"];
  for (const [i, label] of menu.entries()) {
    await page.click(`nav >> text="${label}"`);
    await page.waitForURL(url(ROUTES[i + 1][0]));
    assert.equal((await page.textContent("main h1")).trim(), ROUTES[i + 1][1]);
  }
  for (let i = menu.length - 1; i >= 0; i--) {
    await page.goBack();
    await page.waitForURL(url(ROUTES[i][0]));
    assert.equal((await page.textContent("main h1")).trim(), ROUTES[i][1], `Back to ${ROUTES[i][0]}`);
  }
});

test("every page fits a 390 px wide phone screen", { timeout: MINUTE }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    for (const [path] of ROUTES) {
      await page.goto(url(path));
      await page.waitForSelector("main h1");
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${path} is ${width} px wide`);
    }
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});

test("glossary: every term has its id, a deep link scrolls to it, lessons show definitions on focus", { timeout: MINUTE }, async () => {
  await page.goto(url("/glossary#kv-cache"));
  await page.waitForSelector("#kv-cache");
  for (const id of GLOSSARY_IDS) assert.ok(await page.$(`[id="${id}"]`), `#${id} exists`);
  await page.waitForFunction(() => {
    const top = document.getElementById("kv-cache").getBoundingClientRect().top;
    return window.scrollY > 0 && top >= 0 && top < window.innerHeight / 2;
  });

  await page.goto(url("/learn/stages"));
  const term = page.locator('.term a[href="glossary#kv-cache"]').first();
  const tip = page.locator('.term:has(a[href="glossary#kv-cache"]) .term-tip').first();
  assert.equal(await tip.isVisible(), false);
  await term.focus();
  assert.equal(await tip.isVisible(), true, "the definition shows on keyboard focus");
  assert.match(await tip.textContent(), /KV cache/);
  await term.click();
  await page.waitForURL(url("/glossary#kv-cache"));
  await page.waitForFunction(() => {
    const top = document.getElementById("kv-cache")?.getBoundingClientRect().top;
    return top >= 0 && top < window.innerHeight / 2;
  });
  await page.goto(url("/learn/generation"));
  await page.waitForSelector(".prose math", { state: "attached" });
});

test("playground: a greedy answer about France names Paris and streams at a measured speed", { timeout: 3 * MINUTE }, async () => {
  await greedyPlayground();
  const labelled = await page.$$eval("main input, main textarea", (els) =>
    els.every((el) => el.labels.length > 0 || el.closest("label") || el.getAttribute("aria-label")),
  );
  assert.ok(labelled, "every control has a label");

  const short = await generate("What is the capital of France?");
  assert.match(short.output, /Paris/);
  const long = await generate("What is the capital of France? Tell me a little about it.", { maxTokens: 40 });
  assert.match(long.output, /Paris/);
  assert.ok(long.tokens >= 20, `${long.tokens} tokens`);
  assert.match(await text("tokens-per-second"), /^\d+ tokens · \d+(\.\d)? tokens\/s$/);
  assert.ok(parseFloat((await text("tokens-per-second")).split("·")[1]) > 0);

});

test("playground: an empty prompt gets a message and no generation", { timeout: MINUTE }, async () => {
  const [output, summary] = [await text("output"), await text("summary")];
  for (const empty of ["", "  \n "]) {
    await page.fill("[data-testid=prompt]", empty);
    await page.click("[data-testid=generate]");
    assert.match(await text("playground-error"), /Type a prompt first/);
    assert.ok(await page.isDisabled("[data-testid=stop]"), "nothing is running");
    assert.equal(await text("output"), output, "the last answer stays");
    assert.equal(await text("summary"), summary);
  }
});

test("playground: Stop ends a long generation within a token", { timeout: 2 * MINUTE }, async () => {
  await page.fill("[data-testid=prompt]", "Write a long story about a dragon who learns to fly.");
  await page.fill("[data-testid=max-tokens]", "1000");
  await page.click("[data-testid=generate]");
  await page.waitForFunction(() => parseInt(document.querySelector("[data-testid=tokens-per-second]").textContent) >= 5);
  // The count shown at the very moment of the click (a Playwright round trip takes tokens).
  await page.evaluate(() => {
    const readout = document.querySelector("[data-testid=tokens-per-second]");
    const stop = document.querySelector("[data-testid=stop]");
    stop.addEventListener("click", () => (window.__tokensAtStop = parseInt(readout.textContent)), { capture: true, once: true });
  });
  await page.click("[data-testid=stop]");
  const before = await page.evaluate(() => window.__tokensAtStop);
  await page.waitForSelector("[data-testid=summary]");
  const summary = await text("summary");
  assert.match(summary, /stopped by you/);
  const total = Number(summary.match(/^(\d+) tokens/)[1]);
  // At most the token being computed when Cancel arrived, and one already on its way.
  assert.ok(total - before <= 2, `${total - before} tokens after Stop`);
  assert.ok(await page.isEnabled("[data-testid=generate]"));
});

test("a crashed engine worker is reported and replaced, and generation works again", { timeout: 3 * MINUTE }, async () => {
  await greedyPlayground();
  const worker = engineWorker(page);
  assert.ok(worker, "the engine worker is running");
  await worker.evaluate(() => setTimeout(() => { throw new Error("simulated crash for the test"); }, 100));
  await page.waitForSelector("[data-testid=engine-notice]");
  assert.match(await text("engine-notice"), /stopped unexpectedly.*restarted/);
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  assert.match(await text("model-status"), /from this browser's cache/);
  assert.match((await generate("What is the capital of France?")).output, /Paris/);
});

test("offline: with the server gone the site still opens, deep links work, and the model generates", { timeout: 3 * MINUTE }, async () => {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await server.close();
  await browser.context.setOffline(true);
  try {
    await page.goto(url("/glossary#kv-cache"));
    await page.waitForSelector("#kv-cache");
    await greedyPlayground();
    assert.match((await generate("What is the capital of France?")).output, /Paris/);
  } finally {
    await browser.context.setOffline(false);
  }
});

test("Clear cached model says what it did, and the loaded model stays usable", { timeout: MINUTE }, async () => {
  await page.click("[data-testid=clear-cache]");
  await page.waitForSelector("[data-testid=engine-notice]");
  assert.match(await text("engine-notice"), /cached model file was deleted/);
  assert.ok(await page.isVisible(READY));
});

test("no request left the origin, and no errors reached the console", async () => {
  assert.deepEqual(session.foreign(), []);
  assert.ok(session.requests.some((r) => r.url.endsWith("/models/SmolLM2-135M-Instruct.Q4_1.gguf")), "the model request was seen");
  assert.deepEqual(session.consoleErrors.filter((e) => !e.includes("simulated crash")), []);
});

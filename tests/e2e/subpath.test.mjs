// The site deployed under a sub-path, as a project on GitHub Pages is (/<repo>/): built with
// `trunk build --release --public-url /deep/sub/ --dist dist-subpath` (scripts/test.sh does
// that after the main build) and served only under /deep/sub/, everything else being 404.
// The app suite's main checks run there: the model, every route from a deep link and from
// the menu, a glossary term, generation, Lesson 1's link, offline; and no request may leave
// the sub-path.
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadModel, MINUTE, openSession, playgroundGenerate, playgroundGreedy, READY, ROOT, setInput, tabTo } from "./session.mjs";

export const SUBPATH_DIST = "dist-subpath";
export const BASE = "/deep/sub/";
const ROUTES = ["/", "/learn/generation", "/learn/stages", "/learn/reasoning", "/playground", "/glossary", "/reading"];

let session, page, url, site;

before(async () => {
  assert.ok(
    existsSync(join(ROOT, SUBPATH_DIST, "index.html")),
    `no sub-path build: run \`trunk build --release --public-url ${BASE} --dist ${SUBPATH_DIST}\` (scripts/test.sh does)`,
  );
  session = await openSession({ dist: SUBPATH_DIST, base: BASE });
  ({ page, url } = session);
  site = session.server.url + BASE;
});

after(() => session?.close());

test("the sub-path build is dist/ with another base: only index.html and the build id differ", async () => {
  // Also proves that no path is compiled into the code, and that neither build is stale.
  const files = (await readdir(join(ROOT, SUBPATH_DIST), { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(join(ROOT, SUBPATH_DIST).length + 1))
    .filter((f) => !f.startsWith("models/") && f !== "index.html" && f !== "sw.js");
  assert.ok(files.includes("app_bg.wasm") && files.includes("worker_bg.wasm"), files.join(" "));
  for (const file of files) {
    const [a, b] = await Promise.all([readFile(join(ROOT, "dist", file)), readFile(join(ROOT, SUBPATH_DIST, file))]);
    assert.ok(a.equals(b), `${file} differs between dist/ and ${SUBPATH_DIST}/: rebuild both from the same sources`);
  }
  const index = await readFile(join(ROOT, SUBPATH_DIST, "index.html"), "utf8");
  assert.match(index, new RegExp(`<base href="${BASE}"`));
});

test("first visit under the sub-path: the model loads from there and becomes ready", { timeout: 3 * MINUTE }, async () => {
  await page.goto(url("/"));
  await loadModel(page);
  assert.match(await page.textContent("[data-testid=model-status]"), /Model ready.*downloaded/);
  assert.ok(session.requests.some((r) => r.url === `${site}models/SmolLM2-135M-Instruct.Q4_1.gguf`), "the model came from the sub-path");
  assert.ok(page.workers().some((w) => w.url() === `${site}worker-threads.js`), "the engine worker came from the sub-path");
  const scope = await page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.scope));
  assert.equal(scope, site, "the service worker's scope is the sub-path");
});

test("every route renders from a deep link and through the menu, staying under the sub-path", { timeout: 2 * MINUTE }, async () => {
  const headings = [];
  for (const path of ROUTES) {
    await page.goto(url(path));
    const h1 = (await page.textContent("main h1")).trim();
    assert.doesNotMatch(h1, /does not exist/, `${path} was routed`);
    headings.push(h1);
  }
  await page.goto(url("/no/such/page"));
  assert.match(await page.textContent("main h1"), /does not exist/);
  await page.click("main >> text=home page");
  await page.waitForURL(url("/"));

  const menu = ["1. Generation", "2. Stages", "3. Reasoning", "Playground", "Glossary", "Reading"];
  for (const [i, label] of menu.entries()) {
    await page.click(`nav >> text="${label}"`);
    await page.waitForURL(url(ROUTES[i + 1]));
    assert.equal((await page.textContent("main h1")).trim(), headings[i + 1]);
  }
  await page.click("header >> text=Inference Playground");
  await page.waitForURL(url("/"));
  assert.equal((await page.textContent("main h1")).trim(), headings[0]);
});

test("a lesson's glossary term leads to the glossary under the sub-path", { timeout: MINUTE }, async () => {
  await page.goto(url("/learn/stages"));
  const term = page.locator('.term a[href="glossary#kv-cache"]').first();
  await term.focus();
  assert.equal(await page.locator('.term:has(a[href="glossary#kv-cache"]) .term-tip').first().isVisible(), true);
  await term.click();
  await page.waitForURL(url("/glossary#kv-cache"));
  await page.waitForSelector("#kv-cache");
});

test("the skip link moves focus to the page's content without leaving the page", { timeout: MINUTE }, async () => {
  await page.goto(url("/reading"));
  await tabTo(page, "a.skip");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.activeElement.id === "main");
  assert.equal(page.url(), url("/reading"));
});

test("Lesson 1 writes its settings into a link under the sub-path", { timeout: 3 * MINUTE }, async () => {
  await page.goto(url("/learn/generation"));
  await page.waitForSelector("[data-testid=prob-bar]", { timeout: 2 * MINUTE });
  await setInput(page, "temperature", 1.3);
  await page.waitForFunction(() => location.search.includes("1.3"));
  assert.equal(await page.evaluate(() => location.pathname), `${BASE}learn/generation`);
});

test("the playground generates under the sub-path", { timeout: 3 * MINUTE }, async () => {
  await page.goto(url("/playground"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await playgroundGreedy(page);
  assert.match((await playgroundGenerate(page, "What is the capital of France?", 24)).output, /Paris/);
});

test("offline under the sub-path: the site opens, deep links work, and the model generates", { timeout: 3 * MINUTE }, async () => {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await session.server.close();
  await session.browser.context.setOffline(true);
  try {
    await page.goto(url("/glossary#kv-cache"));
    await page.waitForSelector("#kv-cache");
    await page.goto(url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.match(await page.textContent("[data-testid=model-status]"), /from this browser's cache/);
    await playgroundGreedy(page);
    assert.match((await playgroundGenerate(page, "What is the capital of France?", 24)).output, /Paris/);
  } finally {
    await session.browser.context.setOffline(false);
  }
});

test("no request left the sub-path, and no errors reached the console", async () => {
  const outside = session.requests.filter((r) => !/^(data|blob):/.test(r.url) && !r.url.startsWith(site));
  assert.deepEqual(outside, []);
  assert.deepEqual(session.consoleErrors, []);
});

// Nothing a learner does is lost: the playground's conversation, Lesson 2's measurements (the
// prefill and decode run, the KV panel's runs with and without the cache, the reuse,
// speculative and pass-cost panels' runs with the messages and settings they ran with) and Lesson 3's
// finished runs are kept in the browser (IndexedDB) and come back after a glossary link and
// Back and after a reload (a run left while it runs, with the tasks it finished); Saved work
// (/saved) lists them with their date and the
// model that made them (Gemma 3 270M when it is picked, which the lessons then name too; a lesson
// showing a saved item names the model that made it, not the one loaded), deletes them, and
// exports and imports them as one JSON file that restores a conversation exactly; an item
// of another version is listed as unreadable; a refused write says so. At 390 px the
// playground's settings fold away below the prompt and Send. One browser profile; the tests
// run in order and build on each other's work. (Firefox and WebKit: smoke.mjs reloads a
// conversation.) The README's picture of Saved work is scripts/make-saved-work-png.mjs's.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { chooseStrategies, MINUTE, openSession, playgroundGreedy, READY, setInput, stagesPanelIdle } from "./session.mjs";

let session, page, url;

before(async () => {
  session = await openSession();
  ({ page, url } = session);
});

after(() => session?.close());

const sel = (testid) => `[data-testid=${testid}]`;
const text = (testid) => page.textContent(sel(testid));

/** Sends `prompt` as the next turn and waits for its answer. */
async function send(prompt) {
  await page.fill(sel("prompt"), prompt);
  await page.click(sel("generate"));
  await page.waitForSelector(`${sel("stop")}:disabled`, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("summary"), { timeout: MINUTE });
}

/** The conversation as the page shows it: each turn's role, text and token ids. */
const conversation = () =>
  page.$$eval(sel("chat-turn"), (els) =>
    els.map((e) => [e.dataset.role, e.querySelector(".said, .output")?.textContent, [...e.querySelectorAll("[data-token-id]")].map((t) => t.dataset.tokenId).join(" ")]),
  );

/** The playground's own export of the conversation, parsed. */
async function exported() {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click(sel("export"))]);
  return JSON.parse(readFileSync(await download.path(), "utf8"));
}

/** The results table's rows, as the page shows them. */
const results = () => page.$$eval(`${sel("results-table")} tbody tr`, (trs) => trs.map((tr) => ({ ...tr.dataset })));

let three, saved;

test("a three-turn conversation survives a glossary link and Back, and a reload; sending goes on with it", { timeout: 3 * MINUTE }, async () => {
  await page.goto(url("/playground"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await playgroundGreedy(page);
  await page.fill(sel("max-tokens"), "4");
  await send("Name a fruit.");
  await send("Name a colour.");
  await send("Name a city.");
  three = await conversation();
  assert.equal(three.length, 6);
  saved = await exported();

  await page.click('nav >> text="Glossary"');
  await page.waitForSelector("#kv-cache");
  await page.goBack();
  await page.waitForSelector(sel("summary"));
  assert.deepEqual(await conversation(), three, "back from the glossary: every turn");
  assert.equal(await page.inputValue(sel("temperature")), "0", "and the settings");

  await page.reload();
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("summary"));
  assert.deepEqual(await conversation(), three, "after a reload: every turn");
  assert.deepEqual(await exported(), saved, "exactly: tokens, probabilities, alternatives, settings");

  await page.goto(url("/playground"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("summary"));
  assert.deepEqual(await conversation(), three, "from the menu's address, without a query: the same");

  await send("Name an animal.");
  const four = await conversation();
  assert.deepEqual(four.slice(0, 6), three, "sending after three turns keeps them");
  assert.equal(four.length, 8);
  // Back to the three turns for the tests below: Edit drops what followed the third message.
  await page.click(`${sel("edit")} >> nth=2`);
  await page.click(sel("edit-save"));
  await page.waitForSelector(`${sel("stop")}:disabled`, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("summary"));
  assert.deepEqual(await conversation(), three, "greedy: the third answer again");
  saved = await exported();
});

test("a Lesson 3 run survives navigation and a reload", { timeout: 4 * MINUTE }, async () => {
  await page.click('nav >> text="3. Reasoning"');
  await chooseStrategies(page, ["direct"]);
  await page.fill(sel("limit"), "2");
  await page.click(sel("run-experiment"));
  await page.waitForSelector(`${sel("run-status")}[data-state=finished]`, { timeout: 3 * MINUTE });
  const rows = await results();
  assert.equal(rows.length, 1);
  assert.equal(rows[0].n, "2");

  await page.click('nav >> text="Glossary"');
  await page.waitForSelector("#kv-cache");
  await page.goBack();
  await page.waitForSelector(`${sel("run-status")}[data-state=finished][data-run="1"]`);
  assert.deepEqual(await results(), rows, "back from the glossary: the same results");

  await page.reload();
  await page.waitForSelector(`${sel("run-status")}[data-state=finished][data-run="1"]`);
  assert.deepEqual(await results(), rows, "after a reload: the same results");
  assert.equal(await page.getAttribute(sel("experiment-progress"), "value"), "2");
  // The run shown is a saved one, and the line before it says which model made it.
  assert.equal(
    await text("measured-on"),
    "Shown: a measurement saved earlier, made on SmolLM2-135M-Instruct.Q4_1. A new run measures SmolLM2-135M-Instruct.Q4_1.",
  );
});

test("Saved work lists both with date and model; export, delete and import restore a conversation exactly", { timeout: 3 * MINUTE }, async () => {
  await page.click('nav >> text="Saved work"');
  await page.waitForSelector(`${sel("saved-list")}[aria-busy=false]`);
  const items = () =>
    page.$$eval(`${sel("saved-list")} ${sel("saved-item")}`, (els) =>
      els.map((e) => ({ kind: e.dataset.kind, id: e.dataset.id, date: e.querySelector("[data-testid=saved-date]")?.textContent, model: e.querySelector("[data-testid=saved-model]")?.textContent })),
    );
  const listed = await items();
  assert.deepEqual(listed.map((i) => i.kind).sort(), ["conversation", "reasoning-run"]);
  for (const item of listed) {
    assert.match(item.date, /^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    assert.equal(item.model, "SmolLM2-135M-Instruct.Q4_1");
    assert.ok(item.id.startsWith(item.kind), item.id);
  }
  assert.match(await page.textContent(`${sel("saved-item")}[data-kind=conversation] h2`), /Name a fruit\./);

  const [download] = await Promise.all([page.waitForEvent("download"), page.click(sel("export-saved"))]);
  const file = await download.path();
  assert.equal(JSON.parse(readFileSync(file, "utf8")).items.length, 2);

  for (const kind of ["conversation", "reasoning-run"]) {
    await page.click(`${sel("saved-item")}[data-kind=${kind}] ${sel("delete-saved")}`);
    await page.waitForFunction((k) => !document.querySelector(`[data-testid=saved-item][data-kind=${k}]`), kind);
  }
  await page.waitForSelector(sel("saved-empty"));
  assert.deepEqual(await items(), []);

  // A file that is not saved work is refused, and nothing changes.
  await page.setInputFiles(sel("import-saved"), { name: "bad.json", mimeType: "application/json", buffer: Buffer.from('{"format": "something else"}') });
  await page.waitForSelector(`${sel("saved-message")}.error`);
  assert.deepEqual(await items(), []);

  await page.setInputFiles(sel("import-saved"), file);
  await page.waitForFunction(() => /Imported 2 items/.test(document.querySelector("[data-testid=saved-message]")?.textContent));
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=saved-item]").length === 2);
  assert.deepEqual(await items(), listed, "the same items, ids and dates");

  await page.click(`${sel("saved-item")}[data-kind=conversation] ${sel("open-saved")}`);
  await page.waitForSelector(sel("summary"));
  assert.deepEqual(await conversation(), three);
  assert.deepEqual(await exported(), saved, "the imported conversation is the exported one, exactly");
});

test("an item of another version is listed as unreadable and the pages still work", { timeout: 2 * MINUTE }, async () => {
  // What an older or newer site could have left: a record of another version, and a value
  // that is not a record at all; the playground's pointer names the first.
  await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open("inference-playground", 1);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction(["items", "pointers"], "readwrite");
          const record = { format: "inference-playground-saved", version: 99, id: "conversation-old", kind: "conversation", saved: 0, model: "m", title: "old", body: {} };
          tx.objectStore("items").put(JSON.stringify(record), "conversation-old");
          tx.objectStore("items").put({ some: "object" }, "not-a-record");
          tx.objectStore("pointers").put("conversation-old", "playground-conversation");
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
  await page.goto(url("/saved"));
  await page.waitForSelector(`${sel("saved-list")}[aria-busy=false]`);
  const unreadable = await page.$$eval(`${sel("saved-item")}[data-unreadable=true]`, (els) => els.map((e) => [e.dataset.id, e.textContent]));
  assert.deepEqual(unreadable.map(([id]) => id).sort(), ["conversation-old", "not-a-record"]);
  assert.match(unreadable.find(([id]) => id === "conversation-old")[1], /another version of the site.*version 99/);
  assert.equal(await page.$$eval(`${sel("saved-item")}:not([data-unreadable])`, (els) => els.length), 2, "the readable items are listed too");

  await page.click('nav >> text="Playground"');
  await page.waitForSelector(sel("save-error"));
  assert.match(await text("save-error"), /cannot be opened.*listed in Saved work/);
  assert.deepEqual(await conversation(), [], "a new conversation instead");
  assert.ok(await page.isVisible(sel("prompt")));

  await page.click('nav >> text="Saved work"');
  for (const id of ["conversation-old", "not-a-record"]) {
    await page.click(`${sel("saved-item")}[data-id="${id}"] ${sel("delete-saved")}`);
    await page.waitForFunction((i) => !document.querySelector(`[data-testid=saved-item][data-id="${i}"]`), id);
  }
});

test("a refused write says so, and the conversation stays on the page", { timeout: 2 * MINUTE }, async () => {
  await page.goto(url("/playground"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await playgroundGreedy(page);
  await page.fill(sel("max-tokens"), "4");
  // The browser's storage is full: every write is refused as a browser refuses it.
  await page.evaluate(() => {
    window.__put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function () {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    };
  });
  await send("Name a tree.");
  await page.waitForSelector(sel("save-error"));
  assert.match(await text("save-error"), /refused to save: the storage .* is full/);
  assert.equal((await conversation()).length, 2, "the conversation is still here");
  await page.evaluate(() => (IDBObjectStore.prototype.put = window.__put));
  await send("Name a river.");
  await page.waitForSelector(sel("save-error"), { state: "detached" });
  await page.reload();
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("summary"));
  assert.equal((await conversation()).length, 4, "saved once the storage took it");
});

test("at 390 px the settings fold away below the prompt and Send, and no page scrolls sideways", { timeout: 2 * MINUTE }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.equal(await page.$eval(sel("settings"), (d) => d.open), false, "folded away");
    const box = async (css) => (await page.$(css)).boundingBox();
    const [prompt, send, settings] = [await box(sel("prompt")), await box(sel("generate")), await box(sel("settings"))];
    assert.ok(prompt.y < send.y && send.y < settings.y, "prompt, then Send, then the settings");
    assert.equal(await page.isVisible(sel("temperature")), false);
    const width = () => page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok((await width()) <= 390, `the playground is ${await width()} px wide`);
    await page.click(`${sel("settings")} summary`);
    assert.ok(await page.isVisible(sel("temperature")), "the disclosure opens");
    assert.ok((await width()) <= 390, `with its settings open, ${await width()} px wide`);
    await page.goto(url("/saved"));
    await page.waitForSelector(`${sel("saved-list")}[aria-busy=false]`);
    assert.ok((await width()) <= 390, `Saved work is ${await width()} px wide`);
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});

test("the newest token stays in view while the answer is written", { timeout: 2 * MINUTE }, async () => {
  await page.setViewportSize({ width: 390, height: 700 });
  try {
    await page.goto(url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    await page.waitForSelector(sel("summary"));
    await page.click(`${sel("settings")} summary`);
    await page.fill(sel("max-tokens"), "80");
    await page.click(`${sel("settings")} summary`);
    await page.fill(sel("prompt"), "Write a long story about a dragon.");
    await page.$eval(sel("generate"), (b) => b.scrollIntoView({ block: "end" }));
    await page.click(sel("generate"));
    await page.waitForSelector(`${sel("stop")}:enabled`);
    // After each token, once the page has drawn it and followed it: the answer's end is on the screen.
    const lowest = await page.evaluate(
      () =>
        new Promise((resolve) => {
          let worst = -Infinity;
          // The newest token (the answer box's own padding below it may sit under the edge).
          const newest = () => [...document.querySelectorAll(".chat-turn.assistant .output")].at(-1)?.querySelector("[data-testid=token]:last-of-type");
          const measure = () => {
            const token = newest();
            if (token) worst = Math.max(worst, token.getBoundingClientRect().bottom - window.innerHeight);
          };
          const watch = new MutationObserver(() => requestAnimationFrame(() => requestAnimationFrame(measure)));
          watch.observe(document.querySelector(".transcript"), { subtree: true, childList: true });
          const done = setInterval(() => {
            if (document.querySelector("[data-testid=stop]").disabled) {
              clearInterval(done);
              watch.disconnect();
              resolve(worst);
            }
          }, 50);
        }),
    );
    assert.ok(lowest <= 0, `the newest token went ${lowest} px below the screen`);
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});

/** Lesson 2's prefill and decode readouts, as the page shows them. */
const readouts = () => page.$$eval("[data-testid=ttft-ms], [data-testid=prefill-tps], [data-testid=decode-tps]", (els) => els.map((e) => e.dataset.value));

/** Saved work's items of `kind`: id, model and title. */
async function savedOf(kind) {
  await page.goto(url("/saved"));
  // Attached, not visible: an empty list has no height.
  await page.waitForSelector(`${sel("saved-list")}[aria-busy=false]`, { state: "attached" });
  return page.$$eval(`${sel("saved-item")}[data-kind=${kind}]`, (els) =>
    els.map((e) => ({ id: e.dataset.id, model: e.querySelector("[data-testid=saved-model]").textContent, title: e.querySelector("h2").textContent })),
  );
}

test("a Lesson 2 measurement survives navigation and a reload, and Saved work opens it in its lab or deletes it", { timeout: 3 * MINUTE }, async () => {
  await page.goto(url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  assert.equal(await page.getAttribute(`${sel("measured-on")} >> nth=0`, "data-model"), "SmolLM2-135M-Instruct.Q4_1");
  await page.fill(sel("timeline-max-tokens"), "5");
  await page.click(sel("timeline-run"));
  await page.waitForSelector(`${sel("timeline-stop")}:disabled`, { timeout: MINUTE });
  await page.waitForSelector(`${sel("timeline-run")}:enabled`);
  const measured = await readouts();
  assert.ok(measured.every((v) => Number(v) > 0), `measured: ${measured}`);
  const blocks = await page.$$eval(`${sel("timeline")} rect`, (r) => r.map((b) => b.dataset.ms));
  assert.equal(blocks.length, 5);

  await page.click('nav >> text="Glossary"');
  await page.waitForSelector("#kv-cache");
  await page.goBack();
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=timeline] rect").length === n, blocks.length);
  assert.deepEqual(await readouts(), measured, "back from the glossary: the same numbers");

  await page.reload();
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=timeline] rect").length === n, blocks.length);
  assert.deepEqual(await readouts(), measured, "after a reload: the same numbers");
  assert.deepEqual(await page.$$eval(`${sel("timeline")} rect`, (r) => r.map((b) => b.dataset.ms)), blocks, "and the same timeline");

  const [item] = await savedOf("stage-measurement");
  assert.equal(item.model, "SmolLM2-135M-Instruct.Q4_1");
  assert.match(item.title, /^Prefill and decode: \d+ prompt tokens at [\d.]+ tokens\/s, 4 more at [\d.]+ tokens\/s$/);
  await page.click(`${sel("saved-item")}[data-id="${item.id}"] ${sel("open-saved")}`);
  await page.waitForURL(/\/learn\/stages#prefill-lab$/);
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=timeline] rect").length === n, blocks.length);
  assert.deepEqual(await readouts(), measured, "Open shows it in its lab");

  await page.goto(url("/saved"));
  await page.click(`${sel("saved-item")}[data-id="${item.id}"] ${sel("delete-saved")}`);
  await page.waitForFunction((i) => !document.querySelector(`[data-testid=saved-item][data-id="${i}"]`), item.id);
  await page.goto(url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForTimeout(500);
  assert.equal(await page.$$eval(`${sel("timeline")} rect`, (r) => r.length), 0, "deleted: the lab is empty again");
});

/** The KV panel's totals, last ratio and verdict on the texts, as the page shows them. */
const cacheFigures = () =>
  page.$$eval(["cache-on-total-ms", "cache-off-total-ms", "cache-last-ratio", "cache-identical"].map(sel).join(", "), (els) =>
    els.map((e) => e.dataset.value ?? e.dataset.state),
  );

/** Deletes `items` in Saved work, then opens Lesson 2 again, whose panels are then empty. */
async function deleteAndReopenLesson2(items) {
  for (const item of items) {
    await page.click(`${sel("saved-item")}[data-id="${item.id}"] ${sel("delete-saved")}`);
    await page.waitForFunction((i) => !document.querySelector(`[data-testid=saved-item][data-id="${i}"]`), item.id);
  }
  await page.goto(url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForTimeout(500);
}

test("the KV panel's runs with and without the cache survive navigation and a reload, and Saved work lists and deletes them", { timeout: 3 * MINUTE }, async () => {
  await page.goto(url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  assert.equal(await page.getAttribute(`${sel("cache-identical")}`, "data-state"), "pending");
  await page.fill(sel("cache-max-tokens"), "6");
  for (const cache of [true, false]) {
    await page.setChecked(sel("kv-cache-toggle"), cache);
    await page.click(sel("cache-run"));
    await page.waitForSelector(`${sel("cache-stop")}:disabled`, { timeout: MINUTE });
    await page.waitForSelector(`${sel("cache-run")}:enabled`);
  }
  await page.waitForSelector(`${sel("cache-identical")}[data-state=pass]`);
  const measured = await cacheFigures();
  assert.equal(measured.length, 4);
  assert.ok(measured.slice(0, 3).every((v) => Number(v) > 0), `measured: ${measured}`);

  await page.click('nav >> text="Glossary"');
  await page.waitForSelector("#kv-cache");
  await page.goBack();
  await page.waitForSelector(`${sel("cache-identical")}[data-state=pass]`);
  assert.deepEqual(await cacheFigures(), measured, "back from the glossary: both runs, the same numbers");
  await page.reload();
  await page.waitForSelector(`${sel("cache-identical")}[data-state=pass]`);
  assert.deepEqual(await cacheFigures(), measured, "after a reload: the same");

  const items = await savedOf("stage-measurement");
  assert.deepEqual(items.map((i) => i.model), ["SmolLM2-135M-Instruct.Q4_1", "SmolLM2-135M-Instruct.Q4_1"]);
  const titles = items.map((i) => i.title).sort();
  assert.match(titles[0], /^KV cache off: 6 tokens after \d+ prompt tokens? in [\d.]+ m?s$/);
  assert.match(titles[1], /^KV cache on: 6 tokens after \d+ prompt tokens? in [\d.]+ m?s$/);
  await deleteAndReopenLesson2(items);
  assert.equal(await page.getAttribute(sel("cache-identical"), "data-state"), "pending", "deleted: the panel is empty again");
});

/** Clicks a Lesson 2 panel's Run and waits until it (and any chain it started) is idle again. */
async function runPanel(panel, timeout = 2 * MINUTE) {
  await page.click(sel(`${panel}-run`));
  await stagesPanelIdle(page, panel, timeout);
}

/** What the reuse, speculative and pass-cost panels show: their figures, texts and settings. */
const threePanels = () =>
  page.evaluate(() => {
    const el = (testid) => document.querySelector(`[data-testid=${testid}]`);
    const figure = (testid) => el(testid)?.dataset.value ?? null;
    return {
      reuse: ["reuse-reused", "reuse-computed", "reuse-ttft", "cold-ttft"].map(figure),
      reuseTexts: ["turn1-output", "turn2-output"].map((t) => el(t).textContent),
      reuseTokens: [...document.querySelectorAll("[data-testid=reuse-tokens] .tok")].map((t) => t.className + t.textContent),
      messages: ["turn1-message", "turn2-message"].map((t) => el(t).value),
      spec: ["plain-tps", "spec-tps", "spec-speedup", "acceptance-rate"].map(figure),
      specText: el("spec-output").textContent,
      lossless: el("spec-lossless")?.dataset.state ?? null,
      specSettings: ["spec-prompt", "spec-method", "spec-draft-len", "spec-max-tokens"].map((t) => el(t).value),
      draws: [...document.querySelectorAll("[data-testid=spec-draws-row]")].map((r) => [r.dataset.prob, r.dataset.count]),
      drawsVerdict: el("spec-draws-verdict")?.dataset.p ?? null,
      drawsSettings: el("spec-draws-settings")?.textContent ?? null,
      passes: [...document.querySelectorAll('[data-testid=pass-cost-chart] g[data-series="ms per pass"] circle')].map((c) => [c.dataset.x, c.dataset.y]),
      passVerdict: [el("pass-cost-verdict").dataset.state, el("pass-cost-verdict").textContent],
    };
  });

/** The "Measured on" line above the lab whose heading is `heading`. */
const measuredOnAbove = (heading) => page.textContent(`${sel("measured-on")}:has(+ section[aria-labelledby=${heading}])`);

/** Waits until the three panels show their saved measurements again. */
const restored = () =>
  Promise.all([
    page.waitForSelector(`${sel("pass-cost-verdict")}[data-state=done]`),
    page.waitForSelector(`${sel("spec-lossless")}[data-state=pass]`),
    page.waitForSelector(sel("spec-draws-verdict")),
    page.waitForSelector(`${sel("cold-ttft")}[data-value]`),
  ]);

test("a pass-cost measurement stopped part-way is not shown as done, and is not saved", { timeout: 2 * MINUTE }, async () => {
  await page.goto(url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  // Stopped at once, while the worker fills the cache the passes start from (the passes
  // themselves take about a second, too fast to stop between two of them reliably).
  // In the page, so that a busy machine's round trips do not let it finish first.
  await page.evaluate(async () => {
    document.querySelector("[data-testid=pass-cost-run]").click();
    const stop = document.querySelector("[data-testid=pass-cost-stop]");
    while (stop.disabled) await new Promise((r) => setTimeout(r, 0));
    stop.click();
  });
  await stagesPanelIdle(page, "pass-cost");
  const timed = await page.$$eval(`${sel("pass-cost-chart")} g[data-series="ms per pass"] circle`, (c) => c.length);
  assert.ok(timed < 5, `Stop was heard before the last size (${timed} of 5 timed)`);
  assert.equal(await page.getAttribute(sel("pass-cost-verdict"), "data-state"), "stopped");
  assert.equal(await text("pass-cost-verdict"), `Stopped after ${timed} of 5 sizes: no reading from a measurement cut short.`);
  await page.waitForTimeout(500);
  assert.deepEqual((await savedOf("stage-measurement")).filter((i) => i.title.startsWith("One pass")), [], "nothing saved");
});

test("the reuse, speculative (comparison and draws) and pass-cost panels keep their runs, with the messages and settings they ran with, through navigation and a reload", { timeout: 8 * MINUTE }, async () => {
  await page.goto(url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  // Not the panels' defaults, so that a restored panel showing its defaults would be seen.
  await page.fill(sel("turn1-message"), "My name is Grace and I grow tomatoes. Greet me in one sentence.");
  await page.fill(sel("turn2-message"), "What do I grow?");
  await runPanel("turn1");
  await runPanel("turn2");
  await page.waitForSelector(`${sel("cold-ttft")}[data-value]`);
  await page.fill(sel("spec-prompt"), "Repeat this list exactly: red, green, blue, cyan, magenta, yellow, black, white.");
  await page.selectOption(sel("spec-method"), "prompt-lookup");
  await setInput(page, "spec-draft-len", 5);
  await page.fill(sel("spec-max-tokens"), "20");
  await runPanel("spec", 3 * MINUTE);
  await page.waitForSelector(`${sel("spec-lossless")}[data-state=pass]`);
  // The draws, at another temperature than the comparison's: their result says which.
  await setInput(page, "spec-temperature", 1.5);
  await page.fill(sel("spec-trials"), "100");
  await runPanel("spec-draws", 3 * MINUTE);
  await page.waitForSelector(sel("spec-draws-verdict"));
  await runPanel("pass-cost");
  await page.waitForSelector(`${sel("pass-cost-verdict")}[data-state=done]`);
  const measured = await threePanels();
  assert.ok([...measured.reuse, ...measured.spec].every((v) => Number(v) > 0), JSON.stringify(measured));
  assert.deepEqual(measured.messages, ["My name is Grace and I grow tomatoes. Greet me in one sentence.", "What do I grow?"]);
  assert.deepEqual(measured.specSettings, ["Repeat this list exactly: red, green, blue, cyan, magenta, yellow, black, white.", "prompt-lookup", "5", "20"]);
  assert.deepEqual(measured.passes.map(([n]) => n), ["1", "2", "4", "8", "16"]);
  assert.match(measured.passVerdict[1], /a pass over 16 tokens took/);
  assert.ok(measured.draws.length > 1 && measured.drawsVerdict !== null, JSON.stringify(measured.draws));
  assert.equal(measured.drawsSettings, "These cycles ran with: the message “Repeat this list exactly: red, green, blue, cyan, magenta, yellow, black, white.”, prompt lookup, K 5, temperature 1.50.");

  await page.click('nav >> text="Glossary"');
  await page.waitForSelector("#kv-cache");
  await page.goBack();
  await restored();
  assert.deepEqual(await threePanels(), measured, "back from the glossary: the same runs, messages and settings");
  await page.reload();
  await restored();
  assert.deepEqual(await threePanels(), measured, "after a reload: the same");
  for (const heading of ["reuse-lab", "spec-lab", "pass-cost-lab"]) {
    assert.match(await measuredOnAbove(heading), /^Shown: a measurement saved earlier, made on SmolLM2-135M-Instruct\.Q4_1\./, heading);
  }

  const items = await savedOf("stage-measurement");
  assert.deepEqual(items.map((i) => i.model), Array(4).fill("SmolLM2-135M-Instruct.Q4_1"));
  const titles = items.map((i) => i.title).sort();
  assert.match(titles[0], /^One pass at position \d+: 1 token [\d.]+ m?s, 2 tokens [\d.]+ m?s, 4 tokens [\d.]+ m?s, 8 tokens [\d.]+ m?s, 16 tokens [\d.]+ m?s$/);
  assert.match(titles[1], /^Reuse across turns: \d+ of \d+ prompt tokens reused, the first token in [\d.]+ m?s against [\d.]+ m?s from an empty cache$/);
  assert.match(titles[2], /^Speculative decoding, prompt lookup, K 5: [\d.]+×, plain [\d.]+ tokens\/s$/);
  assert.match(titles[3], /^Speculative sampling, prompt lookup, K 5, temperature 1\.50: 100 cycles' first tokens, p = [\d.]+$/);
  await deleteAndReopenLesson2(items);
  const empty = await threePanels();
  assert.deepEqual(
    [empty.reuse, empty.spec, empty.lossless, empty.draws, empty.passes, empty.passVerdict[0]],
    [Array(4).fill(null), Array(4).fill(null), null, [], [], "pending"],
    "deleted: the panels are empty again",
  );
  assert.notDeepEqual(empty.messages, measured.messages, "and their controls are the defaults");
});

test("picked, Gemma 3 270M is the model the lessons say they measured on and the one Saved work names", { timeout: 5 * MINUTE }, async () => {
  await page.goto(url("/learn/stages"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.click(sel("pick-gemma3-270m"));
  await page.waitForSelector(`${sel("measured-on")}[data-model="gemma-3-270m.Q4_K_M"]`, { timeout: 3 * MINUTE });
  assert.match(await page.textContent(`${sel("measured-on")} >> nth=0`), /^Measured on gemma-3-270m\.Q4_K_M/);
  await page.fill(sel("timeline-max-tokens"), "3");
  await page.click(sel("timeline-run"));
  await page.waitForSelector(`${sel("timeline-stop")}:disabled`, { timeout: MINUTE });
  await page.waitForSelector(`${sel("timeline-run")}:enabled`);
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=timeline] rect").length === 3);
  await page.waitForTimeout(500);
  assert.deepEqual((await savedOf("stage-measurement")).map((i) => i.model), ["gemma-3-270m.Q4_K_M"]);

  await page.goto(url("/learn/generation"));
  await page.waitForSelector(`${sel("measured-on")}[data-model="gemma-3-270m.Q4_K_M"]`, { timeout: 2 * MINUTE });

  // Lesson 3 shows the run SmolLM2 made (imported back above), and names SmolLM2 for it, not Gemma.
  await page.goto(url("/learn/reasoning"));
  await page.waitForSelector(`${sel("measured-on")}[data-model="gemma-3-270m.Q4_K_M"]`, { timeout: 2 * MINUTE });
  await page.waitForSelector(`${sel("run-status")}[data-state=finished][data-run="1"]`);
  assert.equal(
    await text("measured-on"),
    "Shown: a measurement saved earlier, made on SmolLM2-135M-Instruct.Q4_1. A new run measures gemma-3-270m.Q4_K_M.",
  );

  // Back on SmolLM2, Lesson 2 shows the run Gemma made, and names Gemma for it, not SmolLM2.
  await page.goto(url("/learn/stages"));
  await page.click(sel("pick-smollm2"));
  await page.waitForSelector(`${sel("measured-on")}[data-model="SmolLM2-135M-Instruct.Q4_1"]`, { timeout: 3 * MINUTE });
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=timeline] rect").length === 3);
  assert.equal(
    await page.textContent(`${sel("measured-on")} >> nth=0`),
    "Shown: a measurement saved earlier, made on gemma-3-270m.Q4_K_M. A new run measures SmolLM2-135M-Instruct.Q4_1.",
  );
  // A new run is SmolLM2's own.
  await page.click(sel("timeline-run"));
  await page.waitForSelector(`${sel("timeline-stop")}:disabled`, { timeout: MINUTE });
  await page.waitForSelector(`${sel("timeline-run")}:enabled`);
  assert.match(await page.textContent(`${sel("measured-on")} >> nth=0`), /^Measured on SmolLM2-135M-Instruct\.Q4_1, the model loaded now/);
});

test("a Lesson 3 run left in the middle keeps the tasks it finished: shown on return and listed in Saved work", { timeout: 5 * MINUTE }, async () => {
  await page.goto(url("/learn/reasoning"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  // The saved run is shown first, so the new one is numbered after it.
  await page.waitForSelector(`${sel("run-status")}[data-state=finished][data-run="1"]`);
  // Chain of thought: each task takes seconds, so the link is followed between two of them.
  await chooseStrategies(page, ["cot"]);
  await page.fill(sel("limit"), "4");
  await page.click(sel("run-experiment"));
  await page.waitForSelector(`${sel("run-status")}[data-state=running][data-run="2"]`);
  await page.waitForFunction(() => Number(document.querySelector("[data-testid=experiment-progress]")?.value) >= 1, null, { timeout: 3 * MINUTE });
  const before = await results();
  assert.equal(before.length, 1);

  // A glossary term in the lesson's text, in the middle of the experiment; then Back.
  await page.locator('article.lesson .term a[href^="glossary#"]').first().click();
  await page.waitForURL(/\/glossary#/);
  await page.goBack();
  await page.waitForSelector(`${sel("run-status")}[data-state=left][data-run="2"]`);
  const status = await page.textContent(`${sel("run-status")} [role=status]`);
  const [, kept, of] = status.match(/^Stopped when you left the page: (\d+) of (\d+) tasks kept/) ?? assert.fail(status);
  assert.equal(of, "4");
  assert.ok(Number(kept) >= Number(before[0].n) && Number(kept) < 4, `${kept} of 4 kept, ${before[0].n} finished before the link`);
  const shown = await results();
  assert.equal(shown.length, 1);
  assert.equal(shown[0].n, kept, "the results table covers the kept tasks");
  // A task that finished while the link was followed joins them; otherwise they are exactly those seen.
  if (kept === before[0].n) assert.deepEqual(shown, before);
  assert.equal(await page.getAttribute(sel("experiment-progress"), "value"), kept, "its progress: the kept tasks");
  assert.match(await text("run-link"), new RegExp(`From run 2 \\(${kept} of 4 tasks kept when you left the page\\)`));
  const sent = (await session.protocol()).filter(([direction]) => direction === "out").map(([, , kind]) => kind);
  assert.ok(sent.lastIndexOf("Cancel") > sent.lastIndexOf("RunExperiment"), `leaving stopped the run: ${sent}`);

  const items = await savedOf("reasoning-run");
  const left = items.filter((i) => /kept when you left the page/.test(i.title));
  assert.equal(left.length, 1, JSON.stringify(items));
  assert.match(left[0].title, new RegExp(`^Run 2: 1 strategy on 4 tasks( \\(.+\\))?, ${kept} of them kept when you left the page$`));
  assert.equal(left[0].model, "SmolLM2-135M-Instruct.Q4_1");
});

test("no errors reached the console, and no request left the origin", () => {
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), [], "no request left the origin");
});

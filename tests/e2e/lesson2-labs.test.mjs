// Lesson 2's labs on systems, on the built site against the real model: the learner's own
// run labelled and checked against the engine's events; one forward pass drawn part by part
// from a real timed pass; and the serving simulator, which measures this device's passes and
// cache (counting the passes timed as it goes), runs on them, writes its three results from
// the run's numbers, answers every control change, refuses inputs it cannot simulate with
// their range and is reachable by keyboard.
// None widens the page at 390 px. Only relations between figures of one run are asserted,
// never absolute times (the machine is shared).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MINUTE, READY, assertAccessible, openReady, setInput, stagesPanelIdle, tabTo } from "./session.mjs";

// SmolLM2-135M: 2 × 30 layers × 3 KV heads × 64 head dims × 4 bytes per position, and
// every tensor's elements (as `playground info` counts them).
const KV_BYTES_PER_POSITION = 46_080;
const PARAMETERS = 134_515_008;

let session, page;

before(async () => {
  session = await openReady("/learn/stages");
  ({ page } = session);
});

after(() => session?.close());

const id = (testid) => `[data-testid=${testid}]`;
const value = async (testid) => Number(await page.getAttribute(id(testid), "data-value"));
const row = (variant) =>
  page.$eval(`${id("serving-compare")} tr[data-variant=${variant}]`, (tr) => ({
    total: Number(tr.dataset.totalTps),
    ttft: Number(tr.dataset.ttftMs),
  }));
/** Waits until the element's text matches `pattern` (the page redraws after the event). */
const shows = (testid, pattern) =>
  page.waitForFunction(
    ([testid, source]) => new RegExp(source).test(document.querySelector(`[data-testid=${testid}]`)?.textContent ?? ""),
    [testid, pattern.source],
    { timeout: 10_000 },
  );
/** The as-set results, read after the table has redrawn with a figure other than `before`. */
async function changed(before) {
  await page.waitForFunction(
    (before) => document.querySelector("[data-testid=serving-ttft]")?.dataset.value !== before,
    String(before),
    { timeout: 10_000 },
  );
  return value("serving-ttft");
}

const strip = () =>
  page.$$eval("[data-testid=reuse-strip] rect", (cells) => {
    const count = (state) => cells.filter((c) => c.dataset.state === state).length;
    return { read: count("read"), written: count("written"), cells: cells.length };
  });

test("the learner's own run, labelled: the Check compares the labels with the engine's events, and a decode step shows the cached positions it read", { timeout: 3 * MINUTE }, async () => {
  await page.fill(id("timeline-max-tokens"), "5");
  await page.click(id("timeline-run"));
  await stagesPanelIdle(page, "timeline");
  await page.locator(id("timeline-labels")).scrollIntoViewIfNeeded();
  const blocks = await page.$$eval(`${id("timeline-labels")} tbody tr`, (rows) => rows.map((r) => Number(r.dataset.block)));
  const n = await page.$$eval(`${id("timeline")} rect`, (r) => r.length);
  assert.ok(n >= 3, "a prefill and at least two decode steps");
  assert.deepEqual(blocks, [0, 1, n - 1], "the first, second and last blocks");
  const label = async (block, kind, writes, reads) => {
    await page.selectOption(id(`label-kind-${block}`), kind);
    if (writes) await page.check(id(`label-writes-${block}`));
    if (reads) await page.check(id(`label-reads-${block}`));
  };
  // Wrong: the prefill of a cold run read nothing cached before it.
  await label(0, "prefill", true, true);
  await label(1, "decode", true, true);
  await label(n - 1, "decode", true, true);
  await page.click(id("timeline-labels-check"));
  assert.equal(await page.getAttribute(id("timeline-labels-result"), "data-state"), "fail");
  assert.match(await page.textContent(id("timeline-labels-result")), /Block 1 was the prefill: it wrote positions 1 to \d+ to the cache and read nothing cached/);
  await page.uncheck(id("label-reads-0"));
  await page.click(id("timeline-labels-check"));
  assert.equal(await page.getAttribute(id("timeline-labels-result"), "data-state"), "pass");
  // Decode step 1 read the whole prompt from the cache and wrote the first answer token's
  // position; step 2 read one more.
  await setInput(page, "reuse-step", 1);
  const one = await strip();
  await setInput(page, "reuse-step", 2);
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=reuse-strip] rect[data-state=read]").length === n, one.read + 1);
  const two = await strip();
  assert.equal(one.written, 1);
  assert.equal(two.written, 1);
  assert.ok(one.read > 1, "the prompt's positions");
  assert.match(await page.textContent(id("reuse-caption")), new RegExp(`Decode step 2 computed position ${one.read + 2} and read the keys and values of positions 1 to ${one.read + 1}`));
});

/** Every part of the drawn pass, in the token's order. */
const drawnParts = () =>
  page.$$eval("[data-testid=pass-drawing] li.pass-part", (lis) =>
    lis.map((li) => ({
      part: li.dataset.part,
      params: Number(li.dataset.params),
      prefill: Number(li.dataset.prefillShare),
      decode: Number(li.dataset.decodeShare),
      prefillMs: Number(li.dataset.prefillMs),
    })),
  );

test("one forward pass, drawn: every part of a real pass, its parameters and its share of the time", { timeout: 3 * MINUTE }, async () => {
  await page.locator(id("pass-drawing")).scrollIntoViewIfNeeded();
  await setInput(page, "pass-drawing-tokens", 64);
  await page.click(id("pass-drawing-run"));
  await stagesPanelIdle(page, "pass-drawing");
  const parts = await drawnParts();
  assert.deepEqual(
    parts.map((p) => p.part),
    ["Embedding", "AttentionNorm", "QkvProjections", "PositionsAndCache", "Scores", "OutputProjection", "MlpNorm", "Mlp", "FinalNorm", "OutputHead"],
  );
  assert.equal(parts.reduce((a, p) => a + p.params, 0), PARAMETERS, "the parts own every parameter once");
  for (const pass of ["prefill", "decode"]) {
    assert.ok(Math.abs(parts.reduce((a, p) => a + p[pass], 0) - 1) < 1e-9, `${pass} shares sum to 1`);
    assert.ok(parts.every((p) => p[pass] >= 0));
  }
  assert.ok(parts.find((p) => p.part === "Mlp").prefillMs > 0, "the MLP took measurable time");
  const summary = await page.textContent(id("pass-drawing-summary"));
  assert.match(summary, /Prefill of 64 tokens/);
  assert.match(summary, /at position 65/);
  assert.match(await page.textContent(id("pass-drawing")), /9 query and 3 key\/value heads/);
  // A longer prompt: the drawing is redrawn from the new pass.
  await setInput(page, "pass-drawing-tokens", 256);
  await page.click(id("pass-drawing-run"));
  await stagesPanelIdle(page, "pass-drawing");
  assert.match(await page.textContent(id("pass-drawing-summary")), /Prefill of 256 tokens/);
});

test("the serving simulator runs on this device's measured passes and cache", { timeout: 4 * MINUTE }, async () => {
  await page.locator(id("serving-sim")).scrollIntoViewIfNeeded();
  assert.match(await page.textContent(id("serving-waiting")), /Measure this device first/);
  // Every state of the progress while it measures, as the page showed it.
  await page.evaluate(() => {
    window.servingProgress = [];
    new MutationObserver(() => {
      const p = document.querySelector("[data-testid=serving-progress]");
      const seen = window.servingProgress;
      if (p && seen.at(-1)?.done !== p.dataset.done) {
        const bar = p.querySelector("progress");
        seen.push({ done: p.dataset.done, text: p.textContent, value: bar.value, max: bar.max });
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await page.click(id("serving-run"));
  await stagesPanelIdle(page, "serving", 3 * MINUTE);
  const progress = await page.evaluate(() => window.servingProgress);
  assert.equal(progress[0]?.done, "0", `a bar from the start: ${JSON.stringify(progress)}`);
  for (const [i, p] of progress.entries()) {
    assert.equal(p.text, `${p.done} of 7 passes timed`);
    assert.equal(p.value, Number(p.done));
    assert.equal(p.max, 7);
    if (i > 0) assert.ok(Number(p.done) > Number(progress[i - 1].done), "it only counts up");
  }
  assert.ok(Number(progress.at(-1).done) >= 6 && progress.length >= 4, `it counted the passes as they were timed: ${JSON.stringify(progress)}`);
  assert.equal(await page.$(id("serving-progress")), null, "and it is gone when every pass is timed");
  await page.waitForSelector(id("serving-compare"));
  const inputs = await page.textContent(id("serving-inputs"));
  // The pass times listed are the ones measured now, for the six sizes.
  const times = [...inputs.matchAll(/(\d+): ([\d.]+) (ms|s)/g)].map(([, n, t, unit]) => [Number(n), Number(t) * (unit === "s" ? 1000 : 1)]);
  assert.deepEqual(times.map(([n]) => n), [1, 2, 4, 8, 16, 32]);
  assert.ok(times.every(([, ms]) => ms > 0));
  assert.ok(times[5][1] > times[0][1], "32 tokens take longer than one");
  assert.match(inputs, /the 16-token pass with 1,024 cached: [\d.]+ m?s/);
  assert.match(inputs, /plus [\d.]+ µs per token per cached position/);
  assert.match(inputs, new RegExp(`Measured: ${KV_BYTES_PER_POSITION} bytes of keys and values per position`));
  for (const readout of ["serving-ttft", "serving-ttft-p95", "serving-gap-p50", "serving-gap-p95", "serving-gap-max", "serving-total-tps", "serving-peak", "serving-peak-used", "serving-peak-batch"]) {
    assert.ok((await value(readout)) > 0, `${readout} has a positive data-value`);
  }
  assert.ok((await value("serving-ttft-p95")) >= (await value("serving-ttft")));
  assert.ok((await value("serving-gap-p50")) <= (await value("serving-gap-p95")));
  assert.ok((await value("serving-gap-p95")) <= (await value("serving-gap-max")));
  assert.ok((await value("serving-peak-used")) <= (await value("serving-peak")), "in use never exceeds reserved");
  assert.ok((await value("serving-peak")) <= 100e6, "the cache reserved stays within the 100 MB budget");
  assert.ok((await page.$$(`${id("serving-memory-chart")} path, ${id("serving-memory-chart")} polyline`)).length > 0, "memory over time is drawn");
  assert.equal((await page.textContent(id("serving-sim"))).match(/simulated/gi)?.length > 1, true, "the results say they are simulated");
  // The table compares the same arrivals under each change; continuous batching, as set,
  // is never slower in total than static.
  const [asSet, fixed] = [await row("as-set"), await row("continuous")];
  assert.ok(asSet.total >= fixed.total - 1e-9, `continuous ${asSet.total} against static ${fixed.total}`);
  assert.equal(await value("serving-communication"), 0, "one device sends nothing");
});

/** The numbers of a sentence, in order (thousands separators dropped). */
const numbers = (text) => [...text.replaceAll(",", "").matchAll(/\d+(\.\d+)?/g)].map(([n]) => Number(n));
const seconds = (text) => [...text.replaceAll(",", "").matchAll(/([\d.]+) (ms|s)\b/g)].map(([, n, unit]) => Number(n) * (unit === "s" ? 1000 : 1));

test("the three results are written from their run's numbers, each with its inputs", { timeout: MINUTE }, async () => {
  const sentence = (key) => page.textContent(id(`serving-finding-${key}-sentence`));
  const paging = await sentence("paging");
  const [pagedBatch, contiguousBatch, pagedTps, contiguousTps] = numbers(paging);
  assert.match(paging, /^Simulated: in the same memory, paged blocks ran up to \d+ requests at once against \d+ with contiguous reservation/);
  const held = pagedBatch > contiguousBatch && pagedTps > contiguousTps;
  assert.match(paging, held ? /Paging sustained the larger batch/ : /did not sustain/, paging);
  const chunking = await sentence("chunking");
  const [wholeGap, chunkedGap, , , wholeTtft, chunkedTtft] = seconds(chunking);
  assert.match(chunking, chunkedGap < wholeGap ? /chunks of 256 tokens cut the 95th-percentile gap/ : /did not cut/, chunking);
  assert.ok(wholeTtft > 0 && chunkedTtft > 0, chunking);
  const batching = await sentence("batching");
  const [continuousTps, staticTps] = numbers(batching);
  assert.match(batching, continuousTps > staticTps ? /a static batch waits for its longest answer/ : /did as well/, batching);
  assert.match(await page.textContent(id("serving-finding-paging")), /Inputs: 60 requests at once.*blocks of 16 positions/);
  // The block size and the chunk are the learner's: the results follow them.
  await setInput(page, "serving-chunk", 64);
  await shows("serving-finding-chunking-sentence", /chunks of 64 tokens/);
  await setInput(page, "serving-chunk", 256);
  await setInput(page, "serving-block-size", 32);
  await shows("serving-finding-paging", /blocks of 32 positions/);
  await setInput(page, "serving-block-size", 16);
});

test("every control changes the simulation; twice the bytes per position in twice the memory is the same server", { timeout: 2 * MINUTE }, async () => {
  let ttft = await value("serving-ttft");
  await setInput(page, "serving-per-minute", 600);
  ttft = await changed(ttft);
  const [busyTtft, busyBatch] = [ttft, await value("serving-peak-batch")];
  // Twice the KV bytes per position: the same 100 MB holds half the positions.
  await setInput(page, "serving-kv-scale", 2);
  ttft = await changed(ttft);
  assert.ok((await value("serving-peak-batch")) < busyBatch, "a larger cache entry fits fewer requests at once");
  await setInput(page, "serving-memory", 200);
  ttft = await changed(ttft);
  assert.equal(ttft, busyTtft, "twice the bytes in twice the memory: the same simulation");
  assert.equal(await value("serving-peak-batch"), busyBatch);
  await setInput(page, "serving-memory", 100);
  ttft = await changed(ttft);
  await setInput(page, "serving-kv-scale", 1);
  ttft = await changed(ttft);
  assert.equal(ttft, busyTtft, "back to the busy server");
  await page.click(id("serving-paged"));
  ttft = await changed(ttft);
  await shows("serving-compare", /Contiguous reservation instead/);
  await shows("serving-inputs", /paged in blocks of 16 positions/);
  await page.click(id("serving-paged"));
  ttft = await changed(ttft);
  await page.click(id("serving-context-parallel"));
  ttft = await changed(ttft);
  assert.ok((await value("serving-communication")) > 0, "splitting the prefill sends keys and values");
  await shows("serving-inputs", /split evenly across 4 devices/);
  await page.click(id("serving-chunking"));
  ttft = await changed(ttft);
  await page.click(id("serving-continuous"));
  ttft = await changed(ttft);
  await shows("serving-compare", /Continuous batching instead/);
  await setInput(page, "serving-seed", 7);
  await changed(ttft);
});

test("inputs the simulation cannot run are refused with their range", { timeout: MINUTE }, async () => {
  await setInput(page, "serving-batch", 64);
  await shows("serving-batch-error", /from 1 to 32/);
  // Both ends in range but in the wrong order: the simulator says which and why.
  await setInput(page, "serving-prompt-min", 500);
  await setInput(page, "serving-prompt-max", 100);
  await shows("serving-error", /smaller first/);
  await setInput(page, "serving-prompt-min", 50);
  await setInput(page, "serving-prompt-max", 300);
  await page.waitForSelector(id("serving-compare"));
  // A budget below one request's cache.
  await setInput(page, "serving-memory", 1);
  await shows("serving-error", /longest request/);
  await setInput(page, "serving-memory", 100);
  await page.waitForSelector(id("serving-compare"));
});

test("the measured costs survive a reload: the simulator runs on them without measuring again", { timeout: 2 * MINUTE }, async () => {
  // What was measured, as the inputs list it (the assumptions go back to their defaults).
  const measured = async () => {
    const inputs = await page.textContent(id("serving-inputs"));
    return [...inputs.matchAll(/(\d+): ([\d.]+ m?s)|Measured: \d+ bytes/g)].map(([m]) => m);
  };
  const before = await measured();
  assert.equal(before.length, 7, `six pass times and the bytes: ${before}`);
  await page.reload();
  await page.waitForSelector(id("serving-compare"), { timeout: MINUTE });
  assert.deepEqual(await measured(), before, "the same measured inputs");
  assert.equal(await page.$(id("serving-waiting")), null);
  const line = page.locator(`${id("serving-sim")} >> xpath=preceding-sibling::*[@data-testid="measured-on"][1]`);
  assert.match(await line.textContent(), /^Shown: a measurement saved earlier, made on SmolLM2-135M-Instruct\.Q4_1\./);
  await page.waitForSelector(READY, { timeout: MINUTE });
});

test("the simulator is reachable by keyboard, passes axe, and the three labs fit a 390 px screen", { timeout: 2 * MINUTE }, async () => {
  await tabTo(page, id("serving-continuous"));
  const before = await value("serving-ttft");
  await page.keyboard.press("Space");
  await changed(before);
  await assertAccessible(page, "Lesson 2 after the serving simulation");
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    for (const lab of ["timeline-labels", "pass-drawing", "serving-sim"]) {
      await page.locator(id(lab)).scrollIntoViewIfNeeded();
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, `${lab} fits`);
    }
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), [], "no request left the origin");
});

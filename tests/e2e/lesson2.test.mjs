// Lesson 2 (/learn/stages) on the real model in headless Chromium: every panel measures
// live, so the tests check that the figures are real numbers and compare ratios measured
// in one run, never absolute times (the machine is shared and noisy). The tests run in
// order on one page: the exercises are checked against the state the panels left.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MINUTE, openReady, setInput, stagesPanelIdle } from "./session.mjs";

// SmolLM2-135M: 2 × 30 layers × 3 KV heads × 64 head dims × 4 bytes per position.
const KV_BYTES_PER_POSITION = 46_080;

let session, page;

before(async () => {
  session = await openReady("/learn/stages");
  ({ page } = session);
});

after(() => session?.close());

const id = (testid) => `[data-testid=${testid}]`;
const value = async (testid) => Number(await page.getAttribute(id(testid), "data-value"));
const state = (testid) => page.getAttribute(id(testid), "data-state");

/** Clicks a panel's Run and waits until the panel (and any chain it started) is idle again. */
async function run(panel, { timeout = 2 * MINUTE } = {}) {
  await page.click(id(`${panel}-run`));
  await stagesPanelIdle(page, panel, timeout);
}

/** The dots of one series of a chart, as [x, y]. */
const points = (chart, series) =>
  page.$$eval(`${id(chart)} g[data-series="${series}"] circle`, (dots) => dots.map((d) => [Number(d.dataset.x), Number(d.dataset.y)]));

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

async function check(exercise) {
  await page.click(id(`${exercise}-check`));
  return state(`${exercise}-result`);
}

test("prefill and decode: the timeline, the two speeds and the per-token chart come from a real run", { timeout: 3 * MINUTE }, async () => {
  await page.fill(id("timeline-max-tokens"), "12");
  await run("timeline");
  for (const readout of ["ttft-ms", "prefill-tps", "decode-tps"]) {
    assert.ok((await value(readout)) > 0, `${readout} has a positive data-value`);
  }
  assert.equal(await page.$$eval(`${id("timeline")} rect`, (r) => r.length), 12, "one block for the prefill, one per later token");
  const latency = await points("token-latency-chart", "each token after the first");
  assert.equal(latency.length, 11);
  assert.ok(latency.every(([, ms]) => ms > 0));
  assert.notEqual((await page.textContent(id("timeline-output"))).trim(), "");
});

test("the prompt-length sweep charts time to first token and the decode steps after it, and Stop cancels it mid-prompt", { timeout: 4 * MINUTE }, async () => {
  await page.click(id("sweep-run"));
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=sweep-table] tbody tr").length === 2, null, {
    timeout: 2 * MINUTE,
  });
  // Now the 256-token prompt is being computed, slice by slice.
  await page.click(id("sweep-stop"));
  await page.waitForSelector(`${id("sweep-run")}:enabled`, { timeout: 15_000 });
  await page.waitForTimeout(1000);
  const sweep = await points("sweep-chart", "time to first token");
  assert.deepEqual(
    sweep.map(([tokens]) => tokens),
    [16, 64],
    "the sweep stopped after the two lengths it had finished",
  );
  assert.ok(sweep[1][1] > sweep[0][1], "a 64-token prompt takes longer to its first token than a 16-token one");
  // The decode steps after each finished prompt were timed too, on their own chart.
  const decode = await points("sweep-decode-chart", "decode step");
  assert.deepEqual(decode.map(([tokens]) => tokens), [16, 64]);
  for (const [tokens, ms] of decode) {
    const ttft = sweep.find(([t]) => t === tokens)[1];
    assert.ok(ms > 0 && ms < ttft, `one decode step after ${tokens} tokens (${ms} ms) is quicker than the prefill of all of them (${ttft} ms)`);
  }
});

test("exercise checks fail before the KV panel has measured anything", async () => {
  await page.fill(id("doubling-position"), "5");
  assert.equal(await check("ex-cache-off"), "fail");
});

test("KV cache: without it later tokens cost more, the texts are identical, and the cache's size is live", { timeout: 3 * MINUTE }, async () => {
  assert.equal(await page.inputValue(id("cache-prompt")), "Once");
  await page.fill(id("cache-max-tokens"), "16");
  assert.ok(await page.isChecked(id("kv-cache-toggle")));
  await run("cache");
  // Sixteen tokens after a one-token prompt: 16 positions cached after the last step.
  assert.equal(await value("kv-bytes"), 16 * KV_BYTES_PER_POSITION);
  assert.match(await page.textContent(id("kv-formula")), /2 × 30 layers × 3 KV heads × 64 head dims × 16 positions × 4 bytes = 737,280 bytes/);
  const kv = await points("kv-chart", "KV cache");
  assert.equal(kv.length, 16);
  assert.ok(kv.every(([positions, mb]) => Math.round(mb * 1e6) === positions * KV_BYTES_PER_POSITION), "the size grows by one position's bytes per token");

  await page.click(id("kv-cache-toggle"));
  assert.equal(await page.isChecked(id("kv-cache-toggle")), false);
  await run("cache");
  assert.equal(await state("cache-identical"), "pass", "greedy texts with and without the cache are identical");

  const on = await points("cache-chart", "with the KV cache");
  const off = await points("cache-chart", "without it");
  assert.equal(on.length, 15);
  assert.deepEqual(off.map(([x]) => x), on.map(([x]) => x), "the same positions in both runs");
  const late = (series) => mean(series.slice(-3).map(([, ms]) => ms));
  const early = (series) => mean(series.slice(0, 3).map(([, ms]) => ms));
  // Without the cache the last steps recompute ~16 positions, with it one.
  assert.ok(late(off) / late(on) > 1.5, `late tokens: without ÷ with = ${(late(off) / late(on)).toFixed(2)}`);
  assert.ok(late(off) / early(off) > 1.5, `without the cache the cost grows: late ÷ early = ${(late(off) / early(off)).toFixed(2)}`);
  assert.ok((await value("cache-last-ratio")) > 0);
  assert.ok((await value("cache-off-total-ms")) > (await value("cache-on-total-ms")));
});

test("reuse across turns: the second turn reuses the first from the cache, and its first token comes sooner", { timeout: 3 * MINUTE }, async () => {
  await run("turn1");
  await run("turn2");
  const reused = await value("reuse-reused");
  const computed = await value("reuse-computed");
  assert.ok(reused > 20 && computed > 0, `reused ${reused}, computed ${computed}`);
  const chips = await page.$$eval(`${id("reuse-tokens")} .tok`, (t) => t.map((e) => e.className));
  assert.equal(chips.length, reused + computed);
  assert.equal(chips.filter((c) => c.includes("reused")).length, reused);
  assert.ok((await value("reuse-ttft")) < (await value("cold-ttft")), "reuse beats a cold prefill of the same prompt");
});

/** Runs the speculative panel until its verdict is `faster` (timings are noisy), at most `tries` times. */
async function speculate({ want, tries = 1 }) {
  for (let i = 0; i < tries; i++) {
    await run("spec", { timeout: 3 * MINUTE });
    if ((await page.getAttribute(id("spec-verdict"), "data-faster")) === String(want)) return true;
  }
  return false;
}

test("speculative decoding with prompt lookup: cycles, acceptance, the lossless check and the measured speed-up", { timeout: 8 * MINUTE }, async () => {
  assert.equal(await page.inputValue(id("spec-method")), "prompt-lookup");
  await page.click(id("preset-list"));
  const faster = await speculate({ want: true, tries: 4 });
  assert.ok((await value("acceptance-rate")) > 0.5, "most drafts copied from the list are accepted");
  // The predictor: expected tokens per cycle from the α and K shown, (1 − α^(K+1)) / (1 − α).
  const alpha = await value("spec-alpha");
  const k = Number(await page.inputValue(id("spec-draft-len")));
  assert.ok(alpha > 0 && alpha <= 1, `α ${alpha}`);
  const predicted = alpha === 1 ? k + 1 : (1 - alpha ** (k + 1)) / (1 - alpha);
  assert.ok(Math.abs((await value("predicted-tokens-per-cycle")) - predicted) < 1e-9, "the prediction is the formula on the shown α and K");
  assert.ok(predicted >= 1 && predicted <= k + 1);
  const measured = await value("tokens-per-cycle");
  assert.ok(measured >= 1 && measured <= k + 1, `tokens per cycle ${measured}`);
  const prediction = await page.textContent(id("spec-prediction"));
  assert.ok(prediction.includes(`α = ${alpha.toFixed(2)}`) && prediction.includes(`K = ${k}`), prediction);
  assert.ok(prediction.includes(predicted.toFixed(2)) && prediction.includes(measured.toFixed(2)), prediction);
  assert.ok((await value("spec-speedup")) > 0);
  assert.ok((await value("plain-tps")) > 0 && (await value("spec-tps")) > 0);
  assert.equal(await state("spec-lossless"), "pass");
  assert.ok((await page.$$(`${id("spec-cycles")} .tok.accepted`)).length > 0);
  assert.ok((await page.$$(`${id("spec-cycles")} .tok.target`)).length > 0);
  assert.ok(faster, "prompt lookup on a list to repeat beat plain decoding in one of four runs");
  assert.equal(await check("ex-speculation-faster"), "pass");
  await page.selectOption(id("slower-reason"), "rejected");
  assert.equal(await check("ex-speculation-slower"), "fail", "a faster run does not answer the slower exercise");
});

test("speculative decoding with a shallow early-exit draft is slower, and the page says so", { timeout: 5 * MINUTE }, async () => {
  await page.selectOption(id("spec-method"), "early-exit");
  await page.fill(id("spec-max-tokens"), "24");
  assert.ok(await speculate({ want: false }), "the verdict says speculation was slower");
  assert.ok((await value("spec-speedup")) < 1);
  assert.match(await page.textContent(id("spec-verdict")), /slower/);
  assert.equal(await state("spec-lossless"), "pass");
  assert.equal(await check("ex-speculation-faster"), "fail");
  await page.selectOption(id("slower-reason"), "changed-text");
  assert.equal(await check("ex-speculation-slower"), "fail");
  await page.selectOption(id("slower-reason"), "rejected");
  assert.equal(await check("ex-speculation-slower"), "pass", "eight of thirty layers guess the target's token rarely");
});

test("speculative sampling keeps the target's distribution: first tokens of many cycles, by chi-square", { timeout: 4 * MINUTE }, async () => {
  // Prompt lookup: its draft costs nothing, so 200 cycles take seconds (an early-exit draft
  // computes the prompt's first layers again for every fresh start).
  await page.selectOption(id("spec-method"), "prompt-lookup");
  await page.click(id("preset-story"));
  await setInput(page, "spec-temperature", 1.5);
  await page.fill(id("spec-trials"), "200");
  await page.click(id("spec-draws-run"));
  await page.waitForSelector(id("spec-draws-verdict"), { timeout: 3 * MINUTE });
  assert.ok(await page.isVisible(id("spec-draws-table")));
  const rows = await page.$$eval(`${id("spec-draws-row")}`, (trs) => trs.map((tr) => [Number(tr.dataset.prob), Number(tr.dataset.count)]));
  assert.ok(rows.length >= 2, "more than one token can come first");
  assert.ok(rows.every(([p], i) => i === 0 || p <= rows[i - 1][0]), "most likely first");
  assert.ok(rows.reduce((n, [, c]) => n + c, 0) <= 200);
  // Seeds 0 to 199: repeatable, and a correct sampler is consistent with the target here.
  assert.equal(await state("spec-draws-verdict"), "consistent");
  assert.ok(Number(await page.getAttribute(id("spec-draws-verdict"), "data-p")) >= 0.01);
  assert.match(await page.textContent(id("spec-draws")), /The first draft was accepted in \d+ of 200 cycles/);
  // Beside the test, the distance counts show and the distance chance alone gives.
  const distance = async (prefix) => ({
    tvd: Number(await page.getAttribute(id(`${prefix}-distance`), "data-tvd")),
    chance: Number(await page.getAttribute(id(`${prefix}-distance`), "data-chance")),
  });
  const first = await distance("spec-draws");
  assert.ok(first.tvd >= 0 && first.tvd <= 1 && first.chance > 0 && first.chance < 1, JSON.stringify(first));
  // The second token, given the most likely first one: the trials that began with it.
  const second = await page.$$eval(`${id("spec-second-row")}`, (trs) => trs.map((tr) => [Number(tr.dataset.prob), Number(tr.dataset.count)]));
  assert.ok(second.length >= 1, "the most likely first token began some of 200 starts");
  assert.ok(second.reduce((n, [, c]) => n + c, 0) <= rows[0][1], "no more second tokens than starts with the most likely first token");
  assert.match(await state("spec-second-verdict"), /^(consistent|untestable)$/);
  const secondDistance = await distance("spec-second");
  assert.ok(secondDistance.chance > 0 && secondDistance.tvd <= 1, JSON.stringify(secondDistance));
});

test("the draft length K is refused outside the engine's 1 to 16, with the range", async () => {
  await setInput(page, "spec-draft-len", 17);
  assert.match(await page.textContent(id("spec-draft-len-error")), /from 1 to 16/);
  await setInput(page, "spec-draft-len", 16);
  assert.ok(await page.isHidden(id("spec-draft-len-error")));
  await setInput(page, "spec-draft-len", 3);
});

test("exercise: prompt and answer, checked by choices", async () => {
  await page.selectOption(id("stage-for-prompt"), "decode");
  await page.selectOption(id("stage-for-answer"), "prefill");
  await page.selectOption(id("cache-reuses"), "weights");
  assert.equal(await check("ex-prompt-and-answer"), "fail");
  await page.selectOption(id("stage-for-prompt"), "prefill");
  await page.selectOption(id("stage-for-answer"), "decode");
  assert.equal(await check("ex-prompt-and-answer"), "fail", "the weights are not what the cache keeps");
  await page.selectOption(id("cache-reuses"), "keys-values");
  assert.equal(await check("ex-prompt-and-answer"), "pass");
});

test("exercise: the position where a token costs twice as much without the cache", async () => {
  const on = await points("cache-chart", "with the KV cache");
  const off = await points("cache-chart", "without it");
  // The page's rule: the first of two positions running at twice the median cached cost.
  const cached = on.map(([, ms]) => ms).sort((a, b) => a - b)[Math.floor(on.length / 2)];
  const found = off.findIndex(([, ms], i) => ms >= 2 * cached && off[i + 1]?.[1] >= 2 * cached);
  assert.ok(found >= 0, "the uncached cost doubled within the run");
  await page.fill(id("doubling-position"), String(off[found][0]));
  assert.equal(await check("ex-cache-off"), "pass");
  await page.fill(id("doubling-position"), "1000");
  assert.equal(await check("ex-cache-off"), "fail");
});

test("look inside: the default prompt's attention, one row per decode step, the lens, and the second turn's reused rows", { timeout: 4 * MINUTE }, async () => {
  await run("inside");
  const map = id("attention-map");
  const rowsOf = () =>
    page.$$eval(`${map} rect[data-row]`, (cells) => {
      const rows = {};
      for (const c of cells) (rows[c.dataset.row] ??= []).push([Number(c.dataset.col), Number(c.dataset.weight)]);
      return rows;
    });
  const rows = await rowsOf();
  const prefill = await page.$$eval(`${id("kv-table")} tbody tr`, (trs) => trs.filter((tr) => tr.textContent.includes("prefill")).length);
  const decode = await page.$$eval(`${map} text.row-label.decode`, (t) => t.length);
  assert.ok(prefill > 20, "the chat template's prompt is in the cache");
  assert.ok(decode >= 1, "decode steps added rows below the prompt's");
  assert.equal(Object.keys(rows).length, prefill + decode);
  for (const [r, cells] of Object.entries(rows)) {
    assert.equal(cells.length, Number(r) + 1, `row ${r} covers positions 0..=${r}, nothing above the diagonal`);
    const sum = cells.reduce((a, [, w]) => a + w, 0);
    assert.ok(Math.abs(sum - 1) < 1e-3, `row ${r} sums to ${sum}`);
  }
  // Another query head of the same key/value head: other weights over the same keys.
  await page.selectOption(id("attention-head"), "2");
  assert.notDeepEqual(await rowsOf(), rows);
  assert.equal(await page.$$eval(`${id("lens-table")} tbody tr`, (r) => r.length), 30);

  await run("inside-turn2");
  const status = await page.$$eval(`${id("kv-table")} tbody tr`, (trs) => trs.map((tr) => tr.dataset.status));
  const reused = status.filter((s) => s === "reused").length;
  assert.ok(reused >= prefill, `the second turn reused the first turn's prompt (${reused} rows)`);
  assert.ok(status.slice(reused).every((s) => s === "computed") && status.length > reused);
  assert.equal(await page.$$eval(`${map} text.row-label.reused`, (t) => t.length), reused);
  assert.ok((await page.textContent(id("capacity-answer"))).includes("conversations fit"));
});

test("the cost of a forward pass: five sizes at one position, per pass and per token", { timeout: 2 * MINUTE }, async () => {
  await run("pass-cost");
  const pass = await points("pass-cost-chart", "ms per pass");
  const perToken = await points("pass-cost-chart", "ms per token");
  assert.deepEqual(pass.map(([n]) => n), [1, 2, 4, 8, 16]);
  assert.ok(pass.every(([, ms]) => ms > 0));
  assert.ok(pass[4][1] > pass[0][1], "sixteen tokens take longer than one");
  perToken.forEach(([n, ms], i) => assert.ok(Math.abs(ms * n - pass[i][1]) < 1e-6));
  assert.match(await page.textContent(id("pass-cost-verdict")), /a pass over 16 tokens took/);
});

test("the lesson fits a 390 px wide screen, nothing went to the console, and nothing left the origin", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), [], "no request left the origin");
});

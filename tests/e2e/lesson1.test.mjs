// Lesson 1 (/learn/generation) on the built site, in headless Chromium, against the real
// model: the numbers on the page follow from the model's logits and the sampler's rules,
// stepping talks to the engine, exercises are checked against the live state, and the
// settings travel in the URL. One browser profile for the whole file; the tests run in order.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { MINUTE, modelLoaded, openSession, playgroundGenerate } from "./session.mjs";

const LESSON = "/learn/generation";

let session, server, page;

before(async () => {
  session = await openSession();
  ({ server, page } = session);
});

after(() => session?.close());

/** Opens the lesson (with `query`) and waits for the first distribution. */
async function open(query = "") {
  await page.goto(server.url + LESSON + query);
  await page.waitForSelector("[data-testid=prob-bar]", { timeout: 3 * MINUTE });
  await idle();
}

/** Waits until no request is on its way (Step is enabled again, or the answer ended). */
const idle = () =>
  page.waitForFunction(() => {
    const start = document.querySelector("[data-testid=start]");
    return start && !start.disabled;
  }, null, { timeout: 2 * MINUTE });

/** Sets inputs as a learner's drag or typing does: a value, then an `input` event. */
async function set(values) {
  await page.evaluate((values) => {
    for (const [id, value] of Object.entries(values)) {
      const el = document.querySelector(`[data-testid=${id}]`);
      el.value = String(value);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }, values);
}

const NO_CUTS = { "top-k": 0, "top-p": 1, "min-p": 0, "repeat-penalty": 1 };

/** The candidates' bars, as numbers. */
const bars = () =>
  page.$$eval("[data-testid=prob-bar]", (els) =>
    els.map((el) => ({
      id: Number(el.dataset.tokenId),
      logit: Number(el.dataset.logit),
      softmax: Number(el.dataset.softmax),
      prob: Number(el.dataset.prob),
      eligible: el.dataset.eligible,
      cutBy: el.dataset.cutBy,
      observed: el.dataset.observed === undefined ? undefined : Number(el.dataset.observed),
    })),
  );
const eligibleCount = async () => Number(await page.textContent("[data-testid=eligible-count]"));
const strip = () => page.$$eval("[data-testid=strip-token]", (els) => els.map((el) => ({ id: Number(el.dataset.tokenId), forced: el.dataset.forced })));
const exercise = (id) => page.getAttribute(`[data-testid=exercise-${id}]`, "data-pass");

async function step() {
  const n = (await strip()).length;
  await page.click("[data-testid=step]");
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=strip-token]").length === n + 1, n);
  await idle();
}

async function rewind() {
  const n = (await strip()).length;
  await page.click("[data-testid=rewind]");
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=strip-token]").length === n - 1, n);
  await idle();
}

const close = (a, b, rel = 1e-4) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-30);

test("the lesson loads the model and shows 20 candidates with every stage's data", { timeout: 4 * MINUTE }, async () => {
  await open();
  assert.equal((await page.textContent("main h1")).trim(), "Lesson 1: Generation controls");
  const shown = await bars();
  assert.equal(shown.length, 20);
  assert.ok(shown.every((b, i) => i === 0 || b.logit <= shown[i - 1].logit), "most likely first");
  assert.ok(shown.every((b) => ["none", "top-k", "top-p", "min-p"].includes(b.cutBy)));
  assert.ok(shown.every((b) => (b.eligible === "true") === (b.cutBy === "none") && (b.eligible === "true" || b.prob === 0)));
  assert.equal(await page.locator("figure.stage").count(), 6, "six stage charts");
  const eligible = await eligibleCount();
  assert.equal(eligible, shown.filter((b) => b.eligible === "true").length, "the defaults leave fewer than 20 eligible");
  const finalSum = shown.reduce((s, b) => s + b.prob, 0);
  assert.ok(Math.abs(finalSum - 1) < 1e-4, `final probabilities sum to ${finalSum}`);
  const labelled = await page.$$eval("[data-testid=interactive-generation] input, [data-testid=interactive-generation] textarea", (els) =>
    els.every((el) => el.labels.length > 0),
  );
  assert.ok(labelled, "every control has a label");
});

test("with top-k and top-p off, data-prob is softmax(data-logit / T) at T = 0.5, 1 and 1.5", { timeout: MINUTE }, async () => {
  for (const t of [0.5, 1, 1.5]) {
    await set({ ...NO_CUTS, temperature: t });
    assert.equal(await eligibleCount(), 49152, "nothing is cut");
    const shown = await bars();
    // The softmax runs over the whole vocabulary, so the shown values are compared through
    // ratios, in which the normaliser cancels: p_i / p_1 = exp((z_i − z_1) / T).
    for (const b of shown) {
      assert.equal(b.eligible, "true");
      assert.ok(close(b.prob, b.softmax), `renormalising changes nothing: ${b.prob} vs ${b.softmax}`);
      const want = Math.exp((b.logit - shown[0].logit) / t);
      assert.ok(close(b.prob / shown[0].prob, want), `T=${t}, token ${b.id}: ${b.prob / shown[0].prob} vs ${want}`);
    }
  }
});

test("top-k = 3 leaves exactly 3 eligible, renormalised", { timeout: MINUTE }, async () => {
  await set({ ...NO_CUTS, temperature: 1, "top-k": 3 });
  assert.equal(await eligibleCount(), 3);
  const shown = await bars();
  assert.deepEqual(shown.map((b) => b.cutBy), ["none", "none", "none", ...Array(17).fill("top-k")]);
  const kept = shown.slice(0, 3);
  const mass = kept.reduce((s, b) => s + b.softmax, 0);
  for (const b of kept) assert.ok(close(b.prob, b.softmax / mass), "final = softmax / kept mass");
});

test("top-p cuts where the cumulative probability first reaches p", { timeout: MINUTE }, async () => {
  await set({ shown: 100 });
  for (const [t, p] of [[0.7, 0.5], [0.7, 0.8], [1, 0.6]]) {
    await set({ ...NO_CUTS, temperature: t, "top-p": p });
    const shown = await bars();
    const n = await eligibleCount();
    assert.ok(n < shown.length, `all ${n} eligible are on screen`);
    assert.ok(shown.slice(0, n).every((b) => b.cutBy === "none") && shown.slice(n).every((b) => b.cutBy === "top-p"));
    const cumulative = shown.slice(0, n).reduce((s, b) => s + b.softmax, 0);
    assert.ok(cumulative >= p - 1e-6, `T=${t} p=${p}: the kept ${n} reach ${cumulative}`);
    assert.ok(cumulative - shown[n - 1].softmax < p, `T=${t} p=${p}: without the last they would not`);
  }
  await set({ shown: 20 });
});

test("1000 rapid slider moves end in the state of the last move", { timeout: MINUTE }, async () => {
  await set({ ...NO_CUTS });
  await page.evaluate(() => {
    const input = (id, value) => {
      const el = document.querySelector(`[data-testid=${id}]`);
      el.value = String(value);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    };
    for (let i = 0; i < 1000; i++) {
      input("temperature", ((i * 7) % 41) * 0.05);
      input("top-p", 0.05 + ((i * 13) % 96) * 0.01);
    }
    input("temperature", 1.15);
    input("top-p", 0.85);
  });
  const rapid = { bars: await bars(), eligible: await eligibleCount() };
  assert.equal(await page.textContent("[data-testid=temperature-value]"), "1.15");
  assert.equal(await page.textContent("[data-testid=top-p-value]"), "0.85");
  await set({ temperature: 0.3, "top-p": 0.5 });
  assert.notDeepEqual(await bars(), rapid.bars);
  await set({ temperature: 1.15, "top-p": 0.85 });
  assert.deepEqual({ bars: await bars(), eligible: await eligibleCount() }, rapid);
});

test("Step draws the token the page predicted; clicking a bar forces that token; Rewind removes it", { timeout: 2 * MINUTE }, async () => {
  await page.click("[data-testid=reset]");
  const predicted = Number(await page.getAttribute("[data-testid=next-draw]", "data-token-id"));
  await step();
  assert.equal((await strip()).at(-1).id, predicted, "the worker's draw matches the page's sampler");

  const target = (await bars())[6];
  await page.locator("[data-testid=prob-bar]").nth(6).click();
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=strip-token]").length === n, 2);
  await idle();
  const last = (await strip()).at(-1);
  assert.deepEqual(last, { id: target.id, forced: "true" });

  // The keyboard does the same: focus a bar, press Enter.
  await page.locator("[data-testid=prob-bar]").nth(1).focus();
  const second = (await bars())[1].id;
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=strip-token]").length === 3);
  await idle();
  assert.equal((await strip()).at(-1).id, second);

  await rewind();
  await rewind();
  assert.deepEqual((await strip()).length, 1);
});

test("hovering or focusing a token shows the distribution it came from", { timeout: MINUTE }, async () => {
  const token = page.locator("[data-testid=strip-token]").first();
  const tip = page.locator(".token-strip .tok-tip").first();
  assert.equal(await tip.isVisible(), false);
  await token.focus();
  assert.equal(await tip.isVisible(), true);
  assert.match(await tip.textContent(), /Token 1: drawn, p = 0\.\d{3}/);
  assert.ok((await tip.locator("li").count()) >= 2, "several candidates listed");
});

test("Auto-run steps until Pause", { timeout: 2 * MINUTE }, async () => {
  const before = (await strip()).length;
  await page.click("[data-testid=auto]");
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=strip-token]").length >= n + 3, before, { timeout: MINUTE });
  await page.click("[data-testid=auto]");
  await idle();
  const paused = (await strip()).length;
  await page.waitForTimeout(1000);
  assert.equal((await strip()).length, paused, "nothing more after Pause");
  assert.equal(await page.textContent("[data-testid=auto]"), "Auto-run");
});

test("Sample 1000× draws a histogram over the bars with a goodness of fit", { timeout: MINUTE }, async () => {
  await set({ ...NO_CUTS, temperature: 1, "top-k": 5 });
  await page.click("[data-testid=sample]");
  await page.waitForSelector("[data-testid=sample-result]");
  assert.equal(await page.getAttribute("[data-testid=sample-result]", "data-draws"), "1000");
  const shown = await bars();
  assert.ok(shown.every((b) => b.observed !== undefined), "every bar has its count");
  assert.ok(shown.every((b) => b.eligible === "true" || b.observed === 0), "cut tokens are never drawn");
  assert.equal(shown.reduce((s, b) => s + b.observed, 0), 1000, "all draws fell on the 5 eligible bars");
  assert.match(await page.textContent("[data-testid=sample-result]"), /Chi-square = [\d.]+ with \d+ degrees of freedom .*: p = /);
  const p = Number(await page.getAttribute("[data-testid=sample-result]", "data-p-value"));
  assert.ok(p > 0 && p <= 1, `p-value ${p}`);
  // The distance a correct sampler shows at 1000 draws over the 5 kept tokens, recomputed
  // from the bars' probabilities: E|X − np| of each binomial count, summed, over 2n.
  const tvd = (name) => page.getAttribute("[data-testid=sample-tvd]", name).then(Number);
  assert.equal(await tvd("data-kept"), 5);
  const kept = shown.filter((b) => b.eligible === "true").map((b) => b.prob);
  const mad = (n, q) => {
    let logPmf = n * Math.log1p(-q); // P(X = 0)
    let sum = 0;
    for (let x = 0; x <= n; x++) {
      sum += Math.exp(logPmf) * Math.abs(x - n * q);
      logPmf += Math.log((n - x) / (x + 1)) + Math.log(q) - Math.log1p(-q);
    }
    return sum;
  };
  const chance = kept.reduce((s, q) => s + mad(1000, q), 0) / 2000;
  assert.ok(Math.abs((await tvd("data-chance")) - chance) < 1e-3, `chance ${await tvd("data-chance")} against ${chance}`);
  assert.match(await page.textContent("[data-testid=sample-result]"), /a correct sampler shows [\d.]+ on average at 1\D?000 draws over these 5 kept tokens/);
  assert.match(await page.textContent(".sample"), /not the cuts/);
  // A new setting retires the sample: it described the old distribution.
  await set({ "top-k": 6 });
  assert.equal(await page.$("[data-testid=sample-result]"), null);
});

test("Compare: two settings, the same seeds, texts with distinct-2 and mean log-probability; stepping resumes after", { timeout: 3 * MINUTE }, async () => {
  const before = await strip();
  await set({ "compare-count": 2, "compare-max-tokens": 6 });
  await page.click("[data-testid=compare-run]");
  await page.waitForFunction(() => document.querySelector("[data-testid=compare-b]").dataset.continuations === "2", null, { timeout: 2 * MINUTE });
  await idle();
  for (const side of ["a", "b"]) {
    const box = page.locator(`[data-testid=compare-${side}]`);
    assert.equal(await box.locator(".continuation").count(), 2);
    const d2 = Number(await box.getAttribute("data-distinct2"));
    const mean = Number(await box.getAttribute("data-mean-logprob"));
    assert.ok(d2 > 0 && d2 <= 1, `distinct-2 ${d2}`);
    assert.ok(mean < 0, `mean log-probability ${mean}`);
    assert.match(await box.textContent(), /seed \d+ · \d+ tokens/);
  }
  assert.deepEqual(await strip(), before, "the stepping run is back as it was");
  await step();
});

test("Compare's Stop ends the run; stepping resumes", { timeout: 3 * MINUTE }, async () => {
  const before = await strip();
  await set({ "compare-count": 10, "compare-max-tokens": 128 });
  await page.click("[data-testid=compare-run]");
  // 20 continuations of up to 128 tokens, decoding together: Stop comes long before their end.
  await page.click("[data-testid=compare-stop]");
  await page.waitForFunction(() => document.querySelector("[data-testid=compare-stop]").disabled, null, { timeout: 30_000 });
  assert.match(await page.textContent("[data-testid=compare]"), /Stopped\./);
  for (const side of ["a", "b"]) {
    const n = Number(await page.getAttribute(`[data-testid=compare-${side}]`, "data-continuations"));
    assert.ok(n < 10, `side ${side} finished ${n} of 10 continuations of up to 128 tokens before Stop`);
  }
  await idle();
  assert.deepEqual(await strip(), before, "the stepping run is back as it was");
  await step();
  await set({ "compare-count": 2, "compare-max-tokens": 6 });
});

test("Compare refuses a setting out of its range, naming the range, and runs on the value still in use", { timeout: 3 * MINUTE }, async () => {
  const shown = (testid) => page.locator(`[data-testid=${testid}]`);
  await set({ "compare-a-temperature": 5, "compare-a-top-k": 2.5 });
  await shown("compare-a-temperature-error").waitFor({ timeout: 5_000 });
  assert.equal(await shown("compare-a-temperature-error").textContent(), "Not used: 5 is not a number from 0 to 2. Still 0.7.");
  assert.equal(await shown("compare-a-top-k-error").textContent(), "Not used: 2.5 is not a whole number from 0 to 100. Still 0.");
  assert.equal(await shown("compare-a-temperature").inputValue(), "5", "the box keeps what was typed");
  assert.equal(await shown("compare-a-temperature").getAttribute("aria-invalid"), "true");
  // Another setting's change leaves the refused entry as typed.
  await set({ "compare-a-top-p": 0.8 });
  assert.equal(await shown("compare-a-temperature").inputValue(), "5");
  const run = async () => {
    await page.click("[data-testid=compare-run]");
    await page.waitForFunction(() => document.querySelector("[data-testid=compare-b]").dataset.continuations === "2", null, { timeout: 2 * MINUTE });
    await idle();
    return shown("compare-a").locator("h4").textContent();
  };
  assert.equal(await run(), "Side A: T 0.70, top-p 0.80", "run on the values in use: not 2.0 for 5, not a rounded top-k");
  await set({ "compare-a-temperature": 1.2, "compare-a-top-k": 3, "compare-a-top-p": 0.9 });
  assert.ok(await shown("compare-a-temperature-error").isHidden(), "a valid entry clears the message");
  assert.ok(await shown("compare-a-top-k-error").isHidden());
  assert.equal(await run(), "Side A: T 1.20, top-k 3, top-p 0.90");
  await set({ "compare-a-temperature": 0.7, "compare-a-top-k": 0 });
});

test("each exercise's check passes on a right state and fails on a wrong one", { timeout: 2 * MINUTE }, async () => {
  await page.click("[data-testid=forget-progress]").catch(() => {});
  await page.click("[data-testid=reset]");
  for (const id of ["varied-but-plausible", "deterministic", "top-k-three", "top-p-ninety"]) {
    assert.equal(await exercise(`ex-${id}`), "false", `${id} is not solved by the defaults`);
  }

  await set({ ...NO_CUTS, temperature: 1.5 });
  assert.equal(await exercise("ex-varied-but-plausible"), "false", "hot, but nothing cuts the tail");
  await set({ temperature: 2, "top-k": 5, "top-p": 0.9 });
  assert.equal(await exercise("ex-varied-but-plausible"), "false", "two cuts");
  await set({ "top-p": 1, "top-k": 3 });
  assert.equal(await exercise("ex-varied-but-plausible"), "false", "fewer than five keep a share");
  await set({ "top-k": 5 });
  assert.equal(await exercise("ex-varied-but-plausible"), "true", "five, evened out by T = 2");

  await set({ ...NO_CUTS, temperature: 1, "top-k": 3, "top-p": 0.95 });
  assert.equal(await exercise("ex-top-k-three"), "false", "top-p also cuts");
  await set({ "top-p": 1 });
  assert.equal(await exercise("ex-top-k-three"), "true");
  await set({ temperature: 0 });
  assert.equal(await exercise("ex-top-k-three"), "false", "greedy leaves one");

  await set({ ...NO_CUTS, temperature: 1, "top-p": 0.9, "top-k": 40 });
  assert.equal(await exercise("ex-top-p-ninety"), "false", "top-k also cuts");
  await set({ "top-k": 0, "top-p": 0.97 });
  assert.equal(await exercise("ex-top-p-ninety"), "false", "more than the fewest");
  await set({ "top-p": 0.9 });
  assert.equal(await exercise("ex-top-p-ninety"), "true");

  // Deterministic, the seeded way: the same draws again after Rewind.
  await set({ temperature: 0.8 });
  assert.equal(await exercise("ex-deterministic"), "false");
  const drawn = [];
  for (let i = 0; i < 3; i++) await step();
  drawn.push(...(await strip()).slice(-3));
  for (let i = 0; i < 3; i++) await rewind();
  for (let i = 0; i < 3; i++) await step();
  assert.deepEqual((await strip()).slice(-3), drawn, "the same seed drew the same tokens");
  assert.equal(await exercise("ex-deterministic"), "true");
  // And the greedy way.
  await set({ seed: 7 });
  assert.equal(await page.getAttribute("[data-testid=exercise-ex-deterministic]", "data-done"), "true");
  await set({ temperature: 0 });
  assert.equal(await exercise("ex-deterministic"), "true");
  assert.match(await page.textContent("[data-testid=exercise-progress]"), /Solved: 4 of 5/);
});

test("a link with settings reproduces them, and progress survives the reload", { timeout: 4 * MINUTE }, async () => {
  await set({ temperature: 1.3, "top-k": 7, "top-p": 0.8, "min-p": 0.02, seed: 99 });
  await page.fill("[data-testid=prompt]", "Name a colour.");
  await page.click("[data-testid=start]");
  await idle();
  await page.waitForFunction(() => location.search.includes("Name%20a%20colour."));
  const link = await page.evaluate(() => location.pathname + location.search);
  assert.match(link, /temperature=1\.3&top_k=7&top_p=0\.8&min_p=0\.02&repeat_penalty=1&seed=99&prompt=Name%20a%20colour\./);
  const shown = await bars();

  await page.goto("about:blank");
  await open(link.slice(LESSON.length));
  const values = await page.$$eval("[data-testid=interactive-generation] input", (els) => Object.fromEntries(els.map((e) => [e.dataset.testid, e.value])));
  assert.deepEqual(
    { t: values.temperature, k: values["top-k"], p: values["top-p"], m: values["min-p"], seed: values.seed },
    { t: "1.3", k: "7", p: "0.8", m: "0.02", seed: "99" },
  );
  assert.match(await page.textContent(".strip-prompt"), /Name a colour\./);
  // The same distribution, up to float rounding: a prompt computed in other chunks (here
  // from scratch, before with the previous prompt's cache reused) sums in another order.
  const again = await bars();
  assert.deepEqual(again.map((b) => [b.id, b.cutBy]), shown.map((b) => [b.id, b.cutBy]));
  for (const [i, b] of again.entries()) {
    for (const key of ["logit", "softmax", "prob"]) assert.ok(close(b[key], shown[i][key], 1e-3), `${key} of ${b.id}: ${b[key]} vs ${shown[i][key]}`);
  }
  assert.equal(await page.$("[data-testid=url-notice]"), null);
  assert.match(await page.textContent("[data-testid=exercise-progress]"), /Solved: 4 of 5/);
});

test("bad values in a link are clamped with a visible notice, and the page works", { timeout: 4 * MINUTE }, async () => {
  await open("?temperature=NaN&top_k=500&top_p=abc&min_p=-1&seed=1.5&prompt=%FF%FEcat");
  const notice = await page.textContent("[data-testid=url-notice]");
  assert.match(notice, /temperature “NaN” is not a number \(0–2\): using 0\.8/);
  assert.match(notice, /top_k 500 is outside 0–100: using 100/);
  assert.match(notice, /top_p “abc” is not a number/);
  assert.match(notice, /min_p -1 is outside 0–0\.5: using 0/);
  assert.match(notice, /seed 1\.5 is not a whole number: using 2/);
  assert.match(notice, /prompt was not valid UTF-8/);
  const values = await page.$$eval("[data-testid=interactive-generation] input", (els) => Object.fromEntries(els.map((e) => [e.dataset.testid, e.value])));
  assert.deepEqual([values.temperature, values["top-k"], values["top-p"], values["min-p"], values.seed], ["0.8", "100", "0.95", "0", "2"]);
  assert.match(await page.textContent(".strip-prompt"), /��cat/);
  await step();

  await open("?prompt=%20%20");
  assert.match(await page.textContent("[data-testid=url-notice]"), /prompt is empty: using the default prompt/);
  // An empty prompt typed in: a message, and the run so far stays.
  await page.fill("[data-testid=prompt]", "   ");
  await page.click("[data-testid=start]");
  assert.match(await page.textContent("[data-testid=lesson-error]"), /Type a prompt first/);
  assert.equal((await bars()).length, 20);
  await step();
});

test("a run from the prompt draws what the Playground generates with the same seed and settings", { timeout: 4 * MINUTE }, async () => {
  await open("?temperature=0.8&top_k=40&top_p=0.9&min_p=0&repeat_penalty=1&seed=42&prompt=Suggest%20a%20name%20for%20a%20pet%20cat.");
  for (let i = 0; i < 6; i++) await step();
  const stepped = await page.$$eval("[data-testid=strip-token]", (els) => els.map((e) => e.textContent).join(""));

  await page.goto(server.url + "/playground");
  await page.waitForSelector("[data-testid=model-status][data-state=ready]", { timeout: 3 * MINUTE });
  await set({ temperature: 0.8, "top-k": 40, "top-p": 0.9, seed: 42 });
  const { output: generated } = await playgroundGenerate(page, "Suggest a name for a pet cat.", 6);
  assert.equal(stepped.replaceAll("␣", " ").replaceAll("↵", "\n"), generated);
  await open();
});

test("the sliders stay in view while the candidates below them respond, at 1200 and 390 px, and never scroll sideways", { timeout: 2 * MINUTE }, async () => {
  await open();
  const inView = (testid) =>
    page.$eval(`[data-testid=${testid}]`, (el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
    });
  try {
    for (const [width, height] of [[1200, 900], [390, 844]]) {
      await page.setViewportSize({ width, height });
      await set({ temperature: 0.8 });
      await page.locator("[data-testid=prob-bar]").last().scrollIntoViewIfNeeded();
      for (const slider of ["temperature", "top-k", "top-p", "min-p"]) {
        assert.ok(await inView(slider), `the ${slider} slider is on screen beside the last candidate (${width} px)`);
      }
      const bar = await page.$eval(".l1-controls", (el) => ({ scroll: el.scrollWidth, client: el.clientWidth, height: el.getBoundingClientRect().height }));
      assert.ok(bar.scroll <= bar.client, `the settings bar does not scroll sideways (${width} px: ${bar.scroll} > ${bar.client})`);
      if (width === 390) assert.ok(bar.height <= height / 3, `on a phone the settings bar takes at most a third of the screen (${bar.height} px)`);
      const before = (await bars()).map((b) => b.prob);
      await page.focus("[data-testid=temperature]");
      await page.keyboard.press("End");
      await page.waitForFunction((old) => {
        const now = [...document.querySelectorAll("[data-testid=prob-bar]")].map((el) => Number(el.dataset.prob));
        return now.some((p, i) => p !== old[i]);
      }, before);
      assert.ok(await page.locator("[data-testid=prob-bar]").last().isVisible());
      assert.ok(await inView("temperature"), `still on screen after the redraw (${width} px)`);
    }
    // On the phone, the other settings are one button away, and fit the screen's width.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await page.isVisible("[data-testid=seed]"), false);
    await page.click("[data-testid=more-settings]");
    assert.equal(await page.getAttribute("[data-testid=more-settings]", "aria-expanded"), "true");
    assert.ok(await page.isVisible("[data-testid=seed]"));
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390));
    await page.click("[data-testid=more-settings]");
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});

test("each concept's section has a small live view that moves the tool's own settings", { timeout: MINUTE }, async () => {
  await open();
  const concepts = await page.$$eval("[data-testid=mini-live]", (els) => els.map((e) => e.dataset.concept));
  assert.deepEqual(concepts, ["temperature", "cuts", "repetition", "seed"]);
  await set({ "mini-temperature": 1.5 });
  assert.equal(await page.inputValue("[data-testid=temperature]"), "1.5", "the tool's slider follows");
  await set({ "mini-top-k": 3 });
  assert.equal(await page.inputValue("[data-testid=top-k]"), "3");
  // The small view lists the tool's own five most likely candidates, with their final probabilities.
  const mini = await page.$$eval("[data-concept=cuts] [data-testid=mini-candidate]", (els) => els.map((e) => [Number(e.dataset.tokenId), Number(e.dataset.prob)]));
  const tool = (await bars()).slice(0, 5).map((b) => [b.id, b.prob]);
  assert.deepEqual(mini, tool);
  assert.equal(mini.filter(([, p]) => p > 0).length, 3, "top-k = 3 leaves three");
  await set({ "mini-temperature": 0.8, "mini-top-k": 40 });
});

test("the lesson fits a 390 px wide screen", { timeout: MINUTE }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${width} px wide`);
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});

/** The base and instruct panel's rows: one per model and way in, with what each shows. */
const baseInstructRows = () =>
  page.$$eval("[data-testid=base-instruct-row]", (els) =>
    els.map((el) => ({
      model: el.dataset.model,
      base: el.dataset.base,
      way: el.dataset.way,
      current: el.dataset.current,
      seen: el.querySelector("[data-testid=base-instruct-seen]")?.textContent ?? null,
      seenTokens: Number(el.querySelector("[data-testid=base-instruct-seen]")?.dataset.tokens ?? NaN),
      text: el.querySelector("[data-testid=base-instruct-text]")?.textContent ?? null,
      tokens: Number(el.querySelector("[data-testid=base-instruct-tokens]")?.textContent ?? NaN),
      stop: el.querySelector("[data-testid=base-instruct-stop-reason]")?.dataset.stop ?? null,
      noChat: el.querySelector("[data-testid=base-instruct-no-chat]")?.textContent ?? null,
    })),
  );

/** Runs the panel and waits until its run is over and the lesson's stepping run is back. */
async function runBaseInstruct() {
  await page.click("[data-testid=base-instruct-run]");
  await page.waitForSelector("[data-testid=base-instruct-stop]:disabled", { timeout: 4 * MINUTE });
  await page.waitForSelector("[data-testid=base-instruct-run]:enabled", { timeout: MINUTE });
  await idle();
}

const SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1";
const GEMMA = "gemma-3-270m.Q4_K_M";

test("base and instruct, same prompt: SmolLM2 as a chat and as raw text, Gemma loaded from the panel as raw text; the exercise, a reload and Saved work keep them", { timeout: 12 * MINUTE }, async () => {
  const PROMPT = "The capital of France is";
  await open(`?prompt=${encodeURIComponent(PROMPT)}&temperature=0&seed=7`);
  assert.equal(await page.textContent("[data-testid=model-name]"), "SmolLM2-135M-Instruct");
  assert.equal(await exercise("ex-base-and-instruct"), "false");
  // N out of its range is refused with the range, and the panel keeps its N.
  await set({ "base-instruct-max-tokens": 500 });
  assert.equal(await page.textContent("[data-testid=base-instruct-max-tokens-error]"), "Not used: 500 is not a whole number from 1 to 128. Still 32.");
  await set({ "base-instruct-max-tokens": 12 });

  await runBaseInstruct();
  const smollm2 = await baseInstructRows();
  assert.deepEqual(smollm2.map((r) => [r.model, r.way, r.base, r.current]), [[SMOLLM2, "chat", "false", "true"], [SMOLLM2, "raw", "false", "true"]]);
  const [chat, raw] = smollm2;
  // What the model saw: the template's text around the message, or the words alone.
  assert.ok(chat.seen.includes(`<|im_start|>user\n${PROMPT}<|im_end|>\n<|im_start|>assistant\n`), chat.seen);
  assert.ok(chat.seen.startsWith("<|im_start|>system\n"), "SmolLM2's template adds its system turn");
  assert.equal(raw.seen, PROMPT, "raw text goes in as written (SmolLM2 asks for no BOS token)");
  assert.ok(chat.seenTokens > raw.seenTokens + 10, `${chat.seenTokens} against ${raw.seenTokens} tokens`);
  for (const r of smollm2) {
    assert.ok(r.text.trim().length > 0, `${r.way}: real text`);
    assert.ok(r.tokens >= 1 && r.tokens <= 12, `${r.way}: ${r.tokens} tokens`);
    assert.ok(r.stop === "MaxTokens" ? r.tokens === 12 : r.stop === "EndOfTurn", `${r.way}: ${r.stop} after ${r.tokens}`);
  }
  assert.notEqual(chat.text, raw.text, "the chat answer and the raw continuation differ");
  assert.match(await page.textContent("[data-testid=exercise-ex-base-and-instruct] [data-testid=verdict]"), /SmolLM2-135M-Instruct \(an instruct model\) only/);

  // The other built-in model, loaded from the panel: the lesson starts again on it, from the
  // prompt (SmolLM2's token ids would be other tokens to Gemma).
  await step();
  assert.equal((await strip()).length, 1);
  await page.click("[data-testid=base-instruct-load-gemma3-270m]");
  await modelLoaded(page, "Gemma 3 270M");
  assert.equal(await page.getAttribute("[data-testid=model-ready]", "data-vocab"), "262144");
  await page.waitForSelector("[data-testid=prob-bar]", { timeout: 2 * MINUTE });
  await idle();
  assert.deepEqual(await strip(), [], "the stepping run starts again from the prompt on Gemma");
  assert.equal(await page.isHidden("[data-testid=base-instruct-load-gemma3-270m]"), true, "no button loads the model loaded now");
  await runBaseInstruct();
  const both = await baseInstructRows();
  assert.deepEqual(both.slice(0, 2), smollm2, "SmolLM2's rows are kept");
  const [gemmaChat, gemmaRaw] = both.slice(2);
  assert.deepEqual([gemmaChat.model, gemmaChat.way, gemmaChat.base], [GEMMA, "chat", "true"]);
  assert.match(gemmaChat.noChat, /^No chat template: Gemma 3 270M is a base model/);
  assert.equal(gemmaChat.text, null, "and no chat was run");
  assert.deepEqual([gemmaRaw.model, gemmaRaw.way, gemmaRaw.current], [GEMMA, "raw", "true"]);
  assert.equal(gemmaRaw.seen, `<bos>${PROMPT}`, "Gemma's file asks for its BOS token before raw text");
  assert.ok(gemmaRaw.text.trim().length > 0 && gemmaRaw.tokens <= 12);
  assert.notEqual(gemmaRaw.text, raw.text, "Gemma continues otherwise than SmolLM2");
  await page.waitForSelector("[data-testid=exercise-ex-base-and-instruct][data-pass=true]");
  assert.match(await page.textContent("[data-testid=exercise-ex-base-and-instruct] [data-testid=verdict]"), /Gemma 3 270M \(a base model\) and SmolLM2-135M-Instruct \(an instruct model\) were given “The capital of France is”/);

  // Stop: the run ends at once, and the rows it would have replaced stay.
  await set({ "base-instruct-max-tokens": 128 });
  await page.click("[data-testid=base-instruct-run]");
  await page.click("[data-testid=base-instruct-stop]");
  await page.waitForSelector("[data-testid=base-instruct-run]:enabled", { timeout: MINUTE });
  assert.equal(await page.textContent("[data-testid=base-instruct-note]"), "Stopped.");
  await idle();
  // Rows made with another N than the panel's now are marked, not silently compared.
  const marked = await baseInstructRows();
  assert.deepEqual(marked.map((r) => r.current), ["false", "false", "false", "false"]);
  assert.deepEqual(marked.map((r) => r.text), both.map((r) => r.text), "the stopped run replaced nothing");
  assert.match(await page.textContent("[data-testid=base-instruct-other] >> nth=0"), /^ Made with another N than the lesson's now/);
  await set({ "base-instruct-max-tokens": 12 });
  assert.deepEqual((await baseInstructRows()).map((r) => r.current), ["true", "true", "true", "true"]);

  // A reload keeps both models' rows, and the exercise.
  await page.reload();
  await modelLoaded(page, "Gemma 3 270M");
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=base-instruct-row]").length === 4, null, { timeout: MINUTE });
  assert.deepEqual(await baseInstructRows(), both, "the same rows, with the panel's N back at the runs' own");
  await page.waitForSelector("[data-testid=exercise-ex-base-and-instruct][data-pass=true][data-done=true]");

  // Saved work lists it, with both models, and opens it in the panel.
  await page.goto(server.url + "/saved");
  await page.waitForSelector("[data-testid=saved-list][aria-busy=false]", { state: "attached" });
  const item = "[data-testid=saved-item][data-kind=base-instruct]";
  assert.equal(await page.locator(item).count(), 1);
  assert.equal(await page.textContent(`${item} [data-testid=saved-model]`), `${SMOLLM2}, ${GEMMA}`);
  assert.equal(await page.textContent(`${item} h2`), "Base and instruct, same prompt and settings: SmolLM2-135M-Instruct (instruct model), Gemma 3 270M (base model)");
  await page.goto(server.url + "/learn/generation");
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=base-instruct-row]").length === 4, null, { timeout: 2 * MINUTE });
  assert.deepEqual((await baseInstructRows()).map((r) => r.current), ["false", "false", "false", "false"], "the lesson's default prompt is another prompt");
  await page.goto(server.url + "/saved");
  await page.waitForSelector("[data-testid=saved-list][aria-busy=false]", { state: "attached" });
  // Open goes to the panel with the runs' own prompt and settings.
  await page.click(`${item} [data-testid=open-saved]`);
  await page.waitForURL(/\/learn\/generation\?temperature=0&.*&seed=7&prompt=The%20capital%20of%20France%20is&.*#base-instruct$/);
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=base-instruct-row]").length === 4, null, { timeout: 2 * MINUTE });
  assert.deepEqual((await baseInstructRows()).map((r) => r.current), ["true", "true", "true", "true"]);

  // The playground, on a base model, links to the panel with its own prompt.
  await page.goto(server.url + "/playground");
  await modelLoaded(page, "Gemma 3 270M");
  await page.fill("[data-testid=prompt]", "Once upon a time");
  const href = await page.getAttribute("[data-testid=base-instruct-link]", "href");
  assert.match(href, /^\/learn\/generation\?temperature=.*&prompt=Once%20upon%20a%20time&.*#base-instruct$/);
  await page.click("[data-testid=base-instruct-link]");
  await page.waitForSelector("[data-testid=prob-bar]", { timeout: 2 * MINUTE });
  await idle();
  assert.equal(await page.inputValue("[data-testid=prompt]"), "Once upon a time");
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=base-instruct-row]").length === 4, null, { timeout: MINUTE });
  assert.deepEqual((await baseInstructRows()).map((r) => r.current), ["false", "false", "false", "false"], "made with another prompt");
  assert.match(await page.textContent("[data-testid=base-instruct-other] >> nth=0"), /another prompt/);

});

test("no errors reached the console, and no request left the origin", () => {
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), [], "no request left the origin");
});

// The engine's opt-in integer arithmetic in the playground: off by default; switched on, it is
// first measured on the loaded model and the page shows that measurement, the model status
// says every figure now comes from it, and Saved work says which conversation it answered;
// the choice is kept for the next visit and applied to the model loaded then; switched off,
// the exact text comes back bit for bit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MINUTE, openSession, playgroundGreedyText, READY } from "./session.mjs";

const PROMPT = "Name three primary colours.";
const TOKENS = 24;
const HINT = "[data-testid=integer-hint]";

const setting = (page) => page.$eval(HINT, (h) => ({ ...h.dataset, text: h.textContent }));

async function turn(page, on) {
  await page.setChecked("[data-testid=integer-setting]", on);
  return waitFor(page, on);
}

/** The setting once the worker has answered (switching on measures for about a second). */
async function waitFor(page, on) {
  await page.waitForFunction((on) => document.querySelector("[data-testid=integer-hint]")?.dataset.on === String(on), on, { timeout: MINUTE });
  return setting(page);
}

const greedy = (page) => playgroundGreedyText(page, PROMPT, TOKENS);

test("the integer arithmetic: off by default, measured when switched on, kept for the next visit, exact again when off", { timeout: 8 * MINUTE }, async () => {
  const session = await openSession();
  try {
    const { page } = session;
    await page.goto(session.url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    const off = await setting(page);
    assert.equal(off.on, "false", "off by default");
    assert.match(off.text, /covers 100 % of this model's weights/, "every matrix of the built-in Q4_1 model is covered");
    assert.equal(await page.$("[data-testid=engine-arithmetic]"), null, "the model status says nothing while it is off");
    const exact = await greedy(page);
    assert.ok(exact.length > 20, exact);

    const on = await turn(page, true);
    const mean = Number(on.mean);
    assert.ok(mean > 0 && mean <= 3e-3, `mean |Δlogit| ${on.mean}: rounding moves the logits, by at most 3e-3 (tests/integer.rs)`);
    assert.equal(Number(on.share), 1);
    const [same, steps] = on.same.split("/").map(Number);
    assert.equal(steps, 16);
    assert.ok(same >= steps - 2, `the greedy token was the same at only ${on.same} steps`);
    assert.match(on.text, new RegExp(`the same at ${same} of ${steps} steps`));
    assert.match(on.text, /as fast\)/);
    assert.match(await page.innerText("[data-testid=engine-arithmetic]"), /Arithmetic: integer/);
    assert.ok((await greedy(page)).length > 20, "it generates");

    // Saved work says which conversation the integer arithmetic answered (the first, exact
    // one says nothing); the site's own link, so that leaving the playground saves it.
    await page.click('nav >> text="Saved work"');
    await page.waitForSelector("[data-testid=saved-list][aria-busy=false]", { state: "attached" });
    const saved = await page.$$eval("[data-testid=saved-item][data-kind=conversation]", (els) =>
      els.map((e) => ({ title: e.querySelector("h2").textContent, arithmetic: e.querySelector("[data-testid=saved-arithmetic]")?.textContent ?? null })),
    );
    assert.deepEqual(saved.map((c) => c.title), [PROMPT, PROMPT]);
    assert.deepEqual(saved.map((c) => c.arithmetic).sort(), ["integer arithmetic", null]);

    // Kept for the next visit: the new page's model is measured and switched on again.
    await page.goto(session.url("/playground"));
    await page.waitForSelector(READY, { timeout: 2 * MINUTE });
    assert.equal((await waitFor(page, true)).share, "1");
    assert.equal(await page.isChecked("[data-testid=integer-setting]"), true);

    await turn(page, false);
    assert.equal(await page.$("[data-testid=engine-arithmetic]"), null);
    assert.equal(await greedy(page), exact, "switched off, the exact arithmetic gives the same text as before");
    assert.deepEqual(session.consoleErrors, []);
  } finally {
    await session.close();
  }
});

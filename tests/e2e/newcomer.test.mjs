// The site as a newcomer meets it (issue 25): nothing is changed behind the learner's back,
// every long wait shows progress, long lessons can be found one's way around, and the
// keyboard and the example prompts come back to where they were.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chooseStrategies, MINUTE, newConversation, openSession, READY } from "./session.mjs";

let session, page;

before(async () => {
  session = await openSession();
  page = session.page;
  // Every prefill progress value the page showed, whatever happens between polls.
  await session.browser.context.addInitScript(() => {
    window.__prefill = [];
    new MutationObserver(() => {
      const bar = document.querySelector("[data-testid=prefill-progress]");
      const last = window.__prefill.at(-1);
      if (bar && (!last || last[0] !== Number(bar.dataset.done))) window.__prefill.push([Number(bar.dataset.done), Number(bar.dataset.total)]);
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
});

after(() => session?.close());

const sel = (testid) => `[data-testid=${testid}]`;

/** The playground keeps the last conversation: start an empty one, as a learner would. */
async function open(path) {
  await page.goto(session.url(path));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
}

test("each lesson has contents that stay on screen and reach every section", { timeout: 2 * MINUTE }, async () => {
  for (const slug of ["generation", "stages", "reasoning"]) {
    await open(`/learn/${slug}`);
    const entries = await page.$$eval(`${sel("lesson-toc")} a`, (links) => links.map((a) => a.textContent.trim()));
    const headings = await page.$$eval("article.lesson h2[id], article.lesson .lab-panel > h3[id]", (hs) => hs.map((h) => h.textContent.trim()));
    assert.deepEqual(entries, headings, `${slug}: the contents list every section and lab, in order`);
    assert.ok(entries.length >= 6, `${slug}: ${entries.length} sections`);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    const box = await page.$eval(sel("lesson-toc"), (el) => el.getBoundingClientRect().toJSON());
    assert.ok(box.top >= 0 && box.bottom <= (await page.evaluate(() => innerHeight)), `${slug}: the contents are on screen at the end of the lesson`);
    await page.click(`${sel("lesson-toc")} summary`);
    const third = page.locator(`${sel("lesson-toc")} a`).nth(2);
    const target = (await third.getAttribute("href")).split("#")[1];
    await third.click();
    assert.equal(new URL(page.url()).pathname, `/learn/${slug}`, "the link stays on the lesson");
    const top = await page.$eval(`#${target}`, (h) => h.getBoundingClientRect().top);
    assert.ok(top >= 0 && top < 200, `${slug}: the section's heading is at the top (${top})`);
    assert.equal(await page.evaluate(() => document.activeElement?.id), target, "the keyboard is at the section");
    assert.equal(await page.$eval(`${sel("lesson-toc")} details`, (d) => d.open), false, "the contents fold again");
  }
});

test("at 390 px Lesson 1's contents stay reachable: the sliders' bar does not cover them", { timeout: 2 * MINUTE }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await open("/learn/generation");
    // Scrolled into the tool, where its sliders' bar sticks to the top of the window too.
    await page.$eval(".l1-controls", (bar) => window.scrollTo(0, bar.getBoundingClientRect().top + window.scrollY + 300));
    const box = (css) => page.$eval(css, (e) => e.getBoundingClientRect().toJSON());
    const [toc, bar] = [await box(sel("lesson-toc")), await box(".l1-controls")];
    assert.ok(toc.top >= 0 && toc.top < 5, `the contents are at the top of the window (${toc.top})`);
    assert.ok(bar.top >= 0 && bar.top < 100, `the sliders' bar sticks at the top too (${bar.top})`);
    // What the learner would touch at the middle of the contents' summary, and of the bar's first slider.
    const hit = await page.evaluate(() => {
      const at = (el) => {
        const r = el.getBoundingClientRect();
        return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      };
      const summary = document.querySelector("[data-testid=lesson-toc] summary");
      const slider = document.querySelector(".l1-controls input[type=range]");
      return { toc: !!at(summary)?.closest("[data-testid=lesson-toc]"), slider: at(slider) === slider };
    });
    assert.deepEqual(hit, { toc: true, slider: true }, "neither covers the other");
    await page.click(`${sel("lesson-toc")} summary`);
    const first = page.locator(`${sel("lesson-toc")} a`).first();
    assert.ok(await first.isVisible(), "the contents open over the tool");
    const target = (await first.getAttribute("href")).split("#")[1];
    await first.click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), target, "and take the keyboard to the section");
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});

test("an entry out of range is refused with its range, and the value in use stays", { timeout: MINUTE }, async () => {
  await open("/learn/generation");
  await page.fill(sel("seed"), "-1");
  await page.waitForSelector(`${sel("seed-error")}:visible`);
  assert.match(await page.textContent(sel("seed-error")), /-1 is not a whole number from 0 to 4294967295\. Still 42\./);
  assert.equal(await page.getAttribute(sel("seed"), "aria-invalid"), "true");
  await page.locator(sel("seed")).blur();
  assert.equal(await page.inputValue(sel("seed")), "-1", "the refused entry stays in view with its message");
  // The link names a seed only when it is not the default, 42.
  assert.doesNotMatch(page.url(), /seed=/, "the seed in use is still 42");
  await page.fill(sel("seed"), "7");
  assert.equal(await page.isVisible(sel("seed-error")), false);
  await page.waitForFunction(() => location.search.includes("seed=7"));
});

// About 1,150 tokens: over 1,000 as asked, and no longer, because attention's cost grows with
// the square of the length (120 lines, 1,931 tokens, took more than 2 minutes on a 2-core CI machine).
test("a prompt of more than 1,000 tokens shows its prefill progress, rising, then goes away", { timeout: 5 * MINUTE }, async () => {
  await open("/playground");
  await newConversation(page);
  await page.check(sel("mode-raw"));
  const prompt = Array.from({ length: 72 }, (_, i) => `Line ${i + 1}: the quick brown fox jumps over the lazy dog.`).join("\n");
  await page.fill(sel("prompt"), prompt);
  await page.fill(sel("max-tokens"), "2");
  await page.evaluate(() => (window.__prefill = []));
  await page.click(sel("generate"));
  await page.waitForSelector(sel("summary"), { timeout: 4 * MINUTE });
  const seen = await page.evaluate(() => window.__prefill);
  assert.ok(seen.length >= 3, `progress was shown ${seen.length} times`);
  const total = seen[0][1];
  assert.ok(total > 1000, `the prompt is ${total} tokens`);
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i][0] > seen[i - 1][0], `progress rises: ${JSON.stringify(seen)}`);
    assert.equal(seen[i][1], total);
  }
  assert.ok(seen.at(-1)[0] < total, "it shows tokens still to read, not a finished bar");
  assert.equal(await page.isVisible(sel("prefill-progress")), false, "it goes once the answer starts");
});

test("the prefill progress's Stop ends the reading of a long prompt: no answer, and the bar goes", { timeout: 4 * MINUTE }, async () => {
  await open("/playground");
  await newConversation(page);
  await page.check(sel("mode-raw"));
  // Not the prompt above: nothing of it is in the cache to reuse.
  const prompt = Array.from({ length: 72 }, (_, i) => `Row ${i + 1}: a slow grey cat sleeps beside the warm fire.`).join("\n");
  await page.fill(sel("prompt"), prompt);
  await page.fill(sel("max-tokens"), "2");
  await page.evaluate(() => (window.__prefill = []));
  await page.click(sel("generate"));
  await page.waitForSelector(`${sel("prefill-progress")}:not([data-done="0"])`, { timeout: 2 * MINUTE });
  await page.click(sel("prefill-stop"));
  const stoppedAt = Date.now();
  await page.waitForSelector(sel("summary"), { timeout: MINUTE });
  const seen = await page.evaluate(() => window.__prefill);
  const [done, total] = seen.at(-1);
  assert.ok(total > 1000, `the prompt is ${total} tokens`);
  assert.ok(done < total / 2, `it stopped early in the prompt: ${done} of ${total} tokens read (${JSON.stringify(seen)})`);
  assert.match(await page.textContent(sel("summary")), /^0 tokens; stopped by you\./);
  assert.equal(await page.isVisible(sel("prefill-progress")), false, "the bar went");
  assert.ok(await page.isDisabled(sel("stop")), "nothing runs any more");
  assert.ok(Date.now() - stoppedAt < 20_000, `it stopped within a slice, after ${Date.now() - stoppedAt} ms`);
});

test("Escape in a token's alternatives puts the keyboard back on that token", { timeout: 2 * MINUTE }, async () => {
  await open("/playground");
  await newConversation(page);
  await page.check(sel("mode-chat"));
  await page.fill(sel("prompt"), "What is the capital of France?");
  await page.fill(sel("max-tokens"), "4");
  await page.click(sel("generate"));
  await page.waitForSelector(sel("summary"), { timeout: 2 * MINUTE });
  const token = page.locator(sel("token")).nth(1);
  await token.focus();
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "alternative");
  await page.keyboard.press("Escape");
  assert.equal(await page.evaluate(() => document.activeElement?.id), await token.getAttribute("id"));
  assert.equal(await token.getAttribute("aria-expanded"), "false", "its alternatives are closed");
  assert.equal(await page.locator(sel("alternatives")).count(), 0);
});

test("an edited example prompt can be put back", { timeout: MINUTE }, async () => {
  await open("/learn/generation");
  assert.equal(await page.isVisible(sel("prompt-example")), false);
  const example = await page.inputValue(sel("prompt"));
  await page.fill(sel("prompt"), "");
  await page.click(sel("prompt-example"));
  assert.equal(await page.inputValue(sel("prompt")), example);
  await open("/learn/stages");
  const lab = sel("timeline-prompt");
  const original = await page.inputValue(lab);
  await page.fill(lab, "Something else");
  await page.check(sel("timeline-raw"));
  await page.click(sel("timeline-example"));
  assert.equal(await page.inputValue(lab), original);
  assert.equal(await page.isChecked(sel("timeline-chat")), true, "and its mode");
  assert.equal(await page.isVisible(sel("timeline-example")), false);
});

test("a newcomer's walk: home, the playground, each lesson's first lab, a glossary link in a lesson's text, and Back all the way; nothing is lost", { timeout: 8 * MINUTE }, async () => {
  const menu = async (label, path) => {
    await page.click(`nav >> text="${label}"`);
    // The page may put its settings in the query at once.
    await page.waitForURL((u) => u.pathname === path);
  };
  const modelRequests = () => session.requests.filter((r) => r.url.endsWith(".gguf")).length;
  await page.goto(session.url("/"));
  await page.waitForSelector("[data-testid=model-status][data-state=idle], " + READY);
  const before = modelRequests();

  // The playground: a conversation of two turns.
  await menu("Playground", "/playground");
  await newConversation(page);
  await page.fill(sel("max-tokens"), "4");
  for (const message of ["Name a fruit.", "Name a colour."]) {
    await page.fill(sel("prompt"), message);
    await page.click(sel("generate"));
    await page.waitForSelector(`${sel("stop")}:disabled`, { timeout: 2 * MINUTE });
    await page.waitForSelector(sel("summary"), { timeout: MINUTE });
  }
  const turns = () => page.$$eval(sel("chat-turn"), (els) => els.map((e) => [e.dataset.role, e.textContent]));
  const conversation = await turns();
  assert.equal(conversation.length, 4, "two messages, two answers");

  // Lesson 1's first lab: a setting.
  await menu("1. Generation", "/learn/generation");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("prob-bar"));
  const defaultTopK = await page.inputValue(sel("top-k"));
  await page.focus(sel("top-k"));
  await page.keyboard.press("ArrowLeft");
  const topK = await page.inputValue(sel("top-k"));
  assert.notEqual(topK, defaultTopK, "the setting moved");

  // Lesson 2's first lab: a measured run, drawn as a timeline.
  await menu("2. Stages", "/learn/stages");
  await page.fill(sel("timeline-max-tokens"), "5");
  await page.click(sel("timeline-run"));
  await page.waitForSelector(`${sel("timeline-stop")}:disabled`, { timeout: 3 * MINUTE });
  await page.waitForSelector(`${sel("timeline-run")}:enabled`);
  const blocks = () => page.$$eval(`${sel("timeline")} rect`, (r) => r.map((b) => b.dataset.ms));
  const timeline = await blocks();
  assert.equal(timeline.length, 5, "one block per token");

  // Lesson 3's first lab: one task.
  await menu("3. Reasoning", "/learn/reasoning");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  await chooseStrategies(page, ["direct"]);
  await page.fill(sel("limit"), "1");
  await page.click(sel("run-experiment"));
  await page.waitForSelector(`${sel("run-status")}[data-state=finished]`, { timeout: 3 * MINUTE });
  const table = () => page.$$eval(`${sel("results-table")} tbody tr`, (trs) => trs.map((tr) => ({ ...tr.dataset })));
  const results = await table();
  assert.equal(results.length, 1);
  assert.equal(results[0].n, "1");

  // A glossary term in the lesson's text, then Back through every page of the walk.
  await page.locator('article.lesson .term a[href^="glossary#"]').first().click();
  await page.waitForURL((u) => u.pathname === "/glossary");
  await page.waitForSelector(`#${new URL(page.url()).hash.slice(1)}`);
  await page.goBack();
  await page.waitForSelector(`${sel("run-status")}[data-state=finished]`);
  assert.deepEqual(await table(), results, "Lesson 3 kept its results");
  await page.goBack();
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=timeline] rect").length === n, timeline.length);
  assert.deepEqual(await blocks(), timeline, "Lesson 2 kept its timeline");
  await page.goBack();
  await page.waitForSelector(sel("prob-bar"), { timeout: 2 * MINUTE });
  assert.equal(await page.inputValue(sel("top-k")), topK, "Lesson 1 kept its setting");
  await page.goBack();
  await page.waitForSelector(sel("chat-turn"));
  assert.deepEqual(await turns(), conversation, "the playground kept its conversation");
  // One page load for the whole walk: the model was fetched at most once (not at all when
  // this browser had it cached), and never again on the way back.
  assert.ok(modelRequests() - before <= 1, "the model was fetched at most once");
});

test("no errors reached the console, and no request left the origin", () => {
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), []);
});

// Makes the README's picture of Saved work (docs/saved-work.png) from the built site
// (dist/), on the real model in headless Chromium: a fresh profile makes one item of each
// kind the site saves (a playground conversation, a Lesson 2 measurement, a Lesson 3 run),
// then photographs /saved listing the three with their date and model. Run again after
// changing how Saved work looks:
//   nice -n 19 trunk build --release && node scripts/make-saved-work-png.mjs
import { join } from "node:path";
import { chooseStrategies, MINUTE, openSession, playgroundGenerate, playgroundGreedy, READY, ROOT, stagesPanelIdle } from "../tests/e2e/session.mjs";

const KINDS = ["conversation", "reasoning-run", "stage-measurement"];
const sel = (testid) => `[data-testid=${testid}]`;

const session = await openSession();
const { page, url } = session;
try {
  await page.setViewportSize({ width: 1200, height: 900 });

  await page.goto(url("/playground"));
  await page.waitForSelector(READY, { timeout: 3 * MINUTE });
  await playgroundGreedy(page);
  await playgroundGenerate(page, "Name a fruit.", 8);

  // Lesson 2's prefill and decode panel saves its run when it ends.
  await page.click('nav >> text="2. Stages"');
  await page.fill(sel("timeline-max-tokens"), "8");
  await page.click(sel("timeline-run"));
  await stagesPanelIdle(page, "timeline");

  // Lesson 3's smallest run: one strategy on two tasks.
  await page.click('nav >> text="3. Reasoning"');
  await chooseStrategies(page, ["direct"]);
  await page.fill(sel("limit"), "2");
  await page.click(sel("run-experiment"));
  await page.waitForSelector(`${sel("run-status")}[data-state=finished]`, { timeout: 5 * MINUTE });

  await page.click('nav >> text="Saved work"');
  await page.waitForSelector(`${sel("saved-list")}[aria-busy=false]`);
  const items = await page.$$eval(`${sel("saved-list")} ${sel("saved-item")}`, (els) =>
    els.map((e) => ({ kind: e.dataset.kind, model: e.querySelector("[data-testid=saved-model]")?.textContent })),
  );
  const kinds = items.map((i) => i.kind).sort();
  if (JSON.stringify(kinds) !== JSON.stringify(KINDS)) throw new Error(`Saved work lists ${kinds.join(", ")}, not one of each of ${KINDS.join(", ")}`);
  const unnamed = items.filter((i) => !i.model);
  if (unnamed.length) throw new Error(`items without their model: ${unnamed.map((i) => i.kind).join(", ")}`);

  // From the page's heading down: the model's status above it is not what the picture shows.
  await page.$eval("h1", (h) => h.scrollIntoView({ block: "start" }));
  const path = join(ROOT, "docs/saved-work.png");
  await page.screenshot({ path });
  console.log(`${path}: ${items.map((i) => `${i.kind} (${i.model})`).join(", ")}`);
} finally {
  await session.close();
}

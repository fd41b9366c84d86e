// Lesson 1's slider redraw, measured in headless Chromium on the built site (dist/): how
// long from a slider's `input` event until the page has recomputed the distribution from
// the cached logits and laid out the redrawn DOM. A benchmark, not a test: it prints
// figures for docs/BENCHMARKS.md.
//
//   node bench/lesson1-redraw.mjs [moves]
import { openSession } from "../tests/e2e/session.mjs";

const MOVES = Number(process.argv[2] ?? 200);

const session = await openSession();
try {
  const { page } = session;
  await page.goto(session.url("/learn/generation"));
  await page.waitForSelector("[data-testid=prob-bar]", { timeout: 180_000 });
  for (const [label, setup] of [
    ["default cuts (top-k 40, top-p 0.95, min-p 0.05)", {}],
    ["no cuts (every token eligible)", { "top-k": "0", "top-p": "1", "min-p": "0" }],
  ]) {
    const times = await page.evaluate(
      async ({ moves, setup }) => {
        const input = (id, value) => {
          const el = document.querySelector(`[data-testid=${id}]`);
          el.value = value;
          el.dispatchEvent(new Event("input", { bubbles: true }));
        };
        // A new task: every microtask (where Leptos runs its effects) has run by then.
        const nextTask = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); });
        for (const [id, value] of Object.entries(setup)) input(id, value);
        await nextTask();
        const out = [];
        for (let i = 0; i < moves; i++) {
          const t = (0.3 + (i % 20) * 0.05).toFixed(2);
          const t0 = performance.now();
          input("temperature", t);
          await nextTask();
          document.body.offsetHeight; // forces style and layout of the redrawn page
          out.push(performance.now() - t0);
          if (document.querySelector("[data-testid=temperature-value]").textContent !== t) throw new Error("no redraw");
        }
        return out;
      },
      { moves: MOVES, setup },
    );
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
    console.log(`${label}: ${MOVES} moves, median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${times.at(-1).toFixed(1)} ms`);
  }
} finally {
  await session.close();
}

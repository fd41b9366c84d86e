// The browser's batch figure (docs/BENCHMARKS.md): N samples of the bench prompt at
// self-consistency's settings, one session after another and then decoded together, timed
// inside the app's own worker (`BenchBatch`: one `engine::batch_bench` round per request,
// the round `playground bench --batch N` times natively). Then the native figure, in the
// same run. The built site (dist/) and the release CLI must exist; the last stdout line is
// the JSON summary.
//
//   node bench/batch.mjs [--batch 8] [--rounds 3] [--threads 1]
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { MINUTE, READY, ROOT, openSession } from "../tests/e2e/session.mjs";
import { CpuSampler } from "./cpu.mjs";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const BATCH = opt("batch", 8);
const ROUNDS = opt("rounds", 3);
// Threads each forward pass splits over, in the worker (`SetThreads`) and natively alike.
const THREADS = opt("threads", 1);
if (!(BATCH >= 2 && BATCH <= 32)) throw new Error("--batch must be 2 to 32");
if (!(ROUNDS >= 1)) throw new Error("--rounds must be at least 1");
if (!(THREADS >= 1)) throw new Error("--threads must be at least 1");
// As the CLI's BENCH_TOKENS: each sample ends at end of turn or after this many tokens.
const TOKENS = 128;

// The CLI's bench prompt, so that both figures time the same work: a Rust string literal
// whose line continuations (`\` newline indentation) are dropped.
const commands = await readFile(join(ROOT, "crates/cli/src/bench.rs"), "utf8");
const literal = commands.match(/const BENCH_PROMPT: &str = ("(?:[^"\\]|\\[\s\S])*");/)?.[1];
if (!literal) throw new Error("BENCH_PROMPT not found in crates/cli/src/bench.rs");
const PROMPT = JSON.parse(literal.replace(/\\\n\s*/g, ""));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rates = (r) => ({
  sequential_tokens_per_s: (r.generated_tokens * 1000) / r.sequential_ms,
  batched_tokens_per_s: (r.generated_tokens * 1000) / r.batched_ms,
  speedup: r.sequential_ms / r.batched_ms,
  sequential_decode_tokens_per_s: ((r.generated_tokens - r.samples) * 1000) / r.sequential_decode_ms,
  batched_decode_tokens_per_s: ((r.generated_tokens - r.samples) * 1000) / r.batched_decode_ms,
});

/** Sends one request to the app's worker (recorded by `keepWorkers`) and waits for its final response. */
function ask(page, body) {
  return page.evaluate(
    (body) =>
      new Promise((resolve) => {
        const worker = window.__workers.at(-1);
        // Far above the ids the page's bridge gives out, which ignores responses it did not ask for.
        const id = 1_000_000 + window.__workers.asked++;
        worker.addEventListener("message", function listen({ data }) {
          if (data?.id !== id) return;
          worker.removeEventListener("message", listen);
          resolve(data.body);
        });
        worker.postMessage({ id, body });
      }),
    body,
  );
}

/** Runs in the page before its scripts: keeps every worker it starts. */
function keepWorkers() {
  window.__workers = [];
  window.__workers.asked = 0;
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(...a) {
      super(...a);
      window.__workers.push(this);
    }
  };
}

const session = await openSession();
let summary;
try {
  const { page } = session;
  await session.browser.context.addInitScript(keepWorkers);
  await page.goto(session.url("/"));
  await page.waitForSelector(READY, { timeout: 5 * MINUTE });
  const threads = await ask(page, { SetThreads: { threads: THREADS } });
  if (threads.Threads?.threads !== THREADS) throw new Error(`${THREADS} threads asked for, the worker runs ${JSON.stringify(threads)}`);
  const request = (max_tokens) => ({ BenchBatch: { prompt: PROMPT, samples: BATCH, max_tokens } });
  // A short round first: the worker's wasm is compiled in tiers.
  const warm = await ask(page, request(8));
  if (!warm.BenchBatch) throw new Error(`BenchBatch: ${JSON.stringify(warm)}`);
  const rounds = [];
  for (let i = 1; i <= ROUNDS; i++) {
    const sampler = new CpuSampler();
    await sampler.start();
    const t0 = Date.now();
    const response = await ask(page, request(TOKENS));
    const t1 = Date.now();
    await sampler.stop();
    if (!response.BenchBatch) throw new Error(`BenchBatch: ${JSON.stringify(response)}`);
    const r = response.BenchBatch.round;
    const worker = sampler.busiest(t0, t1);
    const cpu_share = worker ? (sampler.at(worker, t1) - sampler.at(worker, t0)) / (t1 - t0) : null;
    rounds.push({ ...r, ...rates(r), cpu_share });
    console.log(
      `round ${i}: ${r.generated_tokens} tokens; sequential ${(r.sequential_ms / 1000).toFixed(1)} s, batched ` +
        `${(r.batched_ms / 1000).toFixed(1)} s: ${rounds.at(-1).speedup.toFixed(2)}x (decode ` +
        `${(r.sequential_decode_ms / r.batched_decode_ms).toFixed(2)}x); the worker ran ${(100 * cpu_share).toFixed(0)}% of the time`,
    );
  }
  const pick = (key) => median(rounds.map((r) => r[key]));
  const browser = {
    generated_tokens: pick("generated_tokens"),
    sequential_tokens_per_s: pick("sequential_tokens_per_s"),
    batched_tokens_per_s: pick("batched_tokens_per_s"),
    speedup: pick("speedup"),
    sequential_decode_tokens_per_s: pick("sequential_decode_tokens_per_s"),
    batched_decode_tokens_per_s: pick("batched_decode_tokens_per_s"),
    decode_speedup: median(rounds.map((r) => r.sequential_decode_ms / r.batched_decode_ms)),
    cpu_share: pick("cpu_share"),
  };
  if (session.foreign().length > 0) throw new Error(`requests left the origin: ${session.foreign().map((r) => r.url)}`);
  const cli = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "release/playground");
  const flags = ["bench", "--batch", String(BATCH), "--rounds", String(ROUNDS), "--threads", String(THREADS)];
  console.log(`native: ${cli} ${flags.join(" ")}`);
  const native = JSON.parse(execFileSync(cli, flags, { cwd: ROOT, encoding: "utf8" }));
  native.decode_speedup = native.batched_decode_tokens_per_s / native.sequential_decode_tokens_per_s;
  summary = { batch: BATCH, rounds: ROUNDS, threads: THREADS, browser, native };
} finally {
  await session.close();
}
console.log(JSON.stringify(summary));

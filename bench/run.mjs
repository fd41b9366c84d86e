// The browser benchmark (called by bench/browser after the release build): our engine and
// wllama in the same headless Chromium, cross-origin isolated, at 1 thread and at 2 (both
// engines at the same count), alternating A B A B, medians of the rounds.
//
// Two 127.0.0.1 servers serve the same files (dist/, bench/web/ as /bench/, wllama's esm/
// as /wllama/): origin A runs the real app, for its page-open-to-model-ready time; origin B
// runs both engines' bench pages, never visited by the app, so its service worker does not
// stand between them and the network. The last stdout line is the JSON summary.
import { mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "../tests/e2e/browser.mjs";
import { serve } from "../tests/e2e/static-server.mjs";
import { CpuSampler, cpuRates } from "./cpu.mjs";
import { cpuModel, writeSection } from "./report.mjs";
import { benchPrompt, chatBenchPrompt, defaultBuiltIn } from "./sources.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const TOKENS = 128;
const WARMUP_TOKENS = 8;
// Shares no first token with the measured prompt, so that our session cannot reuse any of
// its cache (wllama runs with cache_prompt: false).
const WARMUP_PROMPT = "Once upon a time, in a small village by the sea,";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const ROUNDS = Number(opt("rounds", 3));
const THREADS = [1, 2];
const WRITE = !args.includes("--no-write");
// --integer-activations: our engine decodes with its opt-in integer arithmetic (16-bit
// activations times Q4_0, Q4_1, Q5_0 and Q8_0 weights) (bench/web/ours.js switches it on, and the summary keeps its measured |Δlogit|).
const INTEGER = args.includes("--integer-activations");
if (!(ROUNDS >= 1)) throw new Error("--rounds must be at least 1");

const log = (...a) => console.log(...a);

// --model PATH: any GGUF file, served to both engines from the bench's own origin, with the
// plain BENCH_PROMPT (no template: both engines tokenize the same text, BOS as the file asks).
// Without it, the site's model (src/model_file.rs) with its chat template as text.
const MODEL_FILE = opt("model", null);
const builtIn = await defaultBuiltIn();
const MODEL_URL = MODEL_FILE ? `bench-models/${basename(MODEL_FILE)}` : builtIn.url;
const MODEL_SHA256 = MODEL_FILE ? await sha256(MODEL_FILE) : builtIn.sha256;
const PROMPT = MODEL_FILE ? await benchPrompt() : await chatBenchPrompt();

async function sha256(path) {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest("hex");
}

// One directory holding the site and the bench pages, by symlinks.
const site = await mkdtemp(join(tmpdir(), "playground-bench-"));
for (const entry of await readdir(join(ROOT, "dist"))) {
  if (entry !== "bench" && entry !== "wllama") await symlink(join(ROOT, "dist", entry), join(site, entry));
}
await symlink(join(ROOT, "bench/web"), join(site, "bench"));
await symlink(join(ROOT, "bench/node_modules/@wllama/wllama/esm"), join(site, "wllama"));
if (MODEL_FILE) {
  await mkdir(join(site, "bench-models"));
  await symlink(resolve(MODEL_FILE), join(site, MODEL_URL));
}
const app = await serve(site);
const benchOrigin = await serve(site);
const browser = await launch();
const { context } = browser;

// Everything must come from our two servers.
const offsite = [];
context.on("request", (r) => {
  const url = r.url();
  if (![app.url, benchOrigin.url].some((o) => url.startsWith(o + "/")) && !/^(data|blob):/.test(url)) offsite.push(url);
});

const query = `model=${encodeURIComponent(MODEL_URL)}&sha256=${MODEL_SHA256}`;

/** Opens the real app and waits until its model status says ready. */
async function appReady() {
  const page = await context.newPage();
  try {
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        const status = document.querySelector('[data-testid="model-status"]');
        if (status && status.dataset.state !== "loading") {
          window.__modelState = { state: status.dataset.state, at: performance.now() };
          observer.disconnect();
        }
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
    });
    await page.goto(app.url + "/");
    const handle = await page.waitForFunction(() => window.__modelState, null, { timeout: 300_000 });
    const { state, at } = await handle.jsonValue();
    const text = await page.locator('[data-testid="model-status"]').innerText();
    if (state !== "ready") throw new Error(`the app's model status is ${state}: ${text}`);
    return { ready_ms: at, from_cache: text.includes("from this browser's cache") };
  } finally {
    await page.close();
  }
}

/** Opens an engine's bench page on origin B at `threads` threads: model ready, a warm-up, then the measured run. */
async function enginePage(engine, threads) {
  const page = await context.newPage();
  try {
    page.on("pageerror", (e) => log(`  [${engine} page error] ${e.message}`));
    const integer = engine === "ours" && INTEGER ? "&integer=1" : "";
    await page.goto(`${benchOrigin.url}/bench/${engine}.html?${query}&threads=${threads}${integer}`);
    const ready = await page.evaluate(() => window.benchReady);
    // A short run first, in the same page: both engines' wasm is compiled in tiers, and
    // the figures are meant to be the engines' steady speed.
    await page.evaluate((a) => window.bench(a), { prompt: WARMUP_PROMPT, tokens: WARMUP_TOKENS });
    const sampler = new CpuSampler();
    await sampler.start();
    const run = await page.evaluate((a) => window.bench(a), { prompt: PROMPT, tokens: TOKENS });
    await sampler.stop();
    Object.assign(run, cpuRates(sampler, run));
    if (engine === "wllama") run.peak_wasm_bytes = await wllamaMemory(page);
    if (run.generated_tokens !== TOKENS) throw new Error(`${engine} generated ${run.generated_tokens} tokens, not ${TOKENS}`);
    // The engine's prefill time cannot exceed the time to the first token seen by the page.
    const prefillMs = (run.prompt_tokens / run.prefill_tps) * 1000;
    if (prefillMs > run.ttft_ms * 1.05 || prefillMs < run.ttft_ms * 0.5) {
      log(`  warning: ${engine}'s prefill (${prefillMs.toFixed(0)} ms) does not match its TTFT (${run.ttft_ms.toFixed(0)} ms)`);
    }
    return { ...run, page_ready_ms: ready.ready_ms, info: ready.info };
  } finally {
    await page.close();
  }
}

/** wllama's wasm memory, as recorded in its worker by bench/web/wllama.js's hook. */
async function wllamaMemory(page) {
  for (const worker of page.workers()) {
    const bytes = await worker
      .evaluate(() => globalThis.__benchWasmMemories?.reduce((sum, m) => sum + m.buffer.byteLength, 0) ?? null)
      .catch(() => null);
    if (bytes) return bytes;
  }
  return null;
}

const median = (xs) => {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

let summary;
try {
  log(`bench/browser: ${MODEL_FILE ?? MODEL_URL}, ${ROUNDS} rounds at ${THREADS.join(" and ")} threads; prompt ${PROMPT.length} characters (${MODEL_FILE ? "plain" : "chat-templated"} BENCH_PROMPT), ${TOKENS} greedy tokens`);
  log("warm-up: first visits (downloads, caches) and compilation");
  // The app loads its own built-in model: its ready time is measured for that model only.
  if (!MODEL_FILE) {
    const firstApp = await appReady();
    log(`  app: model ready ${(firstApp.ready_ms / 1000).toFixed(1)} s after page open (from cache: ${firstApp.from_cache})`);
  }
  for (const engine of ["ours", "wllama"]) {
    const r = await enginePage(engine, 1);
    log(`  ${engine}: ready ${(r.page_ready_ms / 1000).toFixed(1)} s, ${r.prompt_tokens} prompt tokens, prefill ${r.prefill_tps.toFixed(1)} tok/s, decode ${r.decode_tps.toFixed(1)} tok/s`);
  }

  // rounds[i][threads] = { ours, wllama }
  const rounds = [];
  for (let i = 1; i <= ROUNDS; i++) {
    const round = {};
    for (const threads of THREADS) {
      const a = MODEL_FILE ? null : await appReady();
      if (a && !a.from_cache) throw new Error("the app did not load the model from its cache");
      const page = await enginePage("ours", threads);
      const ours = { ...page, ready_ms: a ? a.ready_ms : page.page_ready_ms };
      const wllama = await enginePage("wllama", threads);
      wllama.ready_ms = wllama.page_ready_ms;
      round[threads] = { ours, wllama };
      for (const [name, r] of Object.entries({ ours, wllama })) {
        log(
          `round ${i}, ${threads} thread${threads > 1 ? "s" : ""}, ${name.padEnd(6)}: prefill ${r.prefill_tps.toFixed(1)} tok/s, decode ${r.decode_tps.toFixed(1)} tok/s ` +
            `(page clock ${r.wall_decode_tps.toFixed(1)}), TTFT ${r.ttft_ms.toFixed(0)} ms, ready ${r.ready_ms.toFixed(0)} ms, ` +
            `wasm ${r.peak_wasm_bytes ? (r.peak_wasm_bytes / 2 ** 20).toFixed(0) + " MiB" : "?"}`,
        );
      }
    }
    rounds.push(round);
  }

  const mb = (b) => (b == null ? null : b / 1e6);
  const pick = (engine, threads) => {
    const rs = rounds.map((r) => r[threads][engine]);
    const m = (f) => median(rs.map(f));
    return {
      prefill_tps: m((r) => r.prefill_tps),
      decode_tps: m((r) => r.decode_tps),
      ttft_ms: m((r) => r.ttft_ms),
      ready_ms: m((r) => r.ready_ms),
      peak_wasm_mb: m((r) => mb(r.peak_wasm_bytes)),
      // Not in the JSON: for the table.
      extra: {
        prompt_tokens: m((r) => r.prompt_tokens),
        wall_decode_tps: m((r) => r.wall_decode_tps),
        cpu_prefill_tps: m((r) => r.cpu_prefill_tps),
        cpu_decode_tps: m((r) => r.cpu_decode_tps),
        cpu_share: m((r) => r.cpu_share),
        text: rs.at(-1).text,
      },
    };
  };
  // Each pair ran back to back, so their ratio is the least disturbed by load that changes
  // over the run: ratios are medians of the per-round ratios.
  const ratioOf = (f) => ({ prefill: median(rounds.map((r) => f(r, "prefill_tps"))), decode: median(rounds.map((r) => f(r, "decode_tps"))) });
  const byThreads = Object.fromEntries(
    THREADS.map((t) => [t, { ours: pick("ours", t), wllama: pick("wllama", t), ratio: ratioOf((r, k) => r[t].ours[k] / r[t].wllama[k]) }]),
  );
  const scaling = ratioOf((r, k) => r[2].ours[k] / r[1].ours[k]);
  const fileMb = statSync(MODEL_FILE ?? join(ROOT, "dist", MODEL_URL)).size / 1e6;
  const texts = THREADS.flatMap((t) => [byThreads[t].ours.extra.text, byThreads[t].wllama.extra.text]);
  const oursSame = byThreads[1].ours.extra.text === byThreads[2].ours.extra.text;
  if (!oursSame) throw new Error("our engine's greedy text differs between 1 and 2 threads (an engine bug)");
  const same = commonPrefix(texts[0], texts[1]);

  const table = markdown({ byThreads, scaling, fileMb, same, rounds: rounds.length, cpu: await cpuModel() });
  log("");
  log(table);
  if (offsite.length) throw new Error(`requests left 127.0.0.1: ${[...new Set(offsite)].join(", ")}`);
  if (WRITE) await writeSection(table);

  const strip = ({ extra, ...figures }) => round(figures);
  summary = {
    threads: Object.fromEntries(
      THREADS.map((t) => [t, { ours: strip(byThreads[t].ours), wllama: strip(byThreads[t].wllama), ratio: round(byThreads[t].ratio) }]),
    ),
    scaling: round(scaling),
    file_mb: round({ v: fileMb }).v,
    prompt_tokens: byThreads[1].ours.extra.prompt_tokens,
    // How many leading characters of greedy text the two engines share.
    same_chars: same,
    // The page's own measurement of what the integer arithmetic changes (first round, 1 thread).
    integer_deviation: INTEGER ? rounds[0][1].ours.info.integer_deviation : null,
  };
} finally {
  await browser.close();
  await app.close();
  await benchOrigin.close();
  await rm(site, { recursive: true, force: true });
}
console.log(JSON.stringify(summary));

function round(o) {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v == null ? null : Math.round(v * 100) / 100]));
}

function commonPrefix(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function markdown({ byThreads, scaling, fileMb, same, rounds, cpu }) {
  const f = (v, d = 1) => (v == null ? "n/a" : v.toFixed(d));
  const row = (name, t, r) =>
    `| ${name} | ${t} | ${f(r.extra.prompt_tokens, 0)} | ${f(r.prefill_tps)} | ${f(r.decode_tps)} | ${f(r.extra.wall_decode_tps)} | ${f(r.ttft_ms, 0)} | ${f(r.ready_ms, 0)} | ${f(r.peak_wasm_mb, 0)} |`;
  const date = new Date().toISOString().slice(0, 10);
  const pass = (ok) => (ok ? "met" : "**not met**");
  const [one, two] = [byThreads[1], byThreads[2]];
  const ours = one.ours;
  const peak = Math.max(one.ours.peak_wasm_mb, two.ours.peak_wasm_mb);
  return [
    `## ${date}: browser, our engine and wllama at 1 and 2 threads in the same run (bench/browser)`,
    "",
    `${cpu}. Debian's Chromium, headless, the pages cross-origin isolated (COOP/COEP), both engines at the same`,
    `thread count. ${MODEL_FILE ? `${basename(MODEL_FILE)}; the plain` : "The chat-templated"} BENCH_PROMPT as text, then exactly ${TOKENS} greedy tokens (end-of-turn ignored).`,
    `${rounds} rounds, each running, at 1 thread and then at 2, our engine then wllama, each in a fresh page after an`,
    `${WARMUP_TOKENS}-token warm-up on another prompt; medians. Ours runs through the app's own multi-threaded worker and`,
    "protocol (`SetThreads`); wllama 3.13.0 (npm) with `n_threads` 1 or 2 (its multi-threaded build at 2),",
    "`n_gpu_layers: 0`, `cache_prompt: false`, temperature 0 and top-k 1, `ignore_eos`, its default context (1024)",
    "and batch; both load the same GGUF from our 127.0.0.1 server.",
    "",
    "- prefill, decode: each engine's own timings, as our lessons show them (the worker's `Done`: forward passes and",
    "  the whole sampler) and as llama.cpp reports them (`timings`). Decode, page clock: tokens after the first over",
    "  the time they took to reach the page, posting and yielding included.",
    "- TTFT: from posting the request to the first token reaching the page.",
    "- ready from cache: page open to model ready, the model already cached. Ours: the real app (its model status),",
    "  which re-checks the SHA-256; wllama: its page, from its OPFS cache, no check.",
    "- peak WASM: ours, the worker's `memory.size` after the run (it never shrinks); wllama, the size of its",
    "  worker's wasm memory after the run (recorded by a hook bench/web/wllama.js adds to that worker).",
    "",
    "| engine | threads | prompt tokens | prefill tok/s | decode tok/s | decode, page clock | TTFT ms | ready from cache ms | peak WASM MB |",
    "|---|---|---|---|---|---|---|---|---|",
    row("ours (Rust, wasm simd128)", 1, one.ours),
    row("wllama 3.13.0 (llama.cpp)", 1, one.wllama),
    row("ours (Rust, wasm simd128)", 2, two.ours),
    row("wllama 3.13.0 (llama.cpp)", 2, two.wllama),
    "",
    "**Ours / wllama** (medians of per-round ratios):",
    `- 1 thread: prefill **${f(one.ratio.prefill, 2)}×**, decode **${f(one.ratio.decode, 2)}×**`,
    `- 2 threads: prefill **${f(two.ratio.prefill, 2)}×**, decode **${f(two.ratio.decode, 2)}×**`,
    `- ours, 2 threads over 1: prefill **${f(scaling.prefill, 2)}×**, decode **${f(scaling.decode, 2)}×**`,
    "",
    "At 1 thread, per second of CPU time of each engine's worker thread (/proc, bench/cpu.mjs; on a shared machine a",
    `thread often waits for a core, which wall-clock rates include): ours prefill ${f(ours.extra.cpu_prefill_tps)}, decode`,
    `${f(ours.extra.cpu_decode_tps)} tok/CPU-s (on a core ${f(100 * ours.extra.cpu_share, 0)}% of the time); wllama ${f(one.wllama.extra.cpu_prefill_tps)} and`,
    `${f(one.wllama.extra.cpu_decode_tps)} (${f(100 * one.wllama.extra.cpu_share, 0)}%).`,
    "",
    "Goals (issue 15, set for the built-in SmolLM2 Q4_1; bench/models.mjs checks issue 21's on every type):",
    `- 2 threads, ours / wllama ≥ 2.5×: prefill ${pass(two.ratio.prefill >= 2.5)}, decode ${pass(two.ratio.decode >= 2.5)}`,
    `- 1 thread, ours / wllama: prefill ≥ 4× ${pass(one.ratio.prefill >= 4)}, decode ≥ 3× ${pass(one.ratio.decode >= 3)}`,
    `- scaling from 1 to 2 threads: prefill ≥ 1.7× ${pass(scaling.prefill >= 1.7)}, decode ≥ 1.5× ${pass(scaling.decode >= 1.5)}`,
    `- peak WASM < 2 × the ${f(fileMb, 1)} MB file = ${f(2 * fileMb, 0)} MB: ${pass(peak < 2 * fileMb)}; ready from cache < 2000 ms: ${pass(ours.ready_ms < 2000)}`,
    "",
    `Our greedy text is the same at 1 and 2 threads (checked). Ours and wllama's agree on their first ${same} characters,`,
    "then part, as near-tied tokens can: llama.cpp multiplies quantised weights with activations rounded to 8 bits",
    `(Q8_0, Q8_1 or Q8_K blocks), ours ${INTEGER ? "here rounds them to 16 bits (its opt-in integer arithmetic)" : "keeps activations in f32"}.`,
  ].join("\n");
}

/** Replaces the section with the same heading in docs/BENCHMARKS.md, or adds it. */

// Our engine from several builds of the site, in the same headless Chromium, alternating
// builds round by round (A B C A B C …): how build settings (wasm-opt level, codegen) were
// chosen. Each build is served on its own 127.0.0.1 origin with bench/web at /bench.
//   node bench/compare-builds.mjs [--rounds N] DIST_A DIST_B [DIST_C …]
// Prints each build's medians and its ratio to the first build; the last line is JSON.
import { mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "../tests/e2e/browser.mjs";
import { serve } from "../tests/e2e/static-server.mjs";
import { CpuSampler, cpuRates } from "./cpu.mjs";
import { chatBenchPrompt, defaultBuiltIn } from "./sources.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
let rounds = 3;
const dists = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--rounds") rounds = Number(args[++i]);
  else dists.push(resolve(args[i]));
}
if (dists.length < 2 || !(rounds >= 1)) {
  console.error("usage: node bench/compare-builds.mjs [--rounds N] DIST_A DIST_B [DIST_C …]");
  process.exit(2);
}

const PROMPT = await chatBenchPrompt();
const builtIn = await defaultBuiltIn();
const query = `model=${encodeURIComponent(builtIn.url)}&sha256=${builtIn.sha256}`;

const sites = [];
const servers = [];
for (const dist of dists) {
  const site = await mkdtemp(join(tmpdir(), "playground-compare-"));
  for (const entry of await readdir(dist)) await symlink(join(dist, entry), join(site, entry));
  await symlink(join(ROOT, "bench/web"), join(site, "bench"));
  sites.push(site);
  servers.push(await serve(site));
}
const browser = await launch();

async function run(server) {
  const page = await browser.context.newPage();
  try {
    await page.goto(`${server.url}/bench/ours.html?${query}`);
    const ready = await page.evaluate(() => window.benchReady);
    await page.evaluate((a) => window.bench(a), { prompt: "Once upon a time, in a small village by the sea,", tokens: 8 });
    const sampler = new CpuSampler();
    await sampler.start();
    const r = await page.evaluate((a) => window.bench(a), { prompt: PROMPT, tokens: 128 });
    await sampler.stop();
    return { ...r, ...cpuRates(sampler, r), load_ms: ready.info.load_ms };
  } finally {
    await page.close();
  }
}

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const results = dists.map(() => []);
try {
  for (const server of servers) await run(server); // first visits: download and cache
  for (let r = 1; r <= rounds; r++) {
    for (const [i, server] of servers.entries()) {
      const x = await run(server);
      results[i].push(x);
      console.log(
        `round ${r} ${dists[i]}: prefill ${x.prefill_tps.toFixed(1)}, decode ${x.decode_tps.toFixed(1)} tok/s (page clock ${x.wall_decode_tps.toFixed(1)}); ` +
          `per CPU-second ${x.cpu_prefill_tps.toFixed(1)}, ${x.cpu_decode_tps.toFixed(1)} (ran ${(100 * x.cpu_share).toFixed(0)}% of the time); load ${x.load_ms.toFixed(0)} ms`,
      );
    }
  }
} finally {
  await browser.close();
  for (const s of servers) await s.close();
  for (const s of sites) await rm(s, { recursive: true, force: true });
}
const summary = dists.map((dist, i) => {
  const m = (f) => median(results[i].map(f));
  // Per round, against the first build's run of the same round.
  const ratio = (f) => median(results[i].map((x, r) => f(x) / f(results[0][r])));
  return {
    dist,
    prefill_tps: m((x) => x.prefill_tps),
    decode_tps: m((x) => x.decode_tps),
    load_ms: m((x) => x.load_ms),
    prefill_ratio: ratio((x) => x.prefill_tps),
    decode_ratio: ratio((x) => x.decode_tps),
    page_decode_tps: m((x) => x.wall_decode_tps),
    page_decode_ratio: ratio((x) => x.wall_decode_tps),
    cpu_prefill_tps: m((x) => x.cpu_prefill_tps),
    cpu_decode_tps: m((x) => x.cpu_decode_tps),
    cpu_prefill_ratio: ratio((x) => x.cpu_prefill_tps),
    cpu_decode_ratio: ratio((x) => x.cpu_decode_tps),
  };
});
for (const s of summary) {
  console.log(
    `${s.dist}: prefill ${s.prefill_tps.toFixed(1)} (×${s.prefill_ratio.toFixed(2)}), decode ${s.decode_tps.toFixed(1)} (×${s.decode_ratio.toFixed(2)}) tok/s, ` +
      `page clock ${s.page_decode_tps.toFixed(1)} (×${s.page_decode_ratio.toFixed(2)}); ` +
      `per CPU-second prefill ${s.cpu_prefill_tps.toFixed(1)} (×${s.cpu_prefill_ratio.toFixed(2)}), decode ${s.cpu_decode_tps.toFixed(1)} (×${s.cpu_decode_ratio.toFixed(2)}); load ${s.load_ms.toFixed(0)} ms`,
  );
}
console.log(JSON.stringify(summary));

// The browser benchmark over several model files, one table: for each file, bench/run.mjs
// (our engine and wllama in the same headless Chromium, the same file, prompt and thread
// count, 1 thread then 2, alternating, medians of per-round ratios), one after the other.
// Run after `bench/browser` has built the site and installed wllama:
//   node bench/models.mjs [--rounds N] [--no-write] [--integer-activations] [FILE.gguf …]
// Default files: the built-in SmolLM2 (Q4_1), its requantised copies from bench/make-copies.sh
// (Q4_0, Q8_0, Q4_K_M) and the second built-in, Gemma 3 270M (Q4_K_M).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuModel, writeSection } from "./report.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const rounds = args.includes("--rounds") ? args[args.indexOf("--rounds") + 1] : "3";
const write = !args.includes("--no-write");
// Our engine with its opt-in integer arithmetic (bench/run.mjs).
const integer = args.includes("--integer-activations");
const named = args.filter((a, i) => a.endsWith(".gguf") && args[i - 1] !== "--rounds");
const SMOLLM2 = (type) => (type === "Q4_1" ? "public/models" : "bench/models") + `/SmolLM2-135M-Instruct.${type}.gguf`;
const files = named.length
  ? named
  : [...["Q4_0", "Q4_1", "Q8_0", "Q4_K_M"].map(SMOLLM2), "public/models/gemma-3-270m.Q4_K_M.gguf"].map((f) => join(ROOT, f));
for (const f of files) {
  if (!existsSync(f)) throw new Error(`${f} is missing: run scripts/fetch-model.sh and bench/make-copies.sh`);
}
// The goals of issue 21: SmolLM2's copies at least 2.5× wllama, Gemma no slower.
const goal = (file) => (/gemma/i.test(basename(file)) ? 1 : 2.5);

/** One file's run: bench/run.mjs's last stdout line, its JSON summary. */
function bench(file) {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [join(ROOT, "bench/run.mjs"), "--model", file, "--rounds", rounds, "--no-write", ...(integer ? ["--integer-activations"] : [])], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on("close", (code) => {
      if (code !== 0) return fail(new Error(`bench/run.mjs --model ${file} failed (exit ${code})`));
      ok(JSON.parse(out.trim().split("\n").at(-1)));
    });
  });
}

const started = new Date();
const results = [];
for (const file of files) results.push({ file, summary: await bench(file) });

const f = (v, d = 1) => (v == null ? "n/a" : v.toFixed(d));
const lines = [
  `## ${started.toISOString().slice(0, 10)}: browser, our engine${integer ? " (opt-in integer arithmetic)" : ""} and wllama on each tensor type and on Gemma 3 (bench/models.mjs${integer ? " --integer-activations" : ""})`,
  "",
  `${await cpuModel()}. One run, started ${started.toISOString().slice(11, 16)} UTC, files one after the other; for each,`,
  `bench/run.mjs: ${rounds} rounds, each at 1 thread then 2, our engine then wllama 3.13.0 in fresh cross-origin-isolated`,
  "pages of Debian's headless Chromium, the same GGUF file and the plain BENCH_PROMPT (no chat template), then exactly",
  "128 greedy tokens; rates are medians, ratios the medians of per-round ratios. Peak memory: each engine's wasm memory",
  "after the run. SmolLM2's other types are requantised from the built-in Q4_1 file's weights (bench/make-copies.sh).",
  "",
  "| file | MB | threads | prompt tokens | ours prefill tok/s | wllama prefill tok/s | ours decode tok/s | wllama decode tok/s | prefill × | decode × | ours peak MB | wllama peak MB | goal |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
];
const missed = [];
for (const { file, summary } of results) {
  for (const t of ["1", "2"]) {
    const { ours, wllama, ratio } = summary.threads[t];
    const need = goal(file);
    const met = ratio.prefill >= need && ratio.decode >= need;
    if (!met) missed.push(`${basename(file)} at ${t} thread${t === "1" ? "" : "s"}`);
    lines.push(
      `| ${basename(file)} | ${f(summary.file_mb)} | ${t} | ${f(summary.prompt_tokens, 0)} | ${f(ours.prefill_tps)} | ${f(wllama.prefill_tps)} | ` +
        `${f(ours.decode_tps)} | ${f(wllama.decode_tps)} | **${f(ratio.prefill, 2)}** | **${f(ratio.decode, 2)}** | ` +
        `${f(ours.peak_wasm_mb, 0)} | ${f(wllama.peak_wasm_mb, 0)} | ≥ ${need}×: ${met ? "met" : "**not met**"} |`,
    );
  }
}
for (const { file, summary } of integer ? results : []) {
  const d = summary.integer_deviation;
  lines.push(
    "",
    `${basename(file)}, the page's measurement of the integer arithmetic (${d.steps} decode steps, exact and integer from the same cache): ` +
      `mean |Δlogit| ${d.mean_abs.toExponential(2)}, max ${d.max_abs.toExponential(2)}, greedy token the same at ${d.same_greedy} of ${d.steps}; ` +
      `the integer arithmetic covers ${(d.integer_share * 100).toFixed(1)} % of a step's weights.`,
  );
}
lines.push(
  "",
  missed.length ? `Goals not met: ${missed.join("; ")}.` : "Every goal was met.",
  "Goals (issue 21): at least 2.5× wllama's prefill and decode on SmolLM2's Q4_0, Q4_1, Q8_0 and Q4_K_M copies, at 1 and",
  "at 2 threads, and no slower than wllama on Gemma 3 270M.",
);
const table = lines.join("\n");
console.log("\n" + table);
if (write) await writeSection(table);

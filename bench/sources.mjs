// What the benchmarks read from the project's Rust sources, so that they measure what the
// site runs: the benchmark prompt as the site's chat template writes it, and the default
// built-in model (src/model_file.rs).
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A Rust string constant, with `\` line continuations and escapes resolved. */
export async function rustString(file, name) {
  const source = await readFile(join(ROOT, file), "utf8");
  const m = source.match(new RegExp(`const ${name}: &str =\\s*"((?:[^"\\\\]|\\\\[\\s\\S])*)"`));
  if (!m) throw new Error(`${name} not found in ${file}`);
  return m[1].replace(/\\\n\s*/g, "").replace(/\\(["\\n])/g, (_, c) => (c === "n" ? "\n" : c));
}

/** BENCH_PROMPT (crates/cli/src/bench.rs) as it is written, without a template. */
export const benchPrompt = () => rustString("crates/cli/src/bench.rs", "BENCH_PROMPT");

/** BENCH_PROMPT through SmolLM2's ChatML template, as text, with its default system turn. */
export async function chatBenchPrompt() {
  const system = await rustString("crates/engine/src/chat.rs", "DEFAULT_SYSTEM_PROMPT");
  return `<|im_start|>system\n${system}<|im_end|>\n<|im_start|>user\n${await benchPrompt()}<|im_end|>\n<|im_start|>assistant\n`;
}

/** The model the site loads by default (the first of src/model_file.rs's BUILT_INS): where it
 * serves it, and its SHA-256. */
export async function defaultBuiltIn() {
  const source = await readFile(join(ROOT, "src/model_file.rs"), "utf8");
  const list = source.slice(source.indexOf("pub const BUILT_INS"));
  const first = list.match(/BuiltIn \{([^}]*)\}/);
  if (!first) throw new Error("BUILT_INS not found in src/model_file.rs");
  const field = (name) => {
    const m = first[1].match(new RegExp(`\\b${name}: "([^"]*)"`));
    if (!m) throw new Error(`the first built-in model in src/model_file.rs has no ${name}`);
    return m[1];
  };
  return { url: field("url"), sha256: field("sha256") };
}

// What every benchmark report shares: the CPU it ran on (ratios depend on it) and how a
// dated section enters docs/BENCHMARKS.md.
import { readFile, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The CPU's model name (/proc/cpuinfo) and core count. */
export async function cpuModel() {
  const info = await readFile("/proc/cpuinfo", "utf8").catch(() => "");
  return `${info.match(/^model name\s*:\s*(.+)$/m)?.[1] ?? "unknown CPU"}, ${cpus().length} cores`;
}

/** Puts `table` (a section whose first line is its heading) into docs/BENCHMARKS.md: in
 * place of a section with the same heading, else newest first after the introduction. */
export async function writeSection(table) {
  const path = join(ROOT, "docs/BENCHMARKS.md");
  const doc = await readFile(path, "utf8");
  const heading = table.split("\n")[0];
  const start = doc.indexOf(heading + "\n");
  let out;
  if (start >= 0) {
    const next = doc.indexOf("\n## ", start + heading.length);
    out = doc.slice(0, start) + table + "\n" + (next >= 0 ? doc.slice(next) : "");
  } else {
    const first = doc.indexOf("\n## ");
    out = first >= 0 ? doc.slice(0, first + 1) + table + "\n\n" + doc.slice(first + 1) : doc + "\n" + table + "\n";
  }
  await writeFile(path, out);
  console.log("wrote the section to docs/BENCHMARKS.md");
}

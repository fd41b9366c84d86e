// The model picker (under the model status): Gemma 3 270M picked as the second built-in
// (downloaded only then, a base model run on raw text), SmolLM2 opened as a file from the
// device (its facts shown before it loads, then it runs; or dropped on the picker), files that cannot be used refused
// with a sentence while the loaded model stays usable, and the last built-in model loaded
// again after a reload. Greedy text is compared with the native CLI on the same file.
//
// The CLI comparison needs the native binary: `cargo build --release -p playground-cli`
// (scripts/test.sh builds it with the native tests); it is looked for in $CARGO_TARGET_DIR.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, before, test } from "node:test";
import { engineWorker, MINUTE, modelLoaded, newConversation, openSession, playgroundGenerate, playgroundGreedy, READY, ROOT, stagesPanelIdle } from "./session.mjs";

const CLI = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "release/playground");
const SMOLLM2 = join(ROOT, "public/models/SmolLM2-135M-Instruct.Q4_1.gguf");
const GEMMA = join(ROOT, "public/models/gemma-3-270m.Q4_K_M.gguf");
const PROMPT = "The capital of France is";
// The playground's defaults with temperature 0, as `playgroundGreedy` leaves them.
const GREEDY = ["--temperature", "0", "--top-k", "40", "--top-p", "0.9", "--min-p", "0", "--repeat-penalty", "1", "--seed", "42"];

let session, page;

before(async () => {
  session = await openSession();
  page = session.page;
});

after(async () => {
  if (session) assert.deepEqual(session.foreign(), [], "nothing left the origin");
  await session?.close();
});

const sel = (testid) => `[data-testid=${testid}]`;
const text = (testid) => page.textContent(sel(testid));
const fact = (name) => page.textContent(`${sel("gguf-info")} [data-fact="${name}"]`);

const loaded = (name, timeout) => modelLoaded(page, name, timeout);

/** The native CLI's greedy raw continuation of PROMPT on `model`. */
function native(model, tokens) {
  assert.ok(existsSync(CLI), `${CLI} is missing: build it with cargo build --release -p playground-cli`);
  const args = ["--model", model, "generate", "--raw", "--prompt", PROMPT, ...GREEDY, "--max-tokens", String(tokens)];
  return JSON.parse(execFileSync(CLI, args, { cwd: ROOT, encoding: "utf8" }));
}

/** Raw text in the playground, greedy: a new conversation. */
async function continueRaw(tokens) {
  await newConversation(page);
  await page.check(sel("mode-raw"));
  return playgroundGenerate(page, PROMPT, tokens);
}

const gemmaRequests = () => session.requests.filter((r) => r.url.endsWith("/models/gemma-3-270m.Q4_K_M.gguf"));

test("Gemma 3 270M, picked, is downloaded then and only then, and continues raw text as a base model, as the CLI does", { timeout: 6 * MINUTE }, async () => {
  await page.goto(session.url("/playground"));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  assert.equal(await text("model-name"), "SmolLM2-135M-Instruct", "the default built-in");
  assert.equal(await page.$(sel("base-model-notice")), null, "SmolLM2 is an instruct model");
  assert.equal(await page.getAttribute(sel("model-ready"), "data-vocab"), "49152");
  assert.equal(gemmaRequests().length, 0, "Gemma is not fetched before it is picked (nor precached by the service worker)");

  await page.click(sel("pick-gemma3-270m"));
  await loaded("Gemma 3 270M");
  assert.ok(gemmaRequests().length > 0, "picking it downloaded it");
  assert.equal(await page.getAttribute(sel("model-ready"), "data-vocab"), "262144", "Gemma's vocabulary, from the loaded file");
  assert.match(await text("model-status"), /gemma3, 18 layers/);
  assert.match(await text("base-model-notice"), /Gemma 3 270M is a base model: it has no chat template/);
  assert.equal(await page.getAttribute(sel("pick-gemma3-270m"), "aria-pressed"), "true");

  // The playground switched to raw text, and a chat cannot be chosen for a base model.
  assert.ok(await page.isChecked(sel("mode-raw")));
  assert.ok(await page.isDisabled(sel("mode-chat")));
  await playgroundGreedy(page);
  const ours = await continueRaw(8);
  assert.equal(ours.tokens, 8);
  assert.equal(ours.output, native(GEMMA, 8).text, "the text is Gemma's: the CLI's greedy continuation on the Gemma file");
  assert.notEqual(ours.output, native(SMOLLM2, 8).text, "and not SmolLM2's");
});

test("Gemma 3's local layers cache only their window: Lesson 2's formula in two parts, from the run", { timeout: 4 * MINUTE }, async () => {
  // Gemma is the last built-in model picked: it loads again, from the browser's cache.
  await page.goto(session.url("/learn/stages"));
  await loaded("Gemma 3 270M");
  // Longer than a local layer's 512-token window and its margin, so the cache must drop some.
  await page.fill(sel("cache-prompt"), "The river starts in the mountains and runs to the sea. ".repeat(70));
  await page.fill(sel("cache-max-tokens"), "2");
  await page.click(sel("cache-run"));
  await stagesPanelIdle(page, "cache", 3 * MINUTE);
  const formula = await text("kv-formula");
  const m = formula.match(/^2 × 3 global layers × 1 KV heads × 256 head dims × ([\d,]+) positions × 4 bytes \+ 2 × 15 local layers × 1 KV heads × 256 head dims × ([\d,]+) positions × 4 bytes = ([\d,]+) bytes/);
  assert.ok(m, formula);
  const [all, held, total] = m.slice(1).map((n) => Number(n.replaceAll(",", "")));
  assert.ok(all > 640, `${all} positions: past the window and its margin`);
  assert.ok(held >= 576 && held <= 639, `a local layer holds ${held} positions: its window and a margin of 64 to 127`);
  assert.equal(total, Number(await page.getAttribute(sel("kv-bytes"), "data-value")), "the formula adds up to the measured size");
  assert.equal(total, 2 * 256 * 4 * (3 * all + 15 * held));
  assert.match(await text("kv-window-note"), /attend to the last 512 positions only/);
  // The tests after this one work in the playground.
  await page.click('nav >> text="Playground"');
  await loaded("Gemma 3 270M");
});

test("a GGUF file from the device: its facts before loading, then it loads where it lies and runs", { timeout: 4 * MINUTE }, async () => {
  await page.setInputFiles(sel("open-gguf"), SMOLLM2);
  await page.waitForSelector(sel("gguf-info"), { timeout: MINUTE });
  assert.equal(await fact("Architecture"), "llama");
  assert.equal(await fact("Layers"), "30");
  assert.equal(await fact("Vocabulary"), "49152");
  assert.equal(await fact("Context"), "8192 tokens");
  assert.equal(await fact("Attention heads"), "9 (3 key/value)");
  assert.equal(await fact("File size"), "98.4 MB");
  assert.match(await fact("Tensor types"), /^Q4_1 × \d+, F32 × \d+/);
  assert.equal(await fact("Chat template"), "yes");
  assert.match(await text("gguf-fits"), /^It fits: about \d+\.\d MB/);
  // Nothing was loaded yet: the worker read the header only.
  const kinds = (await session.protocol()).filter(([dir]) => dir === "out").map(([, , kind]) => kind);
  assert.ok(kinds.includes("InspectFile") && !kinds.includes("LoadFile"));
  assert.equal(await text("model-name"), "Gemma 3 270M");

  await page.click(sel("load-gguf"));
  await loaded("SmolLM2-135M-Instruct.Q4_1.gguf", 2 * MINUTE);
  assert.match(await text("model-status"), /read from this device/);
  assert.equal(await page.$(sel("base-model-notice")), null);
  assert.equal(await page.getAttribute(sel("model-ready"), "data-vocab"), "49152");
  assert.equal(session.requests.filter((r) => r.method !== "GET").length, 0, "nothing was uploaded");
  const ours = await continueRaw(8);
  assert.equal(ours.output, native(SMOLLM2, 8).text, "SmolLM2's greedy continuation, as the CLI's on the same file");
});

test("a truncated or garbage file is refused with a sentence, and the loaded model stays usable", { timeout: 3 * MINUTE }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "models-test-"));
  const truncated = join(dir, "truncated.gguf");
  await writeFile(truncated, readFileSync(SMOLLM2).subarray(0, 3_000_000));
  const garbage = join(dir, "garbage.gguf");
  await writeFile(garbage, Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 7919) % 251)));

  for (const file of [truncated, garbage]) {
    await page.setInputFiles(sel("open-gguf"), file);
    const name = basename(file);
    await page.waitForFunction((name) => document.querySelector("[data-testid=gguf-refused]")?.textContent.startsWith(name), name, { timeout: MINUTE });
    const sentence = await text("gguf-refused");
    assert.match(sentence, /cannot be loaded\. This file cannot be used: /);
    assert.match(sentence, /\.$/, `a sentence: ${sentence}`);
    assert.equal(await page.$(sel("load-gguf")), null, "no way to load it");
  }
  assert.equal(await text("model-name"), "SmolLM2-135M-Instruct.Q4_1.gguf", "the loaded model is still the one in use");
  const ours = await continueRaw(4);
  assert.equal(ours.tokens, 4, "and it still generates");
});

test("a GGUF file dropped on the picker is read as one chosen: its facts, before anything loads", { timeout: 2 * MINUTE }, async () => {
  const sent = (await session.protocol()).length;
  // A drag from the desktop, as the browser delivers it: a DataTransfer holding the file.
  await page.evaluate(async () => {
    const blob = await (await fetch("/models/SmolLM2-135M-Instruct.Q4_1.gguf")).blob();
    const data = new DataTransfer();
    data.items.add(new File([blob], "dropped.gguf"));
    const picker = document.querySelector("[data-testid=model-picker]");
    for (const type of ["dragover", "drop"]) {
      picker.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    }
  });
  await page.waitForSelector(`${sel("gguf-info")}[aria-label="What dropped.gguf holds"]`, { timeout: MINUTE });
  assert.equal(await fact("Layers"), "30");
  assert.equal(await fact("Vocabulary"), "49152");
  assert.match(await text("gguf-fits"), /^It fits: about \d+\.\d MB/);
  const kinds = (await session.protocol()).slice(sent).filter(([dir]) => dir === "out").map(([, , kind]) => kind);
  assert.ok(kinds.includes("InspectFile") && !kinds.includes("LoadFile"), JSON.stringify(kinds));
  assert.equal(await text("model-name"), "SmolLM2-135M-Instruct.Q4_1.gguf", "nothing replaced the loaded model");
});

test("after a reload the last built-in model loads, and the page says the device file must be opened again", { timeout: 3 * MINUTE }, async () => {
  await page.reload();
  await loaded("Gemma 3 270M");
  assert.match(await text("reopen-file"), /SmolLM2-135M-Instruct\.Q4_1\.gguf, opened from this device/);
  assert.match(await text("model-status"), /from this browser's cache/);

  // Picking a built-in model replaces the notice, and it is the one remembered.
  await page.click(sel("pick-smollm2"));
  await loaded("SmolLM2-135M-Instruct");
  assert.equal(await page.$(sel("reopen-file")), null);
  await page.reload();
  await loaded("SmolLM2-135M-Instruct");
  assert.equal(await page.$(sel("reopen-file")), null);
});

test("a long load can be cancelled: the engine restarts with the last built-in model", { timeout: 3 * MINUTE }, async () => {
  await page.setInputFiles(sel("open-gguf"), GEMMA);
  await page.waitForSelector(sel("load-gguf"), { timeout: MINUTE });
  await page.click(sel("load-gguf"));
  await page.click(sel("cancel-load"));
  await loaded("SmolLM2-135M-Instruct");
  assert.match(await text("engine-notice"), /Loading gemma-3-270m\.Q4_K_M\.gguf was cancelled/);
  const ours = await continueRaw(4);
  assert.equal(ours.tokens, 4);
});

test("a crash while a device file runs says the file must be opened again, and the built-in model takes over", { timeout: 4 * MINUTE }, async () => {
  await page.setInputFiles(sel("open-gguf"), SMOLLM2);
  await page.waitForSelector(sel("load-gguf"), { timeout: MINUTE });
  await page.click(sel("load-gguf"));
  await loaded("SmolLM2-135M-Instruct.Q4_1.gguf", 2 * MINUTE);
  const worker = engineWorker(page);
  assert.ok(worker, "the engine worker is running");
  await worker.evaluate(() => setTimeout(() => { throw new Error("simulated crash for the test"); }, 100));
  // The notice of an earlier test may still be shown: wait for this one.
  await page.waitForFunction(() => /stopped unexpectedly/.test(document.querySelector("[data-testid=engine-notice]")?.textContent ?? ""), null, { timeout: MINUTE });
  const notice = await text("engine-notice");
  assert.match(notice, /stopped unexpectedly .*simulated crash for the test.* while running SmolLM2-135M-Instruct\.Q4_1\.gguf, opened from this device/);
  assert.match(notice, /restarted with SmolLM2-135M-Instruct.*open SmolLM2-135M-Instruct\.Q4_1\.gguf again/);
  await loaded("SmolLM2-135M-Instruct");
  const ours = await continueRaw(4);
  assert.equal(ours.tokens, 4, "the built-in model generates");
});

/** SmolLM2's file with its chat template replaced, in place, by `template` padded with a
 * Jinja comment to the same length, so that nothing after it moves. */
function withTemplate(template) {
  const bytes = Buffer.from(readFileSync(SMOLLM2));
  const key = Buffer.from("tokenizer.chat_template");
  const at = bytes.indexOf(key);
  assert.ok(at > 0 && bytes.readUInt32LE(at + key.length) === 8, "the key, then its type: a string");
  const length = Number(bytes.readBigUInt64LE(at + key.length + 4));
  const start = at + key.length + 12;
  const padding = length - Buffer.byteLength(template) - 4;
  assert.ok(padding >= 0, `the template fits in ${length} bytes`);
  bytes.write(template + "{#" + " ".repeat(padding) + "#}", start, "utf8");
  return bytes;
}

test("a device file whose chat template hoards memory stops the engine with a sentence naming the template, and the built-in model takes over", { timeout: 4 * MINUTE }, async () => {
  // Six doublings of a megabyte: 64 MB held in a few steps, past the 32 MiB a template may hold.
  const hoard = "{% set a = 'x' * 1000000 %}{% set b = a ~ a %}{% set c = b ~ b %}{% set d = c ~ c %}" +
    "{% set e = d ~ d %}{% set f = e ~ e %}{% set g = f ~ f %}{{ g|length }}";
  const file = join(await mkdtemp(join(tmpdir(), "models-test-")), "hoard.gguf");
  await writeFile(file, withTemplate(hoard));
  await page.setInputFiles(sel("open-gguf"), file);
  await page.waitForSelector(sel("load-gguf"), { timeout: MINUTE });
  await page.click(sel("load-gguf"));
  await loaded("hoard.gguf", 2 * MINUTE);
  // Raw text does not use the template: the file runs.
  assert.equal((await continueRaw(2)).tokens, 2);
  await newConversation(page);
  await page.check(sel("mode-chat"));
  await page.fill(sel("prompt"), "Hi");
  await page.click(sel("generate"));
  // The notice of the crash test before may still be shown: wait for this file's.
  await page.waitForFunction(() => /hoard\.gguf, opened from this device/.test(document.querySelector("[data-testid=engine-notice]")?.textContent ?? ""), null, { timeout: MINUTE });
  const notice = await text("engine-notice");
  assert.match(notice, /stopped unexpectedly \(the chat template needed more than 32 MiB of memory, the most it may hold \(/);
  assert.match(notice, /while running hoard\.gguf, opened from this device/);
  await loaded("SmolLM2-135M-Instruct");
  assert.equal((await continueRaw(4)).tokens, 4, "the built-in model generates");
});

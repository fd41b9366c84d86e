// The playground (/playground) on the built site: its settings and presets in the link,
// a conversation whose turns are added by Send and reuse the KV cache, New conversation and
// its undo, each token's alternatives and a branch from one, export and import, and greedy
// output equal to the native CLI's. (Keeping the conversation across pages and reloads:
// saved.test.mjs.)
//
// The CLI comparison needs the native binary: `cargo build --release -p playground-cli`
// (scripts/test.sh builds it with the native tests); it is looked for in $CARGO_TARGET_DIR.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { assertAccessible, MINUTE, newConversation, openSession, playgroundGreedy, READY, ROOT, setInput } from "./session.mjs";

const CLI = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "release/playground");
const QUESTION = "What is the capital of France?";

let session, page;

before(async () => {
  session = await openSession();
  page = session.page;
});

after(() => session?.close());

const sel = (testid) => `[data-testid=${testid}]`;
const text = (testid) => page.textContent(sel(testid));
const value = (testid) => page.inputValue(sel(testid));

async function open(query = "") {
  await page.goto(session.url(`/playground${query}`));
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
}

/** The native CLI's JSON for `args`. */
function cli(args) {
  assert.ok(existsSync(CLI), `${CLI} is missing: build it with cargo build --release -p playground-cli`);
  return JSON.parse(execFileSync(CLI, args, { cwd: ROOT, encoding: "utf8" }));
}

/** Waits for the running request to end: Stop disabled, a summary for the last answer. */
async function idle() {
  await page.waitForSelector(`${sel("stop")}:disabled`, { timeout: 2 * MINUTE });
  await page.waitForSelector(sel("summary"), { timeout: MINUTE });
}

/** Sends `prompt` as the next turn, with at most `max` tokens; waits for the answer. */
async function send(prompt, max) {
  await page.fill(sel("prompt"), prompt);
  if (max) await page.fill(sel("max-tokens"), String(max));
  await page.click(sel("generate"));
  await idle();
}

/** `prompt` as the first message of a new conversation. */
async function generate(prompt, max) {
  await newConversation(page);
  await send(prompt, max);
}

/** Every turn's role and text, top to bottom. */
const turns = () => page.$$eval(sel("chat-turn"), (els) => els.map((e) => [e.dataset.role, e.querySelector(".said, .output")?.textContent ?? ""]));

/** The last answer's tokens: [{ id, prob, text }]. */
const tokens = () =>
  page.$$eval(`${sel("output")} ${sel("token")}`, (els) =>
    els.map((e) => ({ id: Number(e.dataset.tokenId), prob: Number(e.dataset.prob), text: e.textContent })),
  );

test("the link holds every setting and the first prompt; bad values are clamped with a notice each", { timeout: 3 * MINUTE }, async () => {
  await open(
    "?temperature=0.5&top_k=5&top_p=0.6&min_p=0.03&repeat_penalty=1.25&seed=3&prompt=Hi%20there&repeat_last_n=32&order=min-p,temperature,top-k,top-p&max_tokens=7&mode=chat&system=Be%20brief.&stop=xyz",
  );
  assert.deepEqual(
    [await value("temperature"), await value("top-k"), await value("top-p"), await value("min-p"), await value("repeat-penalty")],
    ["0.5", "5", "0.6", "0.03", "1.25"],
  );
  assert.deepEqual(
    [await value("repeat-last-n"), await value("stage-order"), await value("temperature-place"), await value("max-tokens"), await value("seed")],
    ["32", "min-p,top-k,top-p", "1", "7", "3"],
  );
  assert.deepEqual([await value("prompt"), await value("system-prompt"), await value("stop-sequences")], ["Hi there", "Be brief.", "xyz"]);
  assert.equal(await value("preset"), "custom");
  assert.equal(await page.$(sel("url-notice")), null, "a good link has no notice");

  // A change is written back to the address.
  // Temperature keeps its place (after the first cut) when the cuts are reordered.
  await page.selectOption(sel("stage-order"), "top-p,min-p,top-k");
  await page.waitForFunction(() => location.search.includes("order=top-p,temperature,min-p,top-k"));
  await page.selectOption(sel("temperature-place"), "3");
  await page.waitForFunction(() => location.search.includes("order=top-p,min-p,top-k,temperature"));
  assert.match(await page.evaluate(() => location.search), /system=Be%20brief\.&stop=xyz$/);
  // A link from before temperature could move lists the cuts only: temperature first.
  await open("?order=min-p,top-p,top-k");
  assert.deepEqual([await value("stage-order"), await value("temperature-place")], ["min-p,top-p,top-k", "0"]);
  assert.equal(await page.$(sel("url-notice")), null);

  await open("?top_k=500&order=top-k,top-k&max_tokens=0&mode=poem&repeat_last_n=x");
  const notices = await page.$$eval(`${sel("url-notice")} li`, (els) => els.map((e) => e.textContent));
  assert.equal(notices.length, 5, notices.join("\n"));
  assert.match(notices.join("\n"), /top_k 500 is outside 0–100: using 100/);
  assert.match(notices.join("\n"), /order “top-k,top-k” is not temperature, top-k, top-p and min-p, each once/);
  assert.deepEqual([await value("top-k"), await value("max-tokens"), await value("stage-order"), await value("temperature-place")], ["100", "1", "top-k,top-p,min-p", "0"]);
});

test("presets set visible values; any change makes the settings custom", { timeout: MINUTE }, async () => {
  await open();
  assert.equal(await value("preset"), "balanced", "the playground starts balanced");
  await page.selectOption(sel("preset"), "precise");
  assert.deepEqual(
    [await value("temperature"), await value("top-k"), await value("top-p"), await value("min-p"), await value("repeat-penalty")],
    ["0.3", "20", "0.8", "0.1", "1.1"],
  );
  await page.selectOption(sel("preset"), "creative");
  assert.deepEqual([await value("temperature"), await value("top-k"), await value("preset")], ["1.2", "0", "creative"]);
  await setInput(page, "min-p", 0.2);
  assert.equal(await value("preset"), "custom");
  await setInput(page, "min-p", 0.05);
  assert.equal(await value("preset"), "creative", "back at the preset's values: named again");
  await page.waitForFunction(() => location.search.includes("temperature=1.2&top_k=0"));
});

test("greedy output equals the CLI's with the same prompt, settings and system prompt (default, none, one's own)", { timeout: 2 * MINUTE }, async () => {
  await open();
  await playgroundGreedy(page);
  const flags = ["--temperature", "0", "--top-k", "40", "--top-p", "0.9", "--min-p", "0", "--repeat-penalty", "1", "--seed", "42", "--max-tokens", "24"];
  await generate(QUESTION, 24);
  const native = cli(["generate", "--prompt", QUESTION, ...flags]);
  const ours = await tokens();
  assert.equal(await text("output"), native.text);
  assert.deepEqual(ours.map((t) => t.id), native.token_ids.slice(0, ours.length));
  assert.ok(ours.every((t) => t.prob === 1), "greedy: every token had probability 1");

  // No system prompt, as --no-system-prompt.
  await page.click(sel("system-none"));
  await generate(QUESTION, 12);
  const bare = cli(["generate", "--prompt", QUESTION, "--no-system-prompt", ...flags.slice(0, -1), "12"]);
  assert.equal(await text("output"), bare.text);
  // A system prompt of one's own, as --system.
  await page.fill(sel("system-prompt"), "Answer in one word.");
  await generate(QUESTION, 12);
  const own = cli(["generate", "--prompt", QUESTION, "--system", "Answer in one word.", ...flags.slice(0, -1), "12"]);
  assert.equal(await text("output"), own.text);
  // The page's prompt (reused + computed) is the CLI's, token for token in length.
  const [reused, computed] = await Promise.all(["data-reused", "data-computed"].map((a) => page.getAttribute(sel("reuse"), a)));
  assert.equal(Number(reused) + Number(computed), own.prompt_tokens);
  assert.notEqual(own.prompt_tokens, bare.prompt_tokens);
  await page.click(sel("system-default"));
});

test("Send adds a turn that reuses the KV cache and empties the box; Continue goes on with the same answer", { timeout: 2 * MINUTE }, async () => {
  await generate(QUESTION, 24);
  assert.equal(await value("prompt"), "", "the sent message left the box");
  const first = Number(await page.getAttribute(sel("reuse"), "data-computed"));
  await send("And of Germany?");
  const roles = await page.$$eval(sel("chat-turn"), (els) => els.map((e) => e.dataset.role));
  assert.deepEqual(roles, ["user", "assistant", "user", "assistant"]);
  const footer = await page.$$(sel("reuse"));
  const [reused, computed] = await Promise.all(["data-reused", "data-computed"].map((a) => footer[1].getAttribute(a)));
  assert.ok(Number(reused) >= first, `the second turn reused ${reused} tokens (the first computed ${first})`);
  assert.ok(Number(computed) < Number(reused), `${computed} computed, ${reused} reused`);
  assert.match(await text("output"), /Berlin/);
  assert.equal(await value("prompt"), "", "the sent message left the box");

  await send("Tell me a long story about Berlin.", 4);
  const before = await text("output");
  assert.match(await text("summary"), /^4 tokens; the maximum/);
  await page.click(sel("continue"));
  await idle();
  const after = await text("output");
  assert.ok(after.startsWith(before) && after.length > before.length, `${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  assert.ok(Number(await page.getAttribute(`${sel("output")} ~ .turn-footer ${sel("reuse")}`, "data-reused")) > 0);
});

test("a token's alternatives show on focus; choosing one branches the answer, and the old branch stays", { timeout: 2 * MINUTE }, async () => {
  await page.fill(sel("max-tokens"), "12");
  await setInput(page, "temperature", 0.8);
  await generate("Suggest a name for a pet cat.", 12);
  const old = await tokens();
  const oldText = await text("output");
  // Keyboard: the third token takes focus and its alternatives are announced.
  await page.focus(`${sel("output")} ${sel("token")} >> nth=2`);
  await page.waitForSelector(sel("alternatives"));
  assert.equal(await page.getAttribute(`${sel("alternatives")} >> xpath=..`, "aria-live"), "polite");
  const alts = await page.$$eval(sel("alternative"), (els) => els.map((e) => ({ id: Number(e.dataset.tokenId), prob: Number(e.dataset.prob), disabled: e.disabled })));
  assert.equal(alts.length, 10);
  const sum = alts.reduce((a, b) => a + b.prob, 0);
  assert.ok(sum <= 1 + 1e-5, `final probabilities add up to ${sum}`);
  const drawn = alts.find((a) => a.id === old[2].id);
  assert.ok(drawn?.disabled, "the drawn token is among them, not choosable");
  assert.ok(Math.abs(drawn.prob - old[2].prob) < 1e-6, "its final probability is the one it was drawn with");
  const other = alts.find((a) => !a.disabled);
  assert.ok(other, "another candidate to choose");
  // Enter moves the keyboard from the token into its alternatives.
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), "alternative");

  await page.click(`${sel("alternative")}[data-token-id="${other.id}"]`);
  await idle();
  const branched = await tokens();
  assert.deepEqual(branched.slice(0, 2).map((t) => t.id), old.slice(0, 2).map((t) => t.id), "cut at the token");
  assert.equal(branched[2].id, other.id, "the alternative is in its place");
  assert.equal(await page.textContent(`${sel("branch-switch")} ${sel("branch-position")}`), "2 of 2");
  await page.click(`${sel("branch-switch")} button[aria-label="Previous answer"]`);
  assert.equal(await page.textContent(`${sel("branch-switch")} ${sel("branch-position")}`), "1 of 2");
  assert.equal(await text("output"), oldText, "the old branch is back whole");

  // Regenerate: a third answer with the next seed.
  const seed = Number(await value("seed"));
  await page.click(sel("regenerate"));
  await idle();
  assert.equal(Number(await value("seed")), seed + 1);
  assert.equal(await page.textContent(`${sel("branch-switch")} ${sel("branch-position")}`), "3 of 3");
});

test("Export saves the conversation with its settings; Import loads it back; a bad file gets a message", { timeout: MINUTE }, async () => {
  const shown = await text("output");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click(sel("export"))]);
  const saved = JSON.parse(readFileSync(await download.path(), "utf8"));
  assert.equal(saved.format, "inference-playground-conversation");
  assert.equal(saved.conversation.exchanges[0].answers.length, 3);
  assert.equal(saved.setup.settings.temperature, 0.8);

  await page.selectOption(sel("preset"), "precise");
  await generate("Hello", 2);
  await page.setInputFiles(sel("import"), { name: "bad.json", mimeType: "application/json", buffer: Buffer.from("{ not json") });
  await page.waitForSelector(sel("import-message"));
  assert.match(await text("import-message"), /not a saved playground conversation/);
  assert.equal(await value("preset"), "precise", "nothing changed");

  await page.setInputFiles(sel("import"), await download.path());
  await page.waitForFunction(() => /Loaded/.test(document.querySelector("[data-testid=import-message]")?.textContent));
  assert.equal(await text("output"), shown);
  assert.equal(await value("temperature"), "0.8");
  assert.equal(await page.textContent(`${sel("branch-switch")} ${sel("branch-position")}`), "3 of 3");

  await mkdir(join(ROOT, "docs"), { recursive: true });
  await page.focus(`${sel("output")} ${sel("token")} >> nth=1`);
  await page.waitForSelector(sel("alternatives"));
  await assertAccessible(page, "the playground with a conversation, three answers and a token's alternatives open");
  await page.screenshot({ path: join(ROOT, "docs/screenshot.png"), fullPage: true });
});

test("sending after three turns keeps them; New conversation empties the page and Undo brings everything back", { timeout: 2 * MINUTE }, async () => {
  await open();
  await playgroundGreedy(page);
  await generate("Name a fruit.", 4);
  await send("Name a colour.");
  await send("Name a city.");
  const three = await turns();
  assert.equal(three.length, 6);
  await send("Name an animal.");
  const four = await turns();
  assert.deepEqual(four.slice(0, 6), three, "the three turns are kept, unchanged");
  assert.deepEqual(four[6], ["user", "Name an animal."]);
  // A branch on the first answer, reachable after the undo.
  await page.click(`${sel("regenerate")} >> nth=0`);
  await idle();
  assert.equal(await page.textContent(`${sel("branch-position")} >> nth=0`), "2 of 2");
  const before = await turns();
  const settings = [await value("temperature"), await value("seed")];

  await page.click(sel("new-conversation"));
  assert.deepEqual(await turns(), [], "a new, empty conversation");
  assert.match(await text("put-away"), /kept in Saved work/);
  await page.selectOption(sel("preset"), "creative");
  await page.click(sel("undo-new-conversation"));
  assert.deepEqual(await turns(), before, "every turn is back");
  assert.deepEqual([await value("temperature"), await value("seed")], settings, "and the settings it had");
  await page.click(`${sel("branch-switch")} button[aria-label="Previous answer"] >> nth=0`);
  assert.equal(await page.textContent(`${sel("branch-position")} >> nth=0`), "1 of 2", "the old branch is reachable");
  assert.equal(await page.$(sel("put-away")), null);
});

test("a stop sequence ends the answer; Edit replaces a message and drops what followed; raw text is continued", { timeout: 2 * MINUTE }, async () => {
  await open();
  await playgroundGreedy(page);
  await page.fill(sel("stop-sequences"), "Paris");
  await generate(QUESTION, 48);
  assert.match(await text("summary"), /a stop sequence appeared/);
  assert.match(await text("output"), /Paris$/);
  await page.fill(sel("stop-sequences"), "");

  await send("And of Italy?");
  assert.equal(await page.$$eval(sel("chat-turn"), (els) => els.length), 4);
  await page.click(`${sel("edit")} >> nth=0`);
  await page.fill(sel("edit-text"), "What is the capital of Spain?");
  await page.click(sel("edit-save"));
  await idle();
  assert.equal(await page.$$eval(sel("chat-turn"), (els) => els.length), 2, "the later exchange was dropped");
  const spain = cli(["generate", "--prompt", "What is the capital of Spain?", "--temperature", "0", "--max-tokens", "48"]);
  assert.equal(await text("output"), spain.text, "answered as a first message, with nothing after it");

  // A conversation keeps its mode: raw text needs a new one.
  assert.ok(await page.isDisabled(sel("mode-raw")));
  await page.click(sel("new-conversation"));
  await page.check(sel("mode-raw"));
  assert.equal(await page.$(sel("system-prompt")), null, "raw text has no system prompt");
  await send("The capital of France is", 4);
  assert.deepEqual(await page.$$eval(sel("chat-turn"), (els) => els.map((e) => e.dataset.role)), ["text", "assistant"]);
  const raw = cli(["generate", "--raw", "--prompt", "The capital of France is", "--temperature", "0", "--max-tokens", "4"]);
  assert.equal(await text("output"), raw.text);
  // Send in raw mode adds text after the continuation, and the model goes on from there.
  await send(" The capital of Germany is", 4);
  assert.deepEqual(await page.$$eval(sel("chat-turn"), (els) => els.map((e) => e.dataset.role)), ["text", "assistant", "text", "assistant"]);
  assert.ok(Number(await page.getAttribute(`${sel("output")} ~ .turn-footer ${sel("reuse")}`, "data-reused")) > 0, "the text so far came from the cache");
  await page.click(sel("new-conversation"));
  await page.check(sel("mode-chat"));
});

test("a message past the page's context is refused and put back in the box; the conversation says it is full; New conversation starts another", { timeout: MINUTE }, async () => {
  await open();
  await generate(QUESTION, 8);
  const answer = await text("output");
  // About 3,000 tokens: the conversation with it does not fit the page's 2,048. (Filling the
  // context by generation would first read 2,000 tokens: a minute on a busy machine.)
  const long = "one two three four five ".repeat(600);
  await page.fill(sel("prompt"), long);
  await page.click(sel("generate"));
  await page.waitForSelector(sel("playground-error"));
  assert.match(await text("playground-error"), /the prompt is \d+ tokens, and the context holds 2048/);
  assert.match(await text("context-full"), /reached the page's context of 2048 tokens/);
  assert.equal(await value("prompt"), long, "the refused message is back in its box");
  assert.equal(await page.$$eval(sel("chat-turn"), (els) => els.length), 2, "the conversation is as it was");
  assert.equal(await text("output"), answer);

  await page.click(sel("new-conversation"));
  assert.equal(await page.$$eval(sel("chat-turn"), (els) => els.length), 0);
  assert.equal(await page.$(sel("context-full")), null);
  assert.equal(await page.$$eval(sel("new-conversation"), (els) => els.length), 1, "one New conversation button");
});

test("no errors reached the console, and no request left the origin", () => {
  assert.deepEqual(session.consoleErrors, []);
  assert.deepEqual(session.foreign(), [], "no request left the origin");
});

// Our engine as a learner gets it: the app's own worker, spoken to through src/protocol.rs
// the way src/bridge.rs speaks it: the multi-threaded one (/worker-threads.js), as the page
// is cross-origin isolated, with passes split over `threads` threads (the query). The figures are the engine's
// own timings, the same ones the lessons show (Done: ttft_ms, prefill_tps, decode_tps).
// Loading starts as soon as the page opens; `window.benchReady` resolves with the time
// (performance.now(), so from page open) at which the model was ready.
const params = new URLSearchParams(location.search);
const MODEL = { url: params.get("model"), sha256: params.get("sha256") };
const THREADS = Number(params.get("threads") ?? 1);
// `integer=1`: decode with the opt-in integer arithmetic (16-bit activations), switched on as
// the playground switches it (which measures its |Δlogit| on the loaded model first).
const INTEGER = params.get("integer") === "1";
if (!crossOriginIsolated) throw new Error("the bench page is not cross-origin isolated");

const worker = new Worker("/worker-threads.js", { type: "module" });
const pending = new Map();
let next = 1;
let started;
const ready = new Promise((resolve) => (started = resolve));
const kind = (body) => (typeof body === "string" ? body : Object.keys(body)[0]);

worker.onmessage = ({ data: { id, body } }) => {
  if (body === "Started") return started();
  const request = pending.get(id);
  if (!request) return;
  request.onResponse?.(body);
  // The responses a request gets before its last (src/protocol.rs, `Response::is_final`).
  if (!["Progress", "Prefill", "Token"].includes(kind(body))) {
    pending.delete(id);
    request.resolve(body);
  }
};

/** Sends a request; resolves to its final response. */
async function ask(body, onResponse) {
  await ready;
  const id = next++;
  return new Promise((resolve) => {
    pending.set(id, { resolve, onResponse });
    worker.postMessage({ id, body });
  });
}

const threads = ask({ SetThreads: { threads: THREADS } });
window.benchReady = ask({ LoadModel: MODEL }).then(async (response) => {
  const at = performance.now();
  if (!response.ModelReady) throw new Error(`LoadModel: ${JSON.stringify(response)}`);
  const set = (await threads).Threads;
  if (set?.threads !== THREADS) throw new Error(`SetThreads ${THREADS}: ${JSON.stringify(set)}`);
  const info = { ...response.ModelReady.info, threads: set.threads };
  if (INTEGER) {
    const answer = await ask({ SetIntegerActivations: { on: true } });
    if (answer.IntegerActivations?.on !== true) throw new Error(`SetIntegerActivations: ${JSON.stringify(answer)}`);
    info.integer_deviation = answer.IntegerActivations.deviation;
  }
  return { ready_ms: at, info };
});

/** Exactly `tokens` greedy tokens from the raw prompt (the runner applies the chat template). */
window.bench = async ({ prompt, tokens }) => {
  await window.benchReady;
  const arrivals = [];
  const t0 = performance.now();
  const done = await ask(
    { BenchGenerate: { prompt, chat: false, settings: { temperature: 0 }, max_tokens: tokens } },
    (body) => {
      if (body.Token) arrivals.push(performance.now());
    },
  );
  if (!done.Done) throw new Error(`BenchGenerate: ${JSON.stringify(done)}`);
  const stats = await ask("BenchStats");
  if (!stats.BenchStats) throw new Error(`BenchStats: ${JSON.stringify(stats)}`);
  const d = done.Done;
  return {
    prompt_tokens: stats.BenchStats.prompt_tokens,
    generated_tokens: d.tokens,
    prefill_tps: d.prefill_tps,
    decode_tps: d.decode_tps,
    engine_ttft_ms: d.ttft_ms,
    // As the page sees it: from sending the request to the first token's message.
    ttft_ms: arrivals[0] - t0,
    // Decode as the page sees it: tokens after the first, over the time they took to arrive.
    wall_decode_tps: (d.tokens - 1) / ((arrivals.at(-1) - arrivals[0]) / 1000),
    peak_wasm_bytes: stats.BenchStats.wasm_memory_bytes,
    text: d.text,
    // Epoch milliseconds, for bench/cpu.mjs: the request, the first and the last token.
    t_start: performance.timeOrigin + t0,
    t_first: performance.timeOrigin + arrivals[0],
    t_last: performance.timeOrigin + arrivals.at(-1),
  };
};

// wllama (llama.cpp compiled to WebAssembly), served from bench/node_modules by our own
// server: `threads` threads (the query; several when the page is cross-origin isolated, as
// bench/run.mjs serves it), CPU only, the same GGUF from the same server as our engine,
// cached by wllama itself (OPFS) after the first run. `window.benchReady` resolves with
// the time (performance.now(), so from page open) at which the model was ready.
import { Wllama } from "/wllama/index.js";

// wllama's worker is a module worker made from a blob, its wasm memory private to it. To
// read the memory's size, every module worker this page starts first runs a hook that
// keeps the wasm memories it creates or its instances export (bench/run.mjs reads
// `__benchWasmMemories` in the worker). Nothing else about the worker changes.
const HOOK = `
const memories = (globalThis.__benchWasmMemories = []);
const Memory = WebAssembly.Memory;
WebAssembly.Memory = class extends Memory {
  constructor(...args) {
    super(...args);
    memories.push(this);
  }
};
const keep = (result) => {
  const instance = result.instance ?? result;
  for (const value of Object.values(instance.exports ?? {})) {
    if (value instanceof Memory && !memories.includes(value)) memories.push(value);
  }
  return result;
};
for (const name of ["instantiate", "instantiateStreaming"]) {
  const original = WebAssembly[name];
  WebAssembly[name] = (...args) => original.apply(WebAssembly, args).then(keep);
}
`;
const PageWorker = window.Worker;
window.Worker = class extends PageWorker {
  constructor(url, options) {
    if (options?.type !== "module") return super(url, options);
    const hook = URL.createObjectURL(new Blob([HOOK], { type: "text/javascript" }));
    const wrapper = `import ${JSON.stringify(hook)};\nimport ${JSON.stringify(String(url))};\n`;
    super(URL.createObjectURL(new Blob([wrapper], { type: "text/javascript" })), options);
  }
};

const params = new URLSearchParams(location.search);
// The model URL is relative to the site's root (src/bridge.rs); this page is one level below it.
const MODEL_URL = new URL(params.get("model"), new URL("/", location.href)).href;
const THREADS = Number(params.get("threads") ?? 1);
const quiet = { debug() {}, log() {}, warn: console.warn, error: console.error };
const wllama = new Wllama({ default: "/wllama/wasm/wllama.wasm" }, { logger: quiet, suppressNativeLog: true });

window.benchReady = wllama
  .loadModelFromUrl(MODEL_URL, { n_threads: THREADS, n_gpu_layers: 0, useCache: true })
  .then(() => {
    const info = { threads: wllama.getNumThreads(), multithread: wllama.isMultithread(), ctx: wllama.getLoadedContextInfo().n_ctx };
    if (info.threads !== THREADS || info.multithread !== THREADS > 1) throw new Error(`wllama runs ${JSON.stringify(info)}, not ${THREADS} threads`);
    return { ready_ms: performance.now(), info };
  });

/** Exactly `tokens` greedy tokens from the raw prompt (the runner applies the chat template). */
window.bench = async ({ prompt, tokens }) => {
  await window.benchReady;
  const arrivals = [];
  let last = null;
  let text = "";
  const t0 = performance.now();
  await wllama.createCompletion({
    prompt,
    max_tokens: tokens,
    temperature: 0,
    top_k: 1,
    ignore_eos: true,
    cache_prompt: false,
    stream: true,
    onData: (chunk) => {
      const piece = chunk.choices?.[0]?.text ?? "";
      if (piece || arrivals.length === 0) arrivals.push(performance.now());
      text += piece;
      if (chunk.timings) last = chunk;
    },
  });
  const t = last?.timings;
  if (!t) throw new Error("wllama reported no timings");
  return {
    prompt_tokens: t.prompt_n,
    generated_tokens: t.predicted_n,
    // llama.cpp's own timings (llama-server's `timings`).
    prefill_tps: t.prompt_per_second,
    decode_tps: t.predicted_per_second,
    engine_ttft_ms: null,
    ttft_ms: arrivals[0] - t0,
    // Decode as the page sees it: tokens after the first, over the time they took to arrive.
    wall_decode_tps: (t.predicted_n - 1) / ((arrivals.at(-1) - arrivals[0]) / 1000),
    peak_wasm_bytes: null, // read from wllama's worker by bench/run.mjs
    text,
    // Epoch milliseconds, for bench/cpu.mjs: the request, the first and the last token.
    t_start: performance.timeOrigin + t0,
    t_first: performance.timeOrigin + arrivals[0],
    t_last: performance.timeOrigin + arrivals.at(-1),
  };
};

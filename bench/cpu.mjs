// CPU time of Chromium's dedicated-worker threads, sampled from /proc (Linux) while a
// benchmark runs. On this shared 2-core machine a thread waits for a core much of the
// time, so wall-clock rates mostly measure the load; the time a worker actually ran is
// steadier. `/proc/<pid>/task/<tid>/schedstat` gives it in nanoseconds.
import { readdir, readFile } from "node:fs/promises";

const INTERVAL_MS = 100;
const now = () => performance.timeOrigin + performance.now();

async function text(path) {
  try {
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

/** Processes descended from `root` whose command line says they are renderers. */
async function renderers(root) {
  const parent = new Map();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await text(`/proc/${name}/stat`);
    // The command name in parentheses may contain spaces; the fields after it do not.
    const m = stat?.match(/\) \S+ (\d+)/);
    if (m) parent.set(Number(name), Number(m[1]));
  }
  const under = (pid) => {
    for (let p = pid, i = 0; p > 1 && i < 64; p = parent.get(p) ?? 0, i++) if (p === root) return true;
    return false;
  };
  const out = [];
  for (const pid of parent.keys()) {
    if (pid === root || !under(pid)) continue;
    const cmdline = await text(`/proc/${pid}/cmdline`);
    if (cmdline?.includes("--type=renderer")) out.push(pid);
  }
  return out;
}

export class CpuSampler {
  constructor(root = process.pid) {
    this.root = root;
    this.samples = []; // { t: epoch ms, cpu: Map("pid/tid" → ns) }
    this.workers = new Set(); // "pid/tid" of DedicatedWorker threads
    this.seen = new Set();
    this.pids = [];
  }

  async sample() {
    if (this.busy) return;
    this.busy = true;
    try {
      if (!this.pidsAt || now() - this.pidsAt > 1000) {
        this.pids = await renderers(this.root);
        this.pidsAt = now();
      }
      for (const pid of this.pids) {
        let tids = [];
        try {
          tids = await readdir(`/proc/${pid}/task`);
        } catch {
          continue;
        }
        for (const tid of tids) {
          const key = `${pid}/${tid}`;
          if (this.seen.has(key)) continue;
          this.seen.add(key);
          if ((await text(`/proc/${pid}/task/${tid}/comm`))?.startsWith("DedicatedWorker")) this.workers.add(key);
        }
      }
      const cpu = new Map();
      for (const key of this.workers) {
        const s = await text(`/proc/${key.replace("/", "/task/")}/schedstat`);
        if (s) cpu.set(key, Number(s.split(" ")[0]));
      }
      this.samples.push({ t: now(), cpu });
    } finally {
      this.busy = false;
    }
  }

  start() {
    this.timer = setInterval(() => this.sample(), INTERVAL_MS);
    return this.sample();
  }

  async stop() {
    clearInterval(this.timer);
    await this.sample();
  }

  /** CPU ms of thread `key` at epoch time `t`, interpolated between samples. */
  at(key, t) {
    const pts = this.samples.filter((s) => s.cpu.has(key));
    if (pts.length === 0) return NaN;
    if (t <= pts[0].t) return pts[0].cpu.get(key) / 1e6;
    for (let i = 1; i < pts.length; i++) {
      if (t <= pts[i].t) {
        const [a, b] = [pts[i - 1], pts[i]];
        const f = (t - a.t) / (b.t - a.t);
        return (a.cpu.get(key) + f * (b.cpu.get(key) - a.cpu.get(key))) / 1e6;
      }
    }
    return pts.at(-1).cpu.get(key) / 1e6;
  }

  /** The worker thread that ran longest between t0 and t1 (epoch ms). */
  busiest(t0, t1) {
    let best = null;
    let most = -1;
    for (const key of this.workers) {
      const used = this.at(key, t1) - this.at(key, t0);
      if (used > most) [best, most] = [key, used];
    }
    return best;
  }
}

/**
 * Prefill and decode rates per second of CPU time of the worker thread that did the run
 * (`run`: prompt_tokens, generated_tokens, and the epoch times t_start, t_first, t_last),
 * and the share of the wall-clock time that thread was running.
 */
export function cpuRates(sampler, run) {
  const key = sampler.busiest(run.t_start, run.t_last);
  if (!key) return { cpu_prefill_tps: null, cpu_decode_tps: null, cpu_share: null };
  const cpu = (t) => sampler.at(key, t);
  const prefill = cpu(run.t_first) - cpu(run.t_start);
  const decode = cpu(run.t_last) - cpu(run.t_first);
  return {
    cpu_prefill_tps: run.prompt_tokens / (prefill / 1000),
    cpu_decode_tps: (run.generated_tokens - 1) / (decode / 1000),
    cpu_share: (prefill + decode) / (run.t_last - run.t_start),
  };
}

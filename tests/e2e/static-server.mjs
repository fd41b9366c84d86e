// Serves dist/ on 127.0.0.1 like a plain static host, answering unknown paths without a file
// extension with index.html, so that deep links (/glossary) reach the app's router. With a
// `base` ("/deep/sub/") the site lives under that path only, as on a project's GitHub Pages;
// everything outside it is 404. With `isolate` (the default) it sends COOP/COEP, as a host
// configured for the engine's threads does (README, "Deploy"); without, it is a host that
// cannot set headers.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize, resolve, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
  ".gguf": "application/octet-stream",
  ".webmanifest": "application/manifest+json",
};

// Cross-origin isolation: what the engine's threads need (shared memory).
export const ISOLATION = {
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-embedder-policy": "require-corp",
};

async function fileFor(root, pathname) {
  const path = normalize(join(root, decodeURIComponent(pathname)));
  if (!path.startsWith(root + sep) && path !== root) return null;
  const info = await stat(path).catch(() => null);
  if (info?.isFile()) return { path, size: info.size };
  if (info?.isDirectory() || extname(pathname) === "") {
    const index = join(root, "index.html");
    return { path: index, size: (await stat(index)).size };
  }
  return null;
}

/**
 * Starts serving `root`; resolves to { url, close() }. `cutAfter(pathname)` may return a
 * byte count: the response then announces the whole file but the connection is dropped
 * after that many bytes, as a download that breaks off. The site's URL is `url` + `base`.
 */
export async function serve(root, port = 0, { cutAfter = () => null, base = "/", isolate = true } = {}) {
  if (!base.startsWith("/") || !base.endsWith("/")) throw new Error(`base must start and end with "/": ${base}`);
  const sockets = new Set();
  const server = createServer(async (req, res) => {
    try {
      const { pathname: full } = new URL(req.url, "http://127.0.0.1");
      const pathname = full.startsWith(base) ? "/" + full.slice(base.length) : null;
      const file = pathname === null ? null : await fileFor(root, pathname);
      if (!file) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      res.writeHead(200, {
        "content-type": TYPES[extname(file.path)] ?? "application/octet-stream",
        "content-length": file.size,
        "cache-control": "no-cache",
        ...(isolate ? ISOLATION : {}),
      });
      if (req.method === "HEAD") return res.end();
      const cut = cutAfter(pathname);
      if (cut === null) return createReadStream(file.path).pipe(res);
      createReadStream(file.path, { end: cut - 1 })
        .on("end", () => res.socket?.destroy())
        .pipe(res, { end: false });
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    port: server.address().port,
    // Closes at once, open connections included: the site is then really unreachable.
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  };
}

// `node tests/e2e/static-server.mjs [dist] [port] [base] [--no-isolation]` serves a build by hand.
if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2).filter((a) => a !== "--no-isolation");
  const root = resolve(args[0] ?? "dist");
  const base = args[2] ?? "/";
  const isolate = !process.argv.includes("--no-isolation");
  const { url } = await serve(root, Number(args[1] ?? 8080), { base, isolate });
  console.log(`serving ${root} at ${url}${base}`);
}

// Installable, and upgraded by a new deployment. The site has a web app manifest with
// icons that Chromium accepts for installing, and works offline from its start URL.
//
// A new deployment replaces the offline shell. Build A (a copy of dist/) is visited and
// kept offline by the service worker; then build B is deployed over it and the next online
// visit must get B, the old shell's cache must go, and offline must still work, now with B.
// B is simulated: a copy of A whose build id (scripts/stamp-build.sh writes it into sw.js and
// index.html) is replaced. That id is what every new build changes in those two files, and
// it is all the browser compares: a new sw.js means a new worker, which caches the shell anew.
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launch } from "./browser.mjs";
import { loadModel, MINUTE, READY, ROOT } from "./session.mjs";
import { serve } from "./static-server.mjs";

let site, server, browser, page, port;

/** The build id the page was served with. */
const pageBuild = () => page.getAttribute("meta[name=build]", "content");
/** The service worker's shell caches, and the build named by the index.html each holds. */
const shells = () =>
  page.evaluate(async () => {
    const names = (await caches.keys()).filter((k) => k.startsWith("shell "));
    return Promise.all(
      names.map(async (name) => {
        const index = await (await caches.open(name)).match(new URL("./", document.baseURI).href);
        const html = index ? await index.text() : "";
        return { name, build: html.match(/<meta name="build" content="([^"]+)"/)?.[1] };
      }),
    );
  });

/** Polls `check` (async, truthy when done) for up to `ms`. */
async function until(check, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

before(async () => {
  site = await mkdtemp(join(tmpdir(), "playground-upgrade-"));
  await cp(join(ROOT, "dist"), site, { recursive: true, filter: (src) => !src.includes("/models") });
  await symlink(join(ROOT, "dist/models"), join(site, "models"));
  server = await serve(site, 0);
  port = server.port;
  browser = await launch();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
});

after(async () => {
  await browser?.close();
  await server?.close();
  await rm(site, { recursive: true, force: true });
});

let buildA, startUrl;

test("installable: the manifest names the app, its start URL and its icons, and Chromium finds nothing missing", { timeout: 3 * MINUTE }, async () => {
  await page.goto(server.url + "/playground");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  const manifest = await page.evaluate(async () => {
    const link = document.querySelector("link[rel=manifest]");
    const json = await (await fetch(link.href)).json();
    const icons = await Promise.all(
      json.icons.map(async (icon) => {
        const response = await fetch(new URL(icon.src, link.href));
        const blob = await response.blob();
        // createImageBitmap decodes raster images only; an SVG scales to any size.
        const bitmap = blob.type === "image/png" ? await createImageBitmap(blob) : null;
        return { ...icon, status: response.status, mime: blob.type, size: bitmap && `${bitmap.width}x${bitmap.height}` };
      }),
    );
    return { ...json, icons, start: new URL(json.start_url, link.href).href };
  });
  assert.equal(manifest.name, "Inference Playground");
  assert.equal(manifest.display, "standalone");
  assert.equal(manifest.start, server.url + "/");
  startUrl = manifest.start;
  for (const icon of manifest.icons) {
    assert.equal(icon.status, 200, icon.src);
    assert.equal(icon.mime, icon.type, `${icon.src} is what it says`);
    if (icon.type === "image/png") assert.equal(icon.size, icon.sizes, `${icon.src} is as large as it says`);
  }
  assert.ok(manifest.icons.some((i) => i.sizes === "512x512" && i.purpose === "maskable"), "a maskable icon for phones");
  const cdp = await browser.context.newCDPSession(page);
  const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
  assert.deepEqual(installabilityErrors, []);
});

test("build A: the first visit installs its shell", { timeout: 3 * MINUTE }, async () => {
  buildA = await pageBuild();
  assert.match(buildA, /^[0-9a-f]{16}$/, "index.html was stamped with the build id");
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const cached = await until(async () => {
    const s = await shells();
    return s.length === 1 && s[0].build === buildA && s;
  }, MINUTE, "build A's shell");
  assert.ok(cached[0].name.endsWith(buildA));
});

test("build B deployed: the next online visit gets B, and B's shell replaces A's", { timeout: 3 * MINUTE }, async () => {
  const buildB = [...buildA].reverse().join("") === buildA ? "0".repeat(16) : [...buildA].reverse().join("");
  for (const file of ["sw.js", "index.html"]) {
    const text = await readFile(join(site, file), "utf8");
    assert.ok(text.includes(buildA), `${file} names build A`);
    await writeFile(join(site, file), text.replaceAll(buildA, buildB));
  }
  await page.goto(server.url + "/playground");
  assert.equal(await pageBuild(), buildB, "the online visit got build B");
  await page.waitForSelector(READY, { timeout: 2 * MINUTE });
  // The browser checks sw.js on navigation, installs B's worker, which caches B's shell
  // and, once active, deletes A's.
  await until(async () => {
    const s = await shells();
    return s.length === 1 && s[0].build === buildB;
  }, 2 * MINUTE, "build B's shell alone");
  const controller = await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL);
  assert.equal(controller, server.url + "/sw.js");

  await server.close();
  await browser.context.setOffline(true);
  try {
    // As the home screen's icon opens it: the manifest's start URL.
    await page.goto(startUrl);
    assert.equal(await pageBuild(), buildB, "offline, the shell is build B's");
    await loadModel(page);
    await page.goto(`http://127.0.0.1:${port}/glossary#kv-cache`);
    await page.waitForSelector("#kv-cache");
  } finally {
    await browser.context.setOffline(false);
  }
});

// The three browser engines the smoke suite (smoke.mjs) runs in, behind one small driver:
// Chromium (Blink) through playwright-core, Firefox ESR (Gecko) through puppeteer-core over
// WebDriver BiDi, and WebKitGTK (WebKit, Safari's engine) through its WebDriver,
// `WebKitWebDriver`, with selenium-webdriver, on a virtual display (xvfb-run). All come from
// Debian and npm (scripts/setup.sh). Each starts with a fresh profile.
//
// A driver: { engine, version, goto(url), evaluate(fn, arg), click(css), hover(css), close() }.
// Waiting and reading go through `evaluate`, the same code in every engine.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { launch as launchChromium } from "./browser.mjs";

const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";
const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER ?? "/usr/bin/WebKitWebDriver";
const MINIBROWSER = process.env.MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/** What each engine needs on this machine, for a clear message when it is missing. */
export const REQUIRES = {
  chromium: [[process.env.CHROMIUM ?? "/usr/bin/chromium", "apt-get install chromium"]],
  firefox: [[FIREFOX, "apt-get install firefox-esr"]],
  webkit: [
    [WEBKIT_DRIVER, "apt-get install webkit2gtk-driver"],
    [MINIBROWSER, "apt-get install webkit2gtk-driver"],
    ["/usr/bin/xvfb-run", "apt-get install xvfb xauth"],
  ],
};

/** Throws, naming the package, if something the engine needs is not installed. */
export function checkInstalled(engine) {
  const missing = REQUIRES[engine].filter(([path]) => !existsSync(path));
  if (missing.length) throw new Error(`${engine} is not installed: ${missing.map(([p, fix]) => `${p} (${fix})`).join(", ")}; scripts/setup.sh installs it`);
}

/** `serviceWorkers: "block"` is for Chromium only (see browser.mjs). */
export async function open(engine, { serviceWorkers } = {}) {
  checkInstalled(engine);
  return { chromium: openChromium, firefox: openFirefox, webkit: openWebKit }[engine]({ serviceWorkers });
}

async function openChromium({ serviceWorkers }) {
  const browser = await launchChromium({ serviceWorkers });
  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  return {
    engine: "chromium",
    version: browser.context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent)),
    goto: (url) => page.goto(url),
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    click: (css) => page.click(css),
    hover: (css) => page.hover(css),
    close: () => browser.close(),
  };
}

async function openFirefox() {
  const { default: puppeteer } = await import("puppeteer-core");
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    protocol: "webDriverBiDi",
    // A loaded 2-core machine can take a while to start it.
    timeout: 120_000,
    // Firefox's own calls home (updates, telemetry, safe browsing) go nowhere here.
    extraPrefsFirefox: {
      "app.update.enabled": false,
      "browser.safebrowsing.malware.enabled": false,
      "browser.safebrowsing.phishing.enabled": false,
      "datareporting.policy.dataSubmissionEnabled": false,
      "network.captive-portal-service.enabled": false,
      "network.connectivity-service.enabled": false,
    },
  });
  const [page] = await browser.pages();
  await page.setViewport({ width: 1200, height: 900 });
  return {
    engine: "firefox",
    version: await browser.version(),
    goto: (url) => page.goto(url, { waitUntil: "load", timeout: 120_000 }),
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    click: (css) => page.click(css),
    hover: (css) => page.hover(css),
    close: () => browser.close(),
  };
}

/** A free TCP port on 127.0.0.1 for WebKitWebDriver. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function openWebKit() {
  const { Builder, By } = await import("selenium-webdriver");
  const port = await freePort();
  // Its own process group, so that close() ends xvfb-run, Xvfb, the driver and the browser.
  const driverProcess = spawn("xvfb-run", ["-a", WEBKIT_DRIVER, `--port=${port}`], { detached: true, stdio: "ignore" });
  const stop = () => {
    try {
      process.kill(-driverProcess.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
  };
  try {
    const server = `http://127.0.0.1:${port}`;
    // The driver takes a moment to listen (up to a minute on a loaded machine).
    for (let i = 0; ; i++) {
      const up = await fetch(`${server}/status`).then((r) => r.ok, () => false);
      if (up) break;
      if (i > 300) throw new Error(`WebKitWebDriver did not start on port ${port} within a minute`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const driver = await new Builder()
      .usingServer(server)
      .withCapabilities({
        browserName: "MiniBrowser",
        "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] },
      })
      .build();
    await driver.manage().setTimeouts({ script: 300_000, pageLoad: 120_000 });
    await driver.manage().window().setRect({ width: 1200, height: 900 });
    const capabilities = await driver.getCapabilities();
    return {
      engine: "webkit",
      version: `WebKitGTK ${capabilities.get("browserVersion")}`,
      goto: (url) => driver.get(url),
      // WebDriver awaits a returned promise.
      evaluate: (fn, arg) => driver.executeScript(`return (${fn})(arguments[0]);`, arg),
      click: async (css) => (await driver.findElement(By.css(css))).click(),
      hover: async (css) => driver.actions().move({ origin: await driver.findElement(By.css(css)) }).perform(),
      close: async () => {
        await driver.quit().catch(() => {});
        stop();
      },
    };
  } catch (error) {
    stop();
    throw error;
  }
}

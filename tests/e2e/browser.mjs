// Headless Chromium from Debian, driven by playwright-core (Playwright's own browser
// downloads are not reachable here), with a fresh profile so that every run starts cold.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

// Without the background-networking flags Chromium keeps calling hosts that are blocked.
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * A persistent context (service workers and the Cache API behave as in a real profile).
 * `args`: extra Chromium flags; `serviceWorkers: "block"` refuses service workers, as a
 * browser that does not run them.
 */
export async function launch({ viewport = { width: 1200, height: 900 }, args = [], serviceWorkers = "allow" } = {}) {
  const profile = await mkdtemp(join(tmpdir(), "playground-e2e-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [...FLAGS, ...args],
    viewport,
    serviceWorkers,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

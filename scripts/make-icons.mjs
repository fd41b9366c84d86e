// Draws the installed app's icons (public/icons/*.png, committed) from public/favicon.svg
// in headless Chromium, so that the icons follow the favicon. Run again after changing it:
//   node scripts/make-icons.mjs
// "maskable" is the same design with square corners: a phone's launcher cuts its own shape
// out of it, and the letters sit well inside the safe centre circle.
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "../tests/node_modules/playwright-core/index.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const svg = await readFile(join(ROOT, "public/favicon.svg"), "utf8");
const square = svg.replace(/ rx="[^"]*"/, "");
if (square === svg) throw new Error("public/favicon.svg: expected a rounded background rect (rx=...)");
const ICONS = [
  ["icon-192.png", svg, 192],
  ["icon-512.png", svg, 512],
  ["maskable-512.png", square, 512],
];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  for (const [name, source, size] of ICONS) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const sized = source.replace("<svg ", `<svg width="${size}" height="${size}" `);
    await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block}</style>${sized}`);
    await page.screenshot({ path: join(ROOT, "public/icons", name), omitBackground: true });
    await page.close();
    console.log(`public/icons/${name}: ${size}x${size}`);
  }
} finally {
  await browser.close();
}

/**
 * Page load times of the memory browser from a running `gllam serve`: for each view, chromium
 * (playwright-core, /usr/bin/chromium) opens its URL anew (its files revalidated: 304) and the time from navigation
 * start until the view has drawn (the page's "gllam:ready" performance mark, set once its API calls
 * answered and the view is in the DOM) is taken,
 * RUNS times; prints the median and the worst per view as JSON lines.
 * Usage: bun bench/browser/load.ts URL [path ...]
 */
import { chromium } from "playwright-core";

const [base, ...given] = process.argv.slice(2);
if (!base) throw new Error("usage: bun bench/browser/load.ts URL [path ...]");
const paths = given.length > 0 ? given : ["/status", "/timeline", "/contradictions", "/node/caddy", "/graph/caddy?hops=2", "/?q=web+server"];
const runs = Number(process.env.RUNS ?? 7);

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
// One warm-up: the server's first request of each kind prepares its statements.
for (const path of paths) {
  await page.goto(base + path);
  await page.waitForSelector("body[data-ready]");
}
for (const path of paths) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    await page.goto("about:blank");
    await page.goto(base + path);
    await page.waitForSelector("body[data-ready]");
    // The page marks the moment its view is in the DOM, counted from navigation start.
    times.push(await page.evaluate(`performance.getEntriesByName("gllam:ready").at(-1).startTime`));
    // Requests a view makes after drawing (the timeline's sessions) finish before the next load:
    // the server answers one at a time, and a leftover would be timed against the next view.
    await page.waitForLoadState("networkidle");
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ view: path, median_ms: Math.round(times[Math.floor(times.length / 2)]!), max_ms: Math.round(times.at(-1)!), runs }));
}
await browser.close();

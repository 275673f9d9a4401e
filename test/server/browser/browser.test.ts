/**
 * The memory browser in a real headless browser (Debian's chromium driven by playwright-core),
 * against `gllam seed` data served by the compiled binary from an empty folder with a fresh HOME,
 * behind a bearer token the page takes from /?token=. Screenshots of every view land in the
 * test's temp folder (GLLAM_SCREENSHOTS names another folder to keep them).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { freshFolder, runCompiled, startServe, type Served } from "../http/serve-process.ts";

const CHROMIUM = "/usr/bin/chromium";
const AXE = join(import.meta.dir, "../../../node_modules/axe-core/axe.min.js");
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the memory browser tests: no ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);

const TOKEN = "browser-test-token";
const where = freshFolder();
const shots = process.env.GLLAM_SCREENSHOTS ?? join(where.dir, "..", "screenshots");
let served: Served | undefined;
let base: string;
let browser: Browser;
let page: Page;

async function gllam(...args: string[]): Promise<string> {
  const run = await runCompiled(args, where);
  if (run.code !== 0) throw new Error(`gllam ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

const UNREADY = "delete document.body.dataset.ready";

/** Goes to a view and waits until it has drawn (the shell marks <body data-ready> after each render). */
async function open(path: string): Promise<void> {
  await page.goto(base + path);
  await page.waitForSelector("body[data-ready]");
}

/** Waits for the view a click or key led to. */
async function settled(action: () => Promise<unknown>): Promise<void> {
  await page.evaluate(UNREADY);
  await action();
  await page.waitForSelector("body[data-ready]");
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

describe.skipIf(!haveChromium)("the memory browser, in chromium, against the compiled binary", () => {
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    await gllam("seed");
    await gllam("sleep", "--traces", "5", "--seed", "7");
    // Two sources of equal trust disagree on an exclusive relationship: an open contradiction.
    await gllam("fact", "add", "Caddy", "has_state", "healthy", "--source", "ann", "--doc-type", "slack", "--new");
    await gllam("fact", "add", "Caddy", "has_state", "degraded", "--source", "bob", "--doc-type", "slack", "--new");
    served = await startServe(["--token", TOKEN, "--workers", "0"], where);
    base = served.url;
    const turns = [
      ["ops", "Ann", "Caddy now serves Grafana behind the tailnet name", "2025-02-03T10:00:00Z"],
      ["ops", "Bob", "Remember to set Grafana's root_url for the proxy path", "2025-02-03T10:05:00Z"],
      ["ops", "Ann", "Gitea moved behind Caddy as well", "2025-03-15T09:00:00Z"],
      ["standup", "Bob", "Postgres snapshots need the service stopped first", "2025-03-20T08:30:00Z"],
    ].map(([session_id, speaker, content, timestamp]) => ({ session_id, speaker, content, timestamp }));
    const stored = await fetch(`${base}/v1/episodes`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ episodes: turns }) });
    expect(stored.status).toBe(200);
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await served?.stop();
  });

  test("the page asks for the token; /?token= keeps it for the tab", async () => {
    await open("/status");
    expect(await page.locator("h1").textContent()).toBe("Token needed");
    await open(`/status?token=${TOKEN}`);
    expect(page.url()).toBe(`${base}/status`);
    expect(await page.locator("h1").textContent()).toBe("Health");
    expect(await page.locator("#tables").textContent()).toContain("semantic_nodes");
    expect(await page.locator("#sleep").textContent()).toContain("Memory clarity");
    await shot("health");
  });

  test("search for “web server” finds Caddy, with cited facts and the episodes' retrievers", async () => {
    await open("/?q=web+server");
    const focus = page.locator("article.focus h2").first();
    expect(await focus.textContent()).toContain("Caddy");
    expect(await page.locator("article.focus").first().textContent()).toContain("binds_to");
    expect(await page.locator("ol.episodes li").count()).toBeGreaterThan(0);
    expect(await page.locator("ol.episodes").textContent()).toContain("found by:");
    await shot("search");
    // A citation leads to its source: the subject's node page at that link.
    await settled(() => page.locator("article.focus a", { hasText: "[link" }).first().click());
    expect(new URL(page.url()).pathname).toBe("/node/caddy");
  });

  test("Caddy's node page: facts, history, sources; world time before 2025-01-10 has none of its links", async () => {
    await open("/node/caddy");
    const facts = page.locator("#facts tbody tr");
    expect(await facts.count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator("#facts").textContent()).toContain("Tailscale FQDN");
    expect(await page.locator(".history").count()).toBeGreaterThan(0);
    expect(await page.locator("[id^=source-]").count()).toBeGreaterThan(0);
    await shot("node");
    // Home moves the world-time slider to its start (a month before the first fact), then the API is asked again.
    await page.locator("#asOf").focus();
    await page.keyboard.press("Home");
    await page.waitForSelector("#no-facts");
    const asOf = new URL(page.url()).searchParams.get("asOf")!;
    expect(asOf < "2025-01-10").toBe(true);
    expect(await page.locator("#facts-heading").textContent()).toContain(asOf);
    await shot("node-before");
    // The URL reproduces the view.
    await open(`/node/caddy?asOf=${asOf}`);
    expect(await page.locator("#no-facts").count()).toBe(1);
    // System time: before anything was recorded (the seed ran today), memory believed nothing about Caddy.
    await open("/node/caddy");
    await page.locator("#knownAt").focus();
    await page.keyboard.press("Home");
    await page.waitForSelector("#no-facts");
    expect(new URL(page.url()).searchParams.get("knownAt")).not.toBeNull();
    await open("/node/caddy?asOf=2025-01-20");
    expect(await page.locator("#facts").textContent()).toContain("binds_to");
    expect(await page.locator("#facts").textContent()).not.toContain("reverse_proxies_to");
  });

  test("graph: the neighbourhood drawn with labelled links, contested ones marked, and a path", async () => {
    await open("/graph/caddy?hops=2");
    expect(await page.locator("svg g.node").count()).toBeGreaterThan(5);
    expect(await page.locator("svg .edge-label", { hasText: "binds_to" }).count()).toBe(1);
    expect(await page.locator("svg .edge.contested").count()).toBe(2);
    // The challenger of an open contradiction is not believed meanwhile: drawn dashed.
    expect(await page.locator("svg .edge.retired").count()).toBe(1);
    await page.locator("#path-to").fill("PostgreSQL");
    await settled(() => page.locator("#path-to").press("Enter"));
    expect(new URL(page.url()).searchParams.get("to")).toBe("PostgreSQL");
    expect(await page.locator("#path h2").textContent()).toContain("PostgreSQL");
    expect(await page.locator("svg .edge.on-path").count()).toBeGreaterThan(0);
    await shot("graph");
  });

  test("contradictions: both claims with sources and trust; believing one empties the queue", async () => {
    await open("/contradictions");
    const card = page.locator("article.contradiction");
    expect(await card.count()).toBe(1);
    expect(await card.locator(".claim").count()).toBe(2);
    expect(await card.textContent()).toContain("slack/ann");
    expect(await card.textContent()).toContain("slack/bob");
    await shot("contradictions");
    await page.locator("button", { hasText: "Believe “degraded”" }).click();
    await page.waitForSelector("#queue-empty");
    await open("/contradictions?status=resolved");
    expect(await page.locator("article.contradiction .claim .tag.ok").textContent()).toBe("believed");
    await open("/node/caddy");
    const states = page.locator("#facts tbody tr", { hasText: "has_state" }).locator("td:nth-child(2)");
    expect(await states.allTextContents()).toEqual(["degraded"]);
  });

  test("timeline: density by day, sessions, and a day picked filters search", async () => {
    await open("/timeline");
    expect(await page.locator("svg rect.density").count()).toBe(3);
    await page.waitForSelector("#sessions");
    expect(await page.locator("#sessions").textContent()).toContain("standup");
    await shot("timeline");
    await settled(() => page.locator("svg rect.density").first().click());
    expect(new URL(page.url()).searchParams.get("from")).toBe("2025-02-03");
    await page.locator("#window-q").fill("Grafana");
    await settled(() => page.locator("#window-q").press("Enter"));
    const episodes = await page.locator("ol.episodes").textContent();
    expect(episodes).toContain("root_url");
    expect(episodes).not.toContain("Gitea moved");
  });

  test("forget a session from the page: a dry run says what goes, confirming removes it", async () => {
    await open("/session/standup");
    expect(await page.locator("li.episode").count()).toBe(1);
    await page.locator("button", { hasText: "Forget this session" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("1 episodes");
    await shot("forget");
    await settled(() => page.locator("#forget-confirm").click());
    expect(new URL(page.url()).pathname).toBe("/timeline");
    await page.waitForSelector("#sessions");
    expect(await page.locator("#sessions").textContent()).not.toContain("standup");
  });

  test("axe-core finds no accessibility violations in any view", async () => {
    // A page of its own that lets axe's script in (the browser's policy admits only its own scripts).
    const audit = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    await audit.goto(`${base}/?token=${TOKEN}`);
    for (const path of ["/?q=web+server", "/node/caddy", "/graph/caddy?hops=2&to=PostgreSQL", "/contradictions?status=all", "/timeline", "/session/ops", "/status"]) {
      await audit.goto(base + path);
      await audit.waitForSelector("body[data-ready]");
      expect(await audit.locator("h1").first().textContent()).not.toBe("Token needed");
      await audit.addScriptTag({ path: AXE });
      const { violations } = (await audit.evaluate(`axe.run(document, { resultTypes: ["violations"] })`)) as { violations: { id: string; nodes: { target: string[] }[] }[] };
      expect({ path, violations: violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`) }).toEqual({ path, violations: [] });
    }
    await audit.close();
  }, 60_000); // seven pages, each audited by axe: seconds each on a loaded machine

  test("a narrow window still shows the node page", async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await open("/node/caddy");
    expect(await page.locator("#facts").isVisible()).toBe(true);
    await shot("node-narrow");
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

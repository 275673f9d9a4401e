import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir, runGllam } from "../helpers.ts";

const db = join(makeTempDir(), "memory.db");
beforeAll(() => {
  expect(runGllam(["seed", "--db", db]).code).toBe(0);
});

test("gllam context prints the cited Markdown the router assembled", () => {
  const run = runGllam(["context", "is it true that caddy binds to", "tailscale?", "--db", db, "--budget", "300"]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('# Context for "is it true that caddy binds to tailscale?"');
  expect(run.stdout).toContain("intent: verification");
  expect(run.stdout).toMatch(/Caddy \*\*binds_to\*\* Tailscale .*\[link \d+\]/);
});

test("gllam context --json gives the intent, the items and the token estimate; --entity names the focus", () => {
  const run = runGllam(["context", "what runs where", "--db", db, "--entity", "grafana", "--json"]);
  expect(run.code).toBe(0);
  const result = JSON.parse(run.stdout);
  expect(result).toMatchObject({ budget: 1500, scope: "default", unresolvedEntities: [] });
  expect(result.tokens).toBeLessThanOrEqual(1500);
  expect(result.items.length).toBeGreaterThan(0);
  expect(result.items.every((item: { section: string }) => item.section === "facts" || item.section === "paths")).toBe(true);
});

test("gllam context refuses a budget it cannot hold", () => {
  const run = runGllam(["context", "caddy", "--db", db, "--budget", "5"]);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain("budget");
});

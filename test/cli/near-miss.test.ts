import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { consentToNewNodes } from "../../src/cli/node-names.ts";
import type { NameLookup } from "../../src/gllam/types.ts";
import { editDistance, isNearMiss } from "../../src/semantic/names.ts";
import { makeTempDir, runGllam } from "../helpers.ts";

describe("near misses (pure)", () => {
  test.each([
    ["caddy", "kaddy", 1],
    ["caddy", "cadyd", 1], // two neighbours swapped
    ["postgresql", "postgres", 2],
    ["", "abc", 3],
    ["grafana", "grafana", 0],
  ])("editDistance(%j, %j) = %d", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });

  test("a bounded distance stops past the bound", () => expect(editDistance("abcdefgh", "zyxwvuts", 2)).toBe(3));

  test.each([
    ["kaddy", "caddy", true],
    ["grafna", "grafana", true],
    ["prometheus server", "prometheus servers", true],
    ["redis", "gitea", false],
    ["ab", "cd", false],
    ["caddy", "caddy", false], // the same key is a match, not a miss
    ["docker", "tailscale", false],
  ])("isNearMiss(%j, %j) = %p", (a, b, near) => expect(isNearMiss(a, b)).toBe(near));
});

const lookup = (name: string, close: string[]): NameLookup => ({ name, nearMisses: close.map((c) => ({ id: c.toLowerCase(), name: c, type: "service", matched: c.toLowerCase() })) });

describe("consent to a new node beside close names", () => {
  test("no close names: no question, nothing to consent to", async () => {
    const asked: string[] = [];
    expect(await consentToNewNodes([lookup("Zeta", [])], "default", async (q) => (asked.push(q), true))).toBe(false);
    expect(asked).toEqual([]);
  });

  test("nobody to ask (piped): no consent, so the facade refuses the name", async () => {
    expect(await consentToNewNodes([lookup("Kaddy", ["Caddy"])], "default", undefined)).toBe(false);
  });

  test("on a terminal the user is asked once per name; yes consents, no does not", async () => {
    const asked: string[] = [];
    expect(await consentToNewNodes([lookup("Kaddy", ["Caddy"]), lookup("Kaddy", ["Caddy"])], "default", async (q) => (asked.push(q), true))).toBe(true);
    expect(asked).toEqual(['No node is named "Kaddy" in scope default; close: Caddy (caddy). Create a new node "Kaddy"?']);
    expect(await consentToNewNodes([lookup("Kaddy", ["Caddy"])], "default", async () => false)).toBe(false);
  });
});

test("gllam fact add: a near-miss name is refused when piped (exit 1, the close names listed); --new creates it and says so", () => {
  const db = join(makeTempDir(), "near.db");
  // The static tier alone: the bundled model would only slow the seed down.
  const gllam = (...args: string[]) => runGllam([...args, "--db", db, "--embedder", "static"]);
  expect(gllam("seed").code).toBe(0);
  const refused = gllam("fact", "add", "Kaddy", "runs_on", "homelab-01");
  expect(refused).toMatchObject({ code: 1, stdout: "" });
  expect(refused.stderr).toBe('gllam: no node named "Kaddy" in scope default; close: Caddy (caddy). Name one of those, or create "Kaddy" anyway (--new on the command line, allow_new: true in MCP and HTTP) [E_NOT_FOUND]\n');
  expect(gllam("fact", "list", "Kaddy").stderr).toContain('no node named "Kaddy" in scope default (close: Caddy (caddy))');

  const created = gllam("fact", "add", "Kaddy", "runs_on", "homelab-01", "--new", "--json");
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({ action: "inserted", subject: { id: "kaddy", name: "Kaddy", created: true }, object: { id: "homelab-01", created: false }, created: ["kaddy"] });
  // A name far from every other is created as before, and the text output names it.
  expect(gllam("fact", "add", "Vaultwarden", "runs_in", "Docker").stdout).toStartWith("new node vaultwarden (Vaultwarden)\ninserted link");
});

import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, runGllam } from "../helpers.ts";
import { SEED_DOC_TYPES, SEED_HANDLES, SEED_ROLES } from "../semantic/fixtures.ts";

const dir = makeTempDir();

test("fact add / list / history, path, forget and trust explain, end to end", () => {
  const db = join(dir, "facts.db");
  const gllam = (...args: string[]) => runGllam(["--db", db, ...args]);
  const draft = gllam("fact", "add", "TICKET-42", "has_state", "Open", "--source", "dave_drafts", "--doc-type", "draft", "--claim", "I think it is still open");
  expect(draft.stderr).toBe("");
  expect(draft.stdout).toContain("inserted link 1 (has_state, trust 100)");
  const jira = gllam("fact", "add", "ticket 42", "has_state", "Resolved", "--source", "alice", "--doc-type", "jira_resolved", "--caveat", "fixed in 2.3", "--json");
  expect(JSON.parse(jira.stdout)).toMatchObject({ action: "superseded", linkId: 2, conflict: { linkId: 1, trustWeight: 100 }, created: ["resolved"] });

  const list = gllam("fact", "list", "TICKET-42");
  expect(list.stdout).toContain("- TICKET-42 **has_state** Resolved — caveat: fixed in 2.3 (since ");
  expect(list.stdout).toContain("from jira_resolved/alice) [link 2]\n  - prevailed over Open (trust 100) [link 1]");

  const history = gllam("fact", "history", "TICKET-42", "has_state");
  expect(history.stdout).toMatch(/\[link 1\] .* Open {2}trust 100, draft\/dave_drafts, .*\(retired — superseded by link 2/);
  expect(history.stdout).toMatch(/\[link 2\] .* → now {2}Resolved {2}trust \d+, jira_resolved\/alice/);

  expect(gllam("path", "Open", "TICKET-42").stdout).toMatch(/^Open → Resolved → TICKET-42 \(2 hops\)/);

  const refused = gllam("fact", "add", "Resolved", "depends_on", "Resolved");
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("self-loop resolved -[depends_on]-> resolved is not allowed (self_loop_relationships) [E_BAD_INPUT]");

  const forgotten = gllam("forget", "link", "2", "--json");
  expect(JSON.parse(forgotten.stdout)).toMatchObject({ removed: { links: [2, 3] }, restored: [1] });
  expect(gllam("fact", "list", "TICKET-42").stdout).toContain("**has_state** Open");

  const explain = runGllam(["trust", "explain", "--doc-type", "draft", "--source", "dave_drafts", "--text", "asdkjh qwrtzp xcvbnm lkjhgf"]);
  expect(explain.stdout).toContain("W_composite       10  clamp(-200, 10, 1000) (clamped)");
  expect(runGllam(["fact", "add", "a", "r", "b", "--source", "x", "--db", db]).code).toBe(2);
});

test("a --config that sets one key keeps the shipped tables: trust weights and exclusive relationships", () => {
  const config = join(dir, "partial.json");
  writeFileSync(config, JSON.stringify({ allow_user_grilling: false }));
  const db = join(dir, "partial.db");
  const explain = runGllam(["trust", "explain", "--doc-type", "jira_resolved", "--json", "--config", config]);
  expect(JSON.parse(explain.stdout).docType).toMatchObject({ key: "jira_resolved", weight: 800, basis: "table" });
  const add = (state: string) => JSON.parse(runGllam(["fact", "add", "auth-svc", "has_state", state, "--json", "--db", db, "--config", config]).stdout);
  expect(add("up")).toMatchObject({ action: "inserted", linkId: 1 });
  // Equal trust and allow_user_grilling off: the exclusive relationship is settled by recency.
  expect(add("down")).toMatchObject({ action: "superseded", linkId: 2, conflict: { linkId: 1 } });
});

test("fact add without --claim judges no text for coherence", () => {
  const db = join(dir, "claims.db");
  const add = (...args: string[]) => JSON.parse(runGllam(["fact", "add", ...args, "--source", "bob", "--doc-type", "slack", "--json", "--db", db]).stdout);
  expect(add("auth-svc", "has_state", "healthy").trustWeight).toBe(600);
  expect(add("auth-svc", "runs_on", "node-3", "--claim", "The auth service runs on node three since the last migration.").trustWeight).toBe(650);
});

// Each seed spelling of a document type, with a seed role (or handle) beside it: both parts score as the seed says.
test.each(
  SEED_DOC_TYPES.map(([docType, weight], i) => {
    const [flag, [who, adds]] = i < 12 ? ["--role", SEED_ROLES[i % SEED_ROLES.length]!] : ["--source", SEED_HANDLES[i - 12]!];
    return [docType, weight, flag, who, adds] as const;
  }),
)("trust explain --doc-type %j (%d) %s %j (%d)", (docType, weight, flag, who, adds) => {
  const out = runGllam(["trust", "explain", "--doc-type", docType, flag, who, "--json"]);
  expect(out.stderr).toBe("");
  const breakdown = JSON.parse(out.stdout);
  expect([breakdown.docType.weight, breakdown.docType.basis, breakdown.source.weight]).toEqual([weight, "table", adds]);
  expect(breakdown.total).toBe(weight + adds);
});

test("path exits 0 with a path and 1 without one (text and JSON)", () => {
  const db = join(dir, "paths.db");
  const gllam = (...args: string[]) => runGllam(["--db", db, ...args]);
  expect(gllam("fact", "add", "caddy", "runs_on", "host").code).toBe(0);
  expect(gllam("fact", "add", "island", "located_in", "sea").code).toBe(0);
  expect(gllam("path", "caddy", "host")).toMatchObject({ code: 0, stdout: expect.stringContaining("caddy → host (1 hops)") });
  expect(gllam("path", "caddy", "island")).toMatchObject({ code: 1, stdout: expect.stringContaining("no path of at most 4 hops from caddy to island") });
  const json = gllam("path", "caddy", "island", "--json");
  expect(json.code).toBe(1);
  expect(JSON.parse(json.stdout).found).toBe(false);
});

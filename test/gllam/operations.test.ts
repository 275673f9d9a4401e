import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import { parseOperationInput, runOperation, type Operation } from "../../src/gllam/operation.ts";
import { addFact, factHistory, facts, forget, OPERATIONS, plan, recall, remember, stats } from "../../src/gllam/operations.ts";
import { DELIVERY_DOMAIN, DELIVERY_PROBLEM } from "../planning/fixtures.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });

describe("operation inputs: the one schema every face parses with", () => {
  test("names are unique snake_case, each with a summary", () => {
    const names = OPERATIONS.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    for (const op of OPERATIONS) {
      expect(op.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(op.summary.length).toBeGreaterThan(20);
    }
  });

  test.each<[Operation, unknown, RegExp]>([
    [recall, { query: "  " }, /recall input: query: must not be empty/],
    [recall, { query: "x", k: 0 }, /recall input: k: must be an integer in 1..100/],
    [recall, { query: "x", as_of: "not a date" }, /recall input: as_of: must be a date/],
    [remember, { turns: [] }, /remember input: turns: must hold at least one turn/],
    [remember, { turns: [{ session_id: "s", content: "" }] }, /remember input: turns.0.content: must not be empty/],
    [addFact, { subject: "a", relationship: "rel", object: "b", trust: 5000 }, /add_fact input: trust/],
    [addFact, { subject: "a", relationship: "rel", object: "b", scope: "a/b" }, /add_fact input: scope: must not contain "\/"/],
    [facts, { node: "" }, /facts input: node: must not be empty/],
    [plan, { domain: "(define)", problem: "x", timeout: -1 }, /plan input: timeout: must be seconds/],
  ])("%# refuses bad input, naming the field", async (operation, raw, message) => {
    await expectGllamError(() => parseOperationInput(operation, raw), "E_BAD_INPUT", message);
  });

  test("dates arrive as epoch ms or ISO-8601 and leave as epoch ms", () => {
    const parsed = parseOperationInput(recall, { query: "x", as_of: "2025-01-10", window: { start: 0, end: "2025-02-01T00:00:00Z" } });
    expect(parsed).toMatchObject({ as_of: Date.UTC(2025, 0, 10), window: { start: 0, end: Date.UTC(2025, 1, 1) }, scope: "default", entities: [] });
  });
});

describe("operations against a real file", () => {
  test("remember appends turns to their session; the same turn sent again is stored once", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    const first = await runOperation(gllam, remember, { turns: [{ session_id: "chat", speaker: "Ann", content: "the ferry leaves at nine", timestamp: "2024-06-01T09:00:00Z" }] });
    const retried = await runOperation(gllam, remember, { turns: [{ session_id: "chat", speaker: "Ann", content: "the ferry leaves at nine", timestamp: "2024-06-01T09:00:00Z" }] });
    const next = await runOperation(gllam, remember, { turns: [{ session_id: "chat", speaker: "Bo", content: "then we take the 8:30 bus" }, { session_id: "chat", speaker: "Ann", content: "fine" }] });
    expect(first.inserted).toBe(1);
    expect(retried).toMatchObject({ inserted: 0, duplicates: 1, ids: first.ids });
    expect(next.inserted).toBe(2);
    const turns = gllam.getRecentEpisodes(10, { sessionId: "chat" }).toSorted((a, b) => a.seq - b.seq);
    expect(turns.map((t) => [t.seq, t.speaker])).toEqual([[0, "Ann"], [1, "Bo"], [2, "Ann"]]);
    expect(remember.toText(next)).toContain("stored 2 new turn(s)");
    gllam.close();
  });

  test("add_fact resolves names in the scope, refuses a near miss unless allow_new, and facts / fact_history read it back", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    const added = await runOperation(gllam, addFact, { subject: "Caddy", relationship: "binds_to", object: "Tailscale", caveats: "use the FQDN", valid_from: "2025-01-10", scope: "lab" });
    expect(added).toMatchObject({ action: "inserted", subject: { id: "lab/caddy", created: true }, object: { id: "lab/tailscale", created: true } });
    await expectGllamError(runOperation(gllam, addFact, { subject: "Kaddy", relationship: "runs_on", object: "Tailscale", scope: "lab" }), "E_NOT_FOUND", /close: Caddy \(lab\/caddy\)/);
    expect(gllam.lookUpName("Kaddy", { scope: "lab" }).node).toBeUndefined();
    const made = await runOperation(gllam, addFact, { subject: "Kaddy", relationship: "runs_on", object: "Tailscale", scope: "lab", allow_new: true });
    expect(made.subject).toMatchObject({ id: "lab/kaddy", created: true });

    const now = await runOperation(gllam, facts, { node: "caddy", scope: "lab" });
    expect(now.facts.map((f) => [f.relationship, f.otherName, f.caveats])).toEqual([["binds_to", "Tailscale", "use the FQDN"]]);
    const before = await runOperation(gllam, facts, { node: "Caddy", scope: "lab", as_of: "2025-01-01" });
    expect(before.facts).toEqual([]);
    expect(facts.toText(now)).toContain("Caddy **binds_to** Tailscale — caveat: use the FQDN");
    const history = await runOperation(gllam, factHistory, { subject: "Caddy", relationship: "binds_to", scope: "lab" });
    expect(history.versions.map((v) => v.link.id)).toEqual([added.linkId]);
    // Another scope sees none of it.
    await expectGllamError(runOperation(gllam, facts, { node: "Caddy" }), "E_NOT_FOUND", /no node named "Caddy" in scope default$/);

    const gone = await runOperation(gllam, forget, { node: "Kaddy", scope: "lab" });
    expect(gone.removed.nodes).toContain("lab/kaddy");
    expect(forget.toText(gone)).toContain("nodes: lab/kaddy");
    gllam.close();
  });

  test("plan solves PDDL text, names the bad place in text it cannot parse; stats counts rows", async () => {
    const gllam = await openTempGllam(dir, { embedder: hash });
    const solved = await runOperation(gllam, plan, { domain: DELIVERY_DOMAIN, problem: DELIVERY_PROBLEM });
    expect(solved.status).toBe("solved");
    expect(plan.toText(solved)).toMatch(/^\(drive v1 depot a\)\n[\s\S]*; cost = \d+\n$/);
    await expectGllamError(runOperation(gllam, plan, { domain: "(define (domain d) (:requirements :fluents))", problem: DELIVERY_PROBLEM }), "E_BAD_INPUT", /domain\.pddl:1:\d+/);
    await runOperation(gllam, remember, { turns: [{ session_id: "s", content: "hello" }] });
    const figures = await runOperation(gllam, stats, {});
    expect(figures.tables.episodes).toBe(1);
    expect(stats.toText(figures)).toMatch(/^database {3}/);
    gllam.close();
  });
});

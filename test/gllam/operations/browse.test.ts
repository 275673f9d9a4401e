import { expect, test } from "bun:test";
import { join } from "node:path";
import { createEmbedderFromSpec } from "../../../src/embed/spec.ts";
import { runOperation } from "../../../src/gllam/operation.ts";
import {
  addFact,
  contradictions,
  episodeDensity,
  facts,
  forgetDryRun,
  lastSleepCycle,
  neighbourhood,
  nodeHistory,
  path,
  remember,
  resolveContradiction,
  sessionEpisodes,
  sessions,
  sourceTrust,
} from "../../../src/gllam/operations.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../../helpers.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../../fixtures/hash-embedder.ts") });
const wiki = { handle: "ann", doc_type: "confluence_page" };
const chat = { handle: "ann", doc_type: "confluence_page" };

test("a node's history, neighbourhood and paths, as the memory browser reads them", async () => {
  const gllam = await openTempGllam(dir, { embedder: hash });
  await runOperation(gllam, addFact, { subject: "Caddy", relationship: "located_in", object: "Atlas", valid_from: "2025-01-10", source: wiki });
  await runOperation(gllam, addFact, { subject: "Caddy", relationship: "located_in", object: "Zephyr", valid_from: "2025-06-01", source: wiki });
  await runOperation(gllam, addFact, { subject: "Zephyr", relationship: "located_in", object: "Rack B", valid_from: "2025-06-01" });

  const history = await runOperation(gllam, nodeHistory, { node: "caddy" });
  expect(history.relationships.map((r) => [r.relationship, r.versions.map((v) => [v.targetName, v.status])])).toEqual([
    ["located_in", [["Atlas", "ended"], ["Zephyr", "active"]]],
  ]);
  expect(nodeHistory.toText(history)).toContain("Caddy located_in:");

  const now = await runOperation(gllam, neighbourhood, { node: "Caddy", hops: 2 });
  const byName = new Map(now.nodes.map((n) => [n.name, n.hop]));
  expect(Object.fromEntries(byName)).toEqual({ Caddy: 0, Atlas: 1, Zephyr: 1, "Rack B": 2 });
  expect(now.links.find((l) => l.targetId === "atlas")?.status).toBe("ended");
  const before = await runOperation(gllam, neighbourhood, { node: "Caddy", as_of: "2025-01-01" });
  expect(before.nodes.map((n) => n.name)).toEqual(["Caddy"]);
  expect(before.links).toEqual([]);
  await expectGllamError(() => runOperation(gllam, neighbourhood, { node: "Caddy", hops: 3 }), "E_BAD_INPUT", /hops/);

  const found = await runOperation(gllam, path, { from: "Caddy", to: "Rack B" });
  expect(found.nodes.map((n) => n.name)).toEqual(["Caddy", "Zephyr", "Rack B"]);
  expect(path.toText(found)).toContain("Caddy → Zephyr → Rack B (2 hops)");
  const none = await runOperation(gllam, path, { from: "Caddy", to: "Rack B", as_of: "2025-03-01" });
  expect(none.found).toBe(false);
  gllam.close();
});

test("the contradictions queue shows both claims with sources and trust; resolving one empties the queue", async () => {
  const gllam = await openTempGllam(dir, { embedder: hash });
  const first = await runOperation(gllam, addFact, { subject: "Payroll", relationship: "has_state", object: "Green", source: wiki, scope: "q" });
  const second = await runOperation(gllam, addFact, { subject: "Payroll", relationship: "has_state", object: "Red", source: chat, scope: "q" });
  expect(second.contradictionId).toBeDefined();

  const queue = await runOperation(gllam, contradictions, { scope: "q" });
  expect(queue).toHaveLength(1);
  expect(queue[0]!.status).toBe("open");
  expect(queue[0]!.claims.map((c) => [c.id, c.objectName, c.source?.handle])).toEqual([
    [first.linkId, "Green", "ann"],
    [second.linkId, "Red", "ann"],
  ]);
  expect((await runOperation(gllam, neighbourhood, { node: "Payroll", scope: "q" })).links.every((l) => l.contradictions.includes(second.contradictionId!))).toBe(true);

  const resolved = await runOperation(gllam, resolveContradiction, { contradiction: second.contradictionId!, winner_link: second.linkId, scope: "q" });
  expect(resolved.loserLinkIds).toEqual([first.linkId]);
  expect(await runOperation(gllam, contradictions, { scope: "q", status: "open" })).toEqual([]);
  expect((await runOperation(gllam, contradictions, { scope: "q" }))[0]).toMatchObject({ status: "resolved", winnerLinkId: second.linkId });
  await expectGllamError(() => runOperation(gllam, resolveContradiction, { contradiction: second.contradictionId!, winner_link: second.linkId, scope: "q" }), "E_BAD_INPUT", /already resolved/);

  const trust = await runOperation(gllam, sourceTrust, { source: "ann", scope: "q" });
  expect(trust.total).toBe(trust.source.trustWeight);
  expect(trust.parts.docType.key).toBe("confluence_page");
  expect(trust.claims).toEqual({ active: 1, retired: 1 });
  expect(sourceTrust.toText(trust)).toContain("W_composite");
  gllam.close();
});

test("episode density, sessions and a forget dry run that changes nothing", async () => {
  const gllam = await openTempGllam(dir, { embedder: hash });
  await runOperation(gllam, remember, {
    scope: "t",
    turns: [
      { session_id: "s1", speaker: "Ann", content: "Caddy serves the wiki", timestamp: "2025-01-10T09:00:00Z" },
      { session_id: "s1", speaker: "Bo", content: "and Grafana too", timestamp: "2025-01-10T17:00:00Z" },
      { session_id: "s2", speaker: "Ann", content: "moved Caddy to Zephyr", timestamp: "2025-01-12T08:00:00Z" },
      { session_id: "s2", speaker: "Ann", content: "a note without a date" },
    ],
  });
  const density = await runOperation(gllam, episodeDensity, { scope: "t" });
  expect(density.days).toEqual([
    { day: Date.UTC(2025, 0, 10), episodes: 2 },
    { day: Date.UTC(2025, 0, 12), episodes: 1 },
  ]);
  expect(density.undated).toBe(1);
  expect((await runOperation(gllam, episodeDensity, { scope: "t", start: "2025-01-11" })).total).toBe(1);

  const list = await runOperation(gllam, sessions, { scope: "t" });
  expect(list.map((s) => [s.id, s.episodes])).toEqual([
    ["s1", 2],
    ["s2", 2],
  ]);
  expect((await runOperation(gllam, sessionEpisodes, { session: "s1", scope: "t" })).map((e) => e.speaker)).toEqual(["Bo", "Ann"]);

  const before = gllam.stats().tables;
  const dry = await runOperation(gllam, forgetDryRun, { session: "s1", scope: "t" });
  expect(dry.removed.episodes).toHaveLength(2);
  expect(dry.removed.sessions).toEqual(["s1"]);
  expect(forgetDryRun.toText(dry)).toStartWith("dry run, nothing removed");
  expect(gllam.stats().tables).toEqual(before);
  expect((await runOperation(gllam, facts, { node: "x", scope: "t" }).catch((e) => e)).code).toBe("E_NOT_FOUND");
  gllam.close();
});

test("last_sleep_cycle reads the report the last sleep cycle of the scope stored", async () => {
  const gllam = await openTempGllam(dir, { embedder: hash });
  expect(await runOperation(gllam, lastSleepCycle, {})).toBeNull();
  await runOperation(gllam, addFact, { subject: "Caddy", relationship: "runs_on", object: "Atlas" });
  const report = await gllam.enterMemorySleepCycle(3, { seed: 1 });
  const last = await runOperation(gllam, lastSleepCycle, {});
  expect(last).toMatchObject({ status: "done", report: { jobId: report.jobId, seed: 1, memoryClarityScore: report.memoryClarityScore, traceCount: report.traces.length } });
  expect(lastSleepCycle.toText(last)).toContain("memory clarity");
  expect(await runOperation(gllam, lastSleepCycle, { scope: "elsewhere" })).toBeNull();
  gllam.close();
});

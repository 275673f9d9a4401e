/** Refused input: a GllamError naming the offending value, and nothing written. */
import { expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import type { GllamErrorCode } from "../../src/engine/errors.ts";
import { expectGllamError } from "../helpers.ts";
import { snapshot, useGraphs } from "./fixtures.ts";

const graph = useGraphs();

test.each<[string, (g: Gllam) => unknown, GllamErrorCode, RegExp]>([
  ["unknown target node", (g) => g.addEdge({ sourceId: "a", targetId: "ghost", relationship: "r" }), "E_NOT_FOUND", /no node ghost/],
  ["unknown source node", (g) => g.addEdge({ sourceId: "ghost", targetId: "a", relationship: "r" }), "E_NOT_FOUND", /no node ghost/],
  ["forbidden self-loop", (g) => g.addEdge({ sourceId: "a", targetId: "a", relationship: "depends_on" }), "E_BAD_INPUT", /self-loop a -\[depends_on\]-> a/],
  ["valid_until before valid_from", (g) => g.addEdge({ sourceId: "a", targetId: "b", relationship: "r", validFrom: "2025-01-02", validUntil: "2025-01-01" }), "E_BAD_INPUT", /validUntil must not be before validFrom/],
  ["trust above 1000", (g) => g.addEdge({ sourceId: "a", targetId: "b", relationship: "r", trustWeight: 1001 }), "E_BAD_INPUT", /trustWeight.*1001|trustWeight/],
  ["trust below 10", (g) => g.addEdge({ sourceId: "a", targetId: "b", relationship: "r", trustWeight: 9 }), "E_BAD_INPUT", /trustWeight/],
  ["unknown relationship in strict mode", (g) => g.addEdge({ sourceId: "a", targetId: "b", relationship: "frobnicates" }), "E_BAD_INPUT", /unknown relationship "frobnicates"/],
  ["invalidation before the link began", (g) => g.invalidateObsoleteEdge(1, 0), "E_BAD_INPUT", /cannot end it before/],
  ["invalidation of an unknown link", (g) => g.invalidateObsoleteEdge(999, 0), "E_NOT_FOUND", /no link 999/],
  ["cascade from an unknown node", (g) => g.invalidateDependentCrossCuttingLinks("ghost", 0), "E_NOT_FOUND", /no node ghost/],
  ["cascade depth out of range", (g) => g.invalidateDependentCrossCuttingLinks("a", 0, { maxDepth: 0 }), "E_BAD_INPUT", /maxDepth/],
  ["path to an unknown node", (g) => g.findMultiHopPath("a", "ghost"), "E_NOT_FOUND", /no node ghost/],
  ["path with too many hops", (g) => g.findMultiHopPath("a", "b", { maxHops: 50 }), "E_BAD_INPUT", /maxHops/],
  ["compaction of an unknown node", (g) => g.compactNodeCaveats("ghost"), "E_NOT_FOUND", /no node ghost/],
  ["resolving an unknown contradiction", (g) => g.resolveContradiction("ghost", 1), "E_NOT_FOUND", /no contradiction ghost/],
  ["a source without document type", (g) => g.upsertSource({ docType: "  " }), "E_BAD_INPUT", /docType/],
  ["a container entry without author", (g) => g.attributeContainerEntryToSource("jira", " ", "", "text"), "E_BAD_INPUT", /handle is empty/],
])("%s", async (_, action, code, message) => {
  const gllam = await graph(["a", "b"], { strict_relationships: true, relationship_vocabulary: ["r", "runs_on"] });
  gllam.addEdge({ sourceId: "a", targetId: "b", relationship: "runs_on", validFrom: 1000 });
  const before = snapshot(gllam);
  await expectGllamError(() => action(gllam), code, message);
  expect(snapshot(gllam)).toEqual(before);
  gllam.close();
});

test("self-loops the configuration allows are stored", async () => {
  const gllam = await graph(["a"], { self_loop_relationships: ["monitors"] });
  expect(gllam.addEdge({ sourceId: "a", targetId: "a", relationship: "monitors" }).action).toBe("inserted");
  gllam.close();
});

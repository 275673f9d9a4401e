/** The seed's own examples, end to end on a real SQLite file. */
import { describe, expect, test } from "bun:test";
import { isExpansionSuppressed } from "../../src/semantic/fallacies.ts";
import { addSource, count, day, useGraphs } from "./fixtures.ts";

const graph = useGraphs();

describe("Jira Resolved (W=900) vs Email Draft (W=100) on has_state", () => {
  test("the draft first, then the resolved ticket: the draft is expired and joined to the winner", async () => {
    const gllam = await graph(["TICKET-42", "Open", "Resolved"]);
    addSource(gllam, "email-draft", 100);
    addSource(gllam, "jira-resolved", 900);
    const draft = gllam.addEdge({ sourceId: "ticket-42", targetId: "open", relationship: "has_state", originSourceId: "email-draft" }, { now: 1_000 });
    expect(draft).toMatchObject({ action: "inserted", trustWeight: 100 });
    const jira = gllam.addEdge({ sourceId: "ticket-42", targetId: "resolved", relationship: "has_state", originSourceId: "jira-resolved" }, { now: 2_000 });
    expect(jira).toMatchObject({
      action: "superseded",
      trustWeight: 900,
      conflict: { linkId: draft.linkId, targetId: "open", trustWeight: 100 },
      endedLinkIds: [draft.linkId],
      reason: expect.stringContaining("higher trust (trust 900 vs 100)"),
    });
    const old = gllam.linkHistory("ticket-42", "has_state").find((v) => v.link.id === draft.linkId)!;
    expect(old.link).toMatchObject({ expiredAt: 2_000, validUntil: 2_000, endReason: "superseded", supersededBy: jira.linkId });
    expect(old.status).toBe("retired");
    expect(gllam.activeLinks("ticket-42", { asOf: 3_000 }).map((l) => l.targetId)).toEqual(["resolved"]);
    const resolution = gllam.activeLinks("open", { asOf: 3_000 }).find((l) => l.relationship === "resolves_conflict")!;
    expect(resolution).toMatchObject({ sourceId: "open", targetId: "resolved", metadata: { winnerLinkId: jira.linkId, loserLinkId: draft.linkId, winnerWeight: 900, loserWeight: 100 } });
    expect(count(gllam, "semantic_links", "relationship = 'has_state'")).toBe(2);
    gllam.close();
  });

  test("the resolved ticket first: the later draft is rejected, stored expired, never deleted", async () => {
    const gllam = await graph(["TICKET-42", "Open", "Resolved"]);
    const jira = gllam.addEdge({ sourceId: "ticket-42", targetId: "resolved", relationship: "has_state", trustWeight: 900 }, { now: 1_000 });
    const draft = gllam.addEdge({ sourceId: "ticket-42", targetId: "open", relationship: "has_state", trustWeight: 100 }, { now: 2_000 });
    expect(draft).toMatchObject({ action: "rejected", trustWeight: 100, conflict: { linkId: jira.linkId, trustWeight: 900 }, reason: expect.stringContaining("lower trust") });
    expect(gllam.linkHistory("ticket-42", "has_state").map((v) => [v.targetName, v.status, v.link.endReason])).toEqual([
      ["Resolved", "active", null],
      ["Open", "retired", "superseded"],
    ]);
    gllam.close();
  });
});

describe("equal trust weights", () => {
  test("with grilling: a contradiction node joined to both claims; resolving it keeps one believed", async () => {
    const gllam = await graph(["db:Main DB", "pg15:PostgreSQL 15", "pg16:PostgreSQL 16"]);
    const first = gllam.addEdge({ sourceId: "db", targetId: "pg15", relationship: "version_is", trustWeight: 600 }, { now: 1_000 });
    const second = gllam.addEdge({ sourceId: "db", targetId: "pg16", relationship: "version_is", trustWeight: 600 }, { now: 2_000 });
    expect(second).toMatchObject({ action: "contradiction", contradictionId: `contradiction:${first.linkId}:${second.linkId}`, conflict: { trustWeight: 600 } });
    const node = gllam.getNode(second.contradictionId!)!;
    expect(node).toMatchObject({ type: "contradiction", metadata: { status: "open", linkIds: [first.linkId, second.linkId] } });
    const contradicts = gllam.activeLinks(node.id, { asOf: 3_000 }).filter((l) => l.relationship === "contradicts");
    expect(contradicts.map((l) => [l.targetId, l.metadata.claimLinkId])).toEqual([
      ["pg15", first.linkId],
      ["pg16", second.linkId],
    ]);
    // The incumbent stays believed, contested; the challenger waits.
    const facts = gllam.describeFacts("db", { asOf: 3_000 });
    expect(facts.map((f) => f.otherName)).toEqual(["PostgreSQL 15"]);
    expect(facts[0]!.contradictions).toEqual([{ id: node.id, name: node.name, status: "open", linkIds: [first.linkId, second.linkId] }]);
    expect(facts[0]!.supersedes).toEqual([{ linkId: second.linkId, targetName: "PostgreSQL 16", trustWeight: 600, endReason: "contradicted" }]);

    const resolved = gllam.resolveContradiction(node.id, second.linkId);
    expect(resolved).toMatchObject({ winnerLinkId: second.linkId, loserLinkIds: [first.linkId] });
    expect(gllam.activeLinks("db").map((l) => l.targetId)).toEqual(["pg16"]);
    expect(gllam.getNode(node.id)!.metadata.status).toBe("resolved");
    gllam.close();
  });

  test("without grilling: the more recent claim wins", async () => {
    const gllam = await graph(["db", "pg15", "pg16"], { allow_user_grilling: false });
    const first = gllam.addEdge({ sourceId: "db", targetId: "pg15", relationship: "version_is", trustWeight: 600 }, { now: 1_000 });
    const second = gllam.addEdge({ sourceId: "db", targetId: "pg16", relationship: "version_is", trustWeight: 600 }, { now: 2_000 });
    expect(second).toMatchObject({ action: "superseded", endedLinkIds: [first.linkId], reason: expect.stringContaining("resolved by recency") });
    expect(count(gllam, "semantic_nodes", "type = 'contradiction'")).toBe(0);
    expect(gllam.activeLinks("db", { asOf: 3_000 }).map((l) => l.targetId)).toEqual(["pg16"]);
    gllam.close();
  });
});

describe("temporal succession and history", () => {
  test("a later valid_from succeeds the believed version; each version answers its own time", async () => {
    const gllam = await graph(["Caddy", "v1:Caddy 1", "v2:Caddy 2", "v0:Caddy 0.9", "v05:Caddy 0.5"]);
    const v1 = gllam.addEdge({ sourceId: "caddy", targetId: "v1", relationship: "version_is", validFrom: day("2024-01-01"), trustWeight: 900 }, { now: day("2024-01-02") });
    const v2 = gllam.addEdge({ sourceId: "caddy", targetId: "v2", relationship: "version_is", validFrom: day("2025-01-01"), trustWeight: 100 }, { now: day("2025-01-02") });
    expect(v2).toMatchObject({ action: "succeeded", endedLinkIds: [v1.linkId], conflict: { linkId: v1.linkId, trustWeight: 900 } });
    // A closed interval wholly before: history. An open one before: held until the next began.
    const v0 = gllam.addEdge({ sourceId: "caddy", targetId: "v0", relationship: "version_is", validFrom: day("2023-06-01"), validUntil: day("2023-12-01") });
    expect(v0).toMatchObject({ action: "inserted", history: true });
    const v05 = gllam.addEdge({ sourceId: "caddy", targetId: "v05", relationship: "version_is", validFrom: day("2023-01-01") });
    expect(v05).toMatchObject({ action: "inserted", history: true });
    const at = (iso: string) => gllam.activeLinks("caddy", { asOf: day(iso) }).map((l) => l.targetId);
    expect(at("2023-03-01")).toEqual(["v05"]);
    expect(at("2023-07-01")).toEqual(["v0"]);
    expect(at("2024-06-01")).toEqual(["v1"]);
    expect(at("2025-06-01")).toEqual(["v2"]);
    // What the engine believed in mid-2024 about 2025: version 1, open-ended.
    expect(gllam.asKnownAt("caddy", { knownAt: day("2024-06-01"), asOf: day("2025-06-01") }).map((l) => [l.targetId, l.validUntil])).toEqual([["v1", null]]);
    const history = gllam.linkHistory("caddy", "version_is");
    expect(history.map((v) => [v.targetName, v.status, v.link.endReason])).toEqual([
      ["Caddy 0.5", "ended", "succeeded"],
      ["Caddy 0.9", "ended", "history"],
      ["Caddy 1", "ended", "succeeded"],
      ["Caddy 2", "active", null],
    ]);
    expect(history[2]!.ended).toContain(`succeeded by link ${v2.linkId}`);
    expect(history[2]!.events).toMatchObject([{ kind: "ended", oldValidUntil: null, newValidUntil: day("2025-01-01"), byLinkId: v2.linkId }]);
    gllam.close();
  });

  test("where was X located in March 2024: plain SQL over the links", async () => {
    const gllam = await graph(["laptop", "paris", "berlin"]);
    gllam.addEdge({ sourceId: "laptop", targetId: "paris", relationship: "located_in", validFrom: day("2024-01-01") });
    gllam.addEdge({ sourceId: "laptop", targetId: "berlin", relationship: "located_in", validFrom: day("2024-05-01") });
    const row = gllam
      .dbRO()
      .query(
        `SELECT target_id AS place FROM semantic_links WHERE source_id = 'laptop' AND relationship = 'located_in'
           AND expired_at IS NULL AND valid_from <= ?1 AND (valid_until IS NULL OR valid_until > ?1)`,
      )
      .all(day("2024-03-15"));
    expect(row).toEqual([{ place: "paris" }]);
    gllam.close();
  });

  test("invalidateObsoleteEdge ends a link in world time and keeps it", async () => {
    const gllam = await graph(["caddy", "host"]);
    const { linkId } = gllam.addEdge({ sourceId: "caddy", targetId: "host", relationship: "runs_on", validFrom: day("2024-01-01") });
    expect(gllam.invalidateObsoleteEdge(linkId, day("2024-06-01"))).toMatchObject({ changed: true, validUntil: day("2024-06-01") });
    expect(gllam.invalidateObsoleteEdge(linkId, day("2024-09-01"))).toMatchObject({ changed: false, reason: "already ended by then" });
    expect(gllam.activeLinks("caddy", { asOf: day("2024-07-01") })).toEqual([]);
    expect(gllam.activeLinks("caddy", { asOf: day("2024-03-01") }).map((l) => l.endReason)).toEqual(["invalidated"]);
    gllam.close();
  });
});

describe("fallacies in claims", () => {
  test("post_hoc: 'deployed, then rebooted, so it crashed' is stored as happened_before with a fallacy node", async () => {
    const gllam = await graph(["Caddy", "server:the server"]);
    const result = gllam.addEdge({
      sourceId: "caddy",
      targetId: "server",
      relationship: "causes",
      claim: "We deployed Caddy, then the server rebooted, so Caddy crashed the server",
    });
    expect(result).toMatchObject({ action: "inserted", relationship: "happened_before", fallacies: [{ kind: "post_hoc", nodeId: `fallacy:${result.linkId}:post_hoc` }] });
    expect(result.notes).toContain("post_hoc: causes downgraded to happened_before");
    const [link] = gllam.activeLinks("caddy").filter((l) => l.direction === "out");
    expect(link).toMatchObject({ relationship: "happened_before", metadata: { claimedRelationship: "causes", fallacies: [{ kind: "post_hoc" }] } });
    expect(gllam.getNode(`fallacy:${result.linkId}:post_hoc`)).toMatchObject({ type: "fallacy", metadata: { kind: "post_hoc", linkId: result.linkId } });
    const flag = gllam.activeLinks("caddy").find((l) => l.relationship === "flags_fallacy")!;
    expect(flag).toMatchObject({ sourceId: `fallacy:${result.linkId}:post_hoc`, targetId: "caddy", metadata: { claimLinkId: result.linkId } });
    gllam.close();
  });

  test("cum_hoc refuses a hard depends_on without proof, keeps it with proof", async () => {
    const gllam = await graph(["cpu", "logins"]);
    const claim = "CPU usage rose whenever user logins increased";
    expect(gllam.addEdge({ sourceId: "cpu", targetId: "logins", relationship: "depends_on", claim }).relationship).toBe("correlates_with");
    const proven = gllam.addEdge({ sourceId: "cpu", targetId: "logins", relationship: "depends_on", claim, proof: "Load test: 10k synthetic logins drove CPU to 90% with nothing else running" });
    expect(proven).toMatchObject({ relationship: "depends_on", fallacies: [{ kind: "cum_hoc" }] });
    gllam.close();
  });

  test("straw_man may not override an established claim without a rationale that addresses it", async () => {
    const gllam = await graph(["policy:Deploy policy", "frozen:Friday freeze", "open:Deploy any day"]);
    const established = gllam.addEdge({ sourceId: "policy", targetId: "frozen", relationship: "has_state", trustWeight: 500 });
    const claim = "So you're saying we should never ship anything, ever";
    const refused = gllam.addEdge({ sourceId: "policy", targetId: "open", relationship: "has_state", trustWeight: 800, claim, rationale: "shipping matters" });
    expect(refused).toMatchObject({ action: "rejected", reason: expect.stringContaining("straw man"), fallacies: [{ kind: "straw_man" }] });
    expect(gllam.activeLinks("policy").filter((l) => l.relationship === "has_state").map((l) => l.id)).toEqual([established.linkId]);
    const argued = gllam.addEdge({
      sourceId: "policy",
      targetId: "open",
      relationship: "has_state",
      trustWeight: 800,
      claim,
      caveats: "after the CI gate",
      rationale: "The Friday freeze predates automated rollbacks, which now make Friday deploys safe",
    });
    expect(argued).toMatchObject({ action: "superseded", endedLinkIds: [established.linkId] });
    gllam.close();
  });

  test("ad_hominem keeps the claim and flags an attack link from the claimant's source", async () => {
    const gllam = await graph(["db", "pg15", "pg16"]);
    const bob = gllam.attributeContainerEntryToSource("slack", "bob", "Bob", "Postgres 15 is what runs in production today.");
    const eve = gllam.attributeContainerEntryToSource("slack", "eve", "Eve", "Bob is clueless, the database is on 16.");
    gllam.addEdge({ sourceId: "db", targetId: "pg15", relationship: "version_is", originSourceId: bob.sourceId });
    const attack = gllam.addEdge({ sourceId: "db", targetId: "pg16", relationship: "version_is", originSourceId: eve.sourceId, trustWeight: 10, claim: "Bob is clueless, the database is on 16." });
    expect(attack.fallacies.map((f) => f.kind)).toEqual(["ad_hominem"]);
    expect(attack.action).toBe("rejected");
    const edge = gllam.activeLinks(eve.sourceId).find((l) => l.relationship === "attacks_source")!;
    expect(edge).toMatchObject({ sourceId: eve.sourceId, targetId: bob.sourceId, metadata: { claimLinkId: attack.linkId } });
    expect(gllam.linkHistory("db", "version_is").map((v) => v.link.id)).toContain(attack.linkId);
    gllam.close();
  });

  test("begging_question and false_dilemma mark the claim for planners and rules", async () => {
    const gllam = await graph(["Postgres", "reliable", "migration", "delete:delete the database"]);
    const circular = gllam.addEdge({ sourceId: "postgres", targetId: "reliable", relationship: "is", claim: "Postgres is reliable because Postgres never fails" });
    expect(circular.fallacies.map((f) => f.kind)).toEqual(["begging_question"]);
    const dilemma = gllam.addEdge({ sourceId: "migration", targetId: "delete", relationship: "must_follow_rule", claim: "Either we delete the database or the migration fails" });
    expect(dilemma).toMatchObject({ relationship: "presents_option", fallacies: [{ kind: "false_dilemma" }] });
    const links = new Map(gllam.activeLinks("postgres").concat(gllam.activeLinks("migration")).map((l) => [l.id, l]));
    expect(links.get(circular.linkId)!.metadata.plannerSkip).toBe(true);
    expect(links.get(dilemma.linkId)!.metadata.excludeFromRules).toBe(true);
    gllam.close();
  });

  test("red_herring during an open contradiction suppresses expansion through the claim", async () => {
    const gllam = await graph(["db", "pg15", "pg16", "coffee:the coffee machine", "kitchen"]);
    gllam.addEdge({ sourceId: "db", targetId: "pg15", relationship: "version_is" });
    gllam.addEdge({ sourceId: "db", targetId: "pg16", relationship: "version_is" });
    gllam.addEdge({ sourceId: "coffee", targetId: "kitchen", relationship: "located_in" });
    const herring = gllam.addEdge({ sourceId: "db", targetId: "coffee", relationship: "mentioned_with", claim: "But what about the coffee machine, it keeps breaking" });
    expect(herring.fallacies.map((f) => f.kind)).toEqual(["red_herring"]);
    const link = gllam.activeLinks("db").find((l) => l.id === herring.linkId)!;
    expect(isExpansionSuppressed(link)).toBe(true);
    expect(gllam.findMultiHopPath("db", "kitchen").found).toBe(false);
    expect(gllam.findMultiHopPath("db", "kitchen", { includeSuppressed: true })).toMatchObject({ found: true, hops: 2 });
    gllam.close();
  });

  test("equivocation splits the ambiguous node for the claim's source", async () => {
    const gllam = await graph(["service:Service", "nightly:nightly restart"]);
    const source = gllam.attributeContainerEntryToSource("confluence", "carol_lead", "Carol", "ops notes");
    const result = gllam.addEdge({
      sourceId: "service",
      targetId: "nightly",
      relationship: "undergoes",
      originSourceId: source.sourceId,
      claim: "The systemd service restarts nightly, and the cloud service is billed per request",
    });
    expect(result.fallacies.map((f) => f.kind)).toEqual(["equivocation"]);
    const split = gllam.getNode("service~systemd")!;
    expect(split).toMatchObject({ name: "Service (systemd)", metadata: { senseOf: "service", sense: "systemd" } });
    const moved = gllam.activeLinks("service~systemd");
    expect(moved.map((l) => [l.relationship, l.direction])).toEqual(
      expect.arrayContaining([
        ["undergoes", "out"],
        ["sense_of", "out"],
      ]),
    );
    gllam.close();
  });

  test("a judge's findings join the rules'; unusable judge output is reported and the rules still apply", async () => {
    const gllam = await graph(["a", "b"]);
    const judged = await gllam.addEdgeJudged(
      { sourceId: "a", targetId: "b", relationship: "causes", claim: "After A we saw B, so A caused B" },
      { name: "stub-llm", judge: async () => [{ kind: "straw_man", cue: "llm says so" }] },
    );
    expect(judged.fallacies.map((f) => [f.kind, f.detector])).toEqual([
      ["post_hoc", "rules"],
      ["straw_man", "stub-llm"],
    ]);
    const garbage = await gllam.addEdgeJudged(
      { sourceId: "b", targetId: "a", relationship: "causes", claim: "After B we saw A, so B caused A" },
      { name: "stub-llm", judge: async () => ({ nonsense: true }) },
    );
    expect(garbage.judgeError).toContain("stub-llm returned unusable output");
    expect(garbage.relationship).toBe("happened_before");
    gllam.close();
  });
});

describe("cascading invalidation", () => {
  test("a dependency cycle A -> B -> C -> A is cut by the active stack, with a diagnostic", async () => {
    const gllam = await graph(["A", "B", "C"]);
    const at = day("2025-01-01");
    for (const [from, to] of [["a", "b"], ["b", "c"], ["c", "a"]]) gllam.addEdge({ sourceId: from!, targetId: to!, relationship: "depends_on", validFrom: day("2024-01-01") });
    const report = gllam.invalidateDependentCrossCuttingLinks("a", at);
    expect(report.invalidatedLinkIds).toHaveLength(3);
    expect(report.cyclesCut).toEqual([["a", "c", "b", "a"]]);
    expect(report.visitedNodeIds).toEqual(["a", "c", "b"]);
    expect(count(gllam, "semantic_links")).toBe(3);
    expect(count(gllam, "semantic_links", `end_reason = 'invalidated' AND valid_until = ${at}`)).toBe(3);
    expect(gllam.activeLinks("a", { asOf: day("2024-06-01") })).toHaveLength(2);
    gllam.close();
  });

  test("maxDepth bounds the cascade and says where it stopped", async () => {
    const gllam = await graph(["n0", "n1", "n2", "n3", "n4"]);
    for (let i = 1; i <= 4; i++) gllam.addEdge({ sourceId: `n${i}`, targetId: `n${i - 1}`, relationship: "requires", validFrom: 0 });
    const report = gllam.invalidateDependentCrossCuttingLinks("n0", 1000, { maxDepth: 2 });
    expect(report.invalidatedLinkIds).toHaveLength(2);
    expect(report.depthLimited).toEqual(["n2"]);
    gllam.close();
  });
});

test("a hub with 200 caveats is compacted to 5 inline, every link kept", async () => {
  const gllam = await graph(["auth:Auth Service"]);
  const now = day("2025-06-01");
  gllam.db().transaction(() => {
    for (let i = 0; i < 200; i++) {
      gllam.upsertNode({ id: `client-${i}`, name: `Client ${i}` });
      const { linkId } = gllam.addEdge(
        { sourceId: `client-${i}`, targetId: "auth", relationship: "authenticates_with", caveats: `token TTL rule ${i % 40}`, trustWeight: 100 + ((i * 37) % 900), validFrom: day("2024-01-01") + i * 1000 },
        { now },
      );
      if (i % 10 === 0) gllam.invalidateObsoleteEdge(linkId, day("2024-06-01"));
    }
  })();
  const compaction = gllam.compactNodeCaveats("auth", 5);
  expect(compaction).toMatchObject({ retainedCount: 5, prunedCount: 195 });
  const inline = compaction.inlineLinkIds.map((id) => gllam.linkHistory(`client-${id - 1}`, "authenticates_with")[0]!.link);
  // The top five: active, highest trust.
  expect(inline.every((l) => l.validUntil === null)).toBe(true);
  expect(inline.map((l) => l.trustWeight)).toEqual([...inline.map((l) => l.trustWeight)].sort((a, b) => b - a));
  expect(inline[0]!.trustWeight).toBe(Math.max(...Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? 0 : 100 + ((i * 37) % 900)))));
  const node = gllam.getNode("auth")!;
  expect(node.caveatSummary).toMatch(/^195 more caveats \(\d+ active, 20 ended\) on authenticates_with ×195\. Most trusted: "token TTL rule/);
  expect(node.caveatSummary.length).toBeLessThanOrEqual(1500);
  expect(count(gllam, "semantic_links")).toBe(200);
  expect(gllam.describeFacts("auth", { asOf: now }).filter((f) => f.caveatInline)).toHaveLength(5);
  expect(gllam.batchCompactHubCaveats(10, 5).map((c) => c.nodeId)).toEqual(["auth"]);
  gllam.close();
});

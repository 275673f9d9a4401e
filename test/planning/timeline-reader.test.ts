import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { isPostHocFlagged } from "../../src/planning/timeline-reader.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const gllam: Gllam = await openTempGllam(dir, { pddlDomainsDir: join(dir, "domains") });
afterAll(() => gllam.close());

describe("timeline from the semantic graph", () => {
  for (const [id, name, validFrom] of [
    ["ev-deploy", "Deploy Caddy", "2025-01-10"],
    ["ev-reboot", "Server reboot", undefined],
    ["ev-outage", "Outage", undefined],
    ["ev-fix", "Fix applied", "2025-01-20"],
  ] as const) {
    gllam.upsertNode({ id, name, type: "event", ...(validFrom ? { validFrom } : {}) });
  }
  gllam.upsertNode({ id: "caddy", name: "Caddy", type: "service" });
  // The fallacy rules flag this claim post_hoc: addEdge stores it as happened_before (claimed: causes).
  const postHoc = gllam.addEdge({ sourceId: "ev-deploy", targetId: "ev-reboot", relationship: "causes", claim: "We deployed Caddy, then the server rebooted, so Caddy crashed the server" });
  gllam.addEdge({ sourceId: "ev-reboot", targetId: "ev-outage", relationship: "causes" });
  gllam.addEdge({ sourceId: "ev-fix", targetId: "ev-outage", relationship: "happened_after" });
  gllam.addEdge({ sourceId: "caddy", targetId: "ev-deploy", relationship: "mentioned_in" });

  test("orders the events and persists the timeline domain", () => {
    const result = gllam.orderTimeline();
    expect(result.consistent).toBe(true);
    if (!result.consistent) return;
    expect(result.events).toEqual(["ev-deploy", "ev-reboot", "ev-outage", "ev-fix"]);
    expect(existsSync(result.files!.domainFile)).toBe(true);
  });

  test("questions by name: which came first, between, possible orders", () => {
    const first = gllam.whichCameFirst("outage", "Deploy Caddy");
    expect(first.answer).toBe("ev-deploy");
    expect(gllam.whatHappenedBetween("Deploy Caddy", "Fix applied").necessarily).toContain("ev-outage");
    expect(gllam.isOrderPossible(["Outage", "Server reboot"]).possible).toBe(false);
  });

  test("the post_hoc flag on the link downgrades causes to happened_before", () => {
    expect(postHoc.relationship).toBe("happened_before");
    const first = gllam.whichCameFirst("Server reboot", "Deploy Caddy");
    if (!("because" in first)) throw new Error("expected a chain");
    expect(first.because.some((c) => c.why.includes("downgraded by post_hoc"))).toBe(true);
  });

  test("a fallacy node naming a causes link downgrades it too", () => {
    const why = () => {
      const first = gllam.whichCameFirst("Outage", "Server reboot");
      return "because" in first ? first.because.map((c) => c.why).join(" | ") : "";
    };
    expect(why()).not.toContain("downgraded");
    const link = gllam.activeLinks("ev-reboot").find((l) => l.relationship === "causes" && l.targetId === "ev-outage")!;
    gllam.upsertNode({ id: "fallacy-1", name: "reboot blamed for the outage", type: "fallacy", metadata: { kind: "post_hoc", linkId: link.id } });
    expect(why()).toContain("Server reboot causes Outage (downgraded by post_hoc to happened_before)");
  });

  test("a contradicting link is reported with the links of the cycle; expired links are ignored", () => {
    const link = gllam.addEdge({ sourceId: "ev-outage", targetId: "ev-deploy", relationship: "happened_before" });
    const result = gllam.orderTimeline();
    expect(result.consistent).toBe(false);
    if (!result.consistent) expect(result.conflict.some((c) => c.linkId === link.linkId)).toBe(true);
    gllam.db().query("UPDATE semantic_links SET expired_at = ? WHERE id = ?").run(Date.now(), link.linkId);
    expect(gllam.orderTimeline().consistent).toBe(true);
  });

  test("a claim planners must skip (begging_question) does not constrain the timeline", () => {
    const circular = gllam.addEdge({ sourceId: "ev-fix", targetId: "ev-deploy", relationship: "happened_before", metadata: { plannerSkip: true } });
    expect(gllam.orderTimeline().consistent).toBe(true);
    gllam.db().query("UPDATE semantic_links SET metadata = '{}' WHERE id = ?").run(circular.linkId);
    expect(gllam.orderTimeline().consistent).toBe(false);
    gllam.db().query("UPDATE semantic_links SET expired_at = ? WHERE id = ?").run(Date.now(), circular.linkId);
  });

  test.each([
    [{ fallacies: [{ kind: "post_hoc", nodeId: "fallacy:1:post_hoc" }] }, false, true],
    [{ fallacies: ["cum_hoc", "post_hoc"] }, false, true],
    [{ claimedRelationship: "led_to" }, false, true],
    [{}, true, true],
    [{ fallacies: [{ kind: "cum_hoc" }] }, false, false],
    [{ claimedRelationship: "depends_on" }, false, false],
  ])("downgrade hook: %j, flagged by a fallacy node %p -> %p", (metadata, byNode, expected) => {
    expect(isPostHocFlagged(metadata, byNode)).toBe(expected);
  });
});

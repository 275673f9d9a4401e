import { describe, expect, test } from "bun:test";
import { parseDomain, parseProblem } from "../../src/planning/parser.ts";
import {
  buildTimeline,
  compileTimelinePddl,
  isOrderPossible,
  orderTimeline,
  resolveEvent,
  whatHappenedBetween,
  whichCameFirst,
  type TimelineEvent,
  type TimelineLink,
} from "../../src/planning/timeline.ts";
import { writeDomain, writeProblem } from "../../src/planning/writer.ts";
import { expectGllamError } from "../helpers.ts";

const at = (iso: string) => Date.parse(iso);
const event = (id: string, validFrom: number | null = null, validUntil: number | null = null): TimelineEvent => ({ id, name: id.replace(/-/g, " "), validFrom, validUntil });

// A home-lab incident: caddy was deployed, then the certificate renewal failed, which caused an
// outage; during the outage users complained; the rollback came after the outage. Only the deploy
// and the rollback have dates.
const EVENTS = [event("deploy", at("2025-01-10"), at("2025-01-10")), event("renewal-failed"), event("outage"), event("complaints"), event("rollback", at("2025-02-01"))];
const LINKS: TimelineLink[] = [
  { id: 1, sourceId: "deploy", targetId: "renewal-failed", relationship: "happened_before" },
  { id: 2, sourceId: "renewal-failed", targetId: "outage", relationship: "causes" },
  { id: 3, sourceId: "complaints", targetId: "outage", relationship: "during" },
  { id: 4, sourceId: "rollback", targetId: "outage", relationship: "happened_after" },
];

describe("timeline compiler", () => {
  test("plans an ordering consistent with every link and valid time", () => {
    const result = orderTimeline(buildTimeline(EVENTS, LINKS));
    expect(result.consistent).toBe(true);
    if (!result.consistent) return;
    const position = (id: string) => result.events.indexOf(id);
    expect(result.events).toHaveLength(5);
    expect(position("deploy")).toBeLessThan(position("renewal-failed"));
    expect(position("renewal-failed")).toBeLessThan(position("outage"));
    expect(position("outage")).toBeLessThan(position("complaints")); // during: the outage started first
    expect(position("complaints")).toBeLessThan(position("rollback"));
    // Every point appears once; the outage ends after the complaints end (during).
    const points = result.order.map((p) => `${p.event}:${p.edge}`);
    expect(new Set(points).size).toBe(10);
    expect(points.indexOf("complaints:end")).toBeLessThan(points.indexOf("outage:end"));
  });

  test("the generated PDDL is parseable by our own parser and round-trips", () => {
    const { domain, problem } = compileTimelinePddl(buildTimeline(EVENTS, LINKS));
    const reparsed = parseDomain(writeDomain(domain));
    expect(reparsed).toEqual(domain);
    expect(parseProblem(writeProblem(problem), reparsed)).toEqual(problem);
  });

  test("which came first: forced orders come with the chain of links, unrelated events are undetermined", () => {
    const first = whichCameFirst(EVENTS, LINKS, "complaints", "deploy");
    expect(first.answer).toBe("deploy");
    if (!("because" in first)) throw new Error("expected a reason");
    // deploy starts before it ends (1) happened_before renewal (2) causes outage (3) during which the complaints.
    expect(first.because.map((c) => c.linkId ?? c.why)).toEqual(["deploy starts before it ends", 1, 2, 3]);
    const extra = [...EVENTS, event("coffee")];
    expect(whichCameFirst(extra, LINKS, "coffee", "deploy").answer).toBe("undetermined");
  });

  test("what happened between: necessarily and possibly", () => {
    const extra = [...EVENTS, event("coffee")];
    const between = whatHappenedBetween(extra, LINKS, "deploy", "rollback");
    expect(between.necessarily.sort()).toEqual(["complaints", "outage"]);
    // The failed renewal started after the deploy, but nothing says it was over before the rollback.
    expect(between.possibly.sort()).toEqual(["coffee", "renewal-failed"]);
  });

  test("is this order possible: a witness, or the conflicting links", () => {
    const possible = isOrderPossible(EVENTS, LINKS, ["deploy", "outage", "rollback"]);
    expect(possible.possible).toBe(true);
    const impossible = isOrderPossible(EVENTS, LINKS, ["outage", "renewal-failed"]);
    expect(impossible.possible).toBe(false);
    expect(impossible.conflict!.map((c) => c.linkId ?? c.why)).toContain(2);
    expect(impossible.conflict!.some((c) => c.why.startsWith("hypothesis"))).toBe(true);
  });

  test("a cyclic event graph is a contradiction reported with exactly the links of the cycle", () => {
    const undated = EVENTS.map((e) => event(e.id));
    const cyclic: TimelineLink[] = [...LINKS, { id: 9, sourceId: "rollback", targetId: "deploy", relationship: "happened_before" }];
    const result = orderTimeline(buildTimeline(undated, cyclic));
    expect(result.consistent).toBe(false);
    if (result.consistent) return;
    // rollback -> deploy -> renewal failed -> outage -> rollback; the complaints (link 3) are not part of it.
    expect(result.conflict.flatMap((c) => (c.linkId === undefined ? [] : [c.linkId])).sort()).toEqual([1, 2, 4, 9]);
    // Each constraint's end is the next one's start: a closed cycle.
    result.conflict.forEach((c, i) => {
      const next = result.conflict[(i + 1) % result.conflict.length]!;
      expect(`${c.after.event}:${c.after.edge}`).toBe(`${next.before.event}:${next.before.edge}`);
    });
    expect(whichCameFirst(undated, cyclic, "deploy", "outage").answer).toBe("contradiction");
  });

  test("valid times alone order events, and contradict a link that says otherwise", () => {
    const dated = [event("a", at("2025-03-01")), event("b", at("2025-01-01"))];
    expect(whichCameFirst(dated, [], "a", "b").answer).toBe("b");
    const result = orderTimeline(buildTimeline(dated, [{ id: 5, sourceId: "a", targetId: "b", relationship: "happened_before" }]));
    expect(result.consistent).toBe(false);
    if (!result.consistent) expect(result.conflict.map((c) => c.why).join(" | ")).toMatch(/valid times: b starts 2025-01-01, a starts 2025-03-01/);
  });

  test("a post_hoc downgrade turns causes into happened_before (the cause must be over before the effect)", () => {
    const events = [event("deploy"), event("reboot")];
    const causal: TimelineLink[] = [{ id: 1, sourceId: "deploy", targetId: "reboot", relationship: "causes" }];
    const downgraded: TimelineLink[] = [{ ...causal[0]!, downgradedBy: "post_hoc" }];
    // Causes only orders the starts: the reboot may happen while the deploy is still running...
    const during: TimelineLink = { id: 2, sourceId: "reboot", targetId: "deploy", relationship: "during" };
    expect(isOrderPossible(events, [...causal, during], []).possible).toBe(true);
    // ...but a mere "happened before" observation rules that out.
    const downgradedConflict = isOrderPossible(events, [...downgraded, during], []);
    expect(downgradedConflict.possible).toBe(false);
    expect(downgradedConflict.conflict!.map((c) => c.linkId).filter((id) => id !== undefined).sort()).toEqual([1, 2]);
    const timeline = buildTimeline(events, downgraded);
    expect(timeline.graph.constraints.find((c) => c.linkId === 1)).toMatchObject({ before: { event: "deploy", edge: "end" }, after: { event: "reboot", edge: "start" } });
    expect(timeline.graph.constraints.find((c) => c.linkId === 1)!.why).toContain("downgraded by post_hoc");
    expect(buildTimeline(events, causal).graph.constraints.find((c) => c.linkId === 1)).toMatchObject({ before: { event: "deploy", edge: "start" }, after: { event: "reboot", edge: "start" } });
  });

  test("events are found by id or name; unknown ones are errors", async () => {
    expect(resolveEvent(EVENTS, "Renewal Failed")).toBe("renewal-failed");
    await expectGllamError(() => resolveEvent(EVENTS, "meteor"), "E_NOT_FOUND", /no event "meteor"/);
    await expectGllamError(() => buildTimeline(EVENTS, [{ id: 7, sourceId: "deploy", targetId: "ghost", relationship: "causes" }]), "E_BAD_INPUT", /unknown event ghost/);
  });
});

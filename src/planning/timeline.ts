import { GllamError } from "../engine/errors.ts";
import type { Domain, Literal, Problem } from "./pddl-types.ts";
import { solveNative, type NativePlannerOptions, type PlanResult } from "./planner.ts";
import { planTask, type PlanFilesOptions } from "./solve.ts";
import { OrderingGraph, type OrderingConstraint, type TimePoint } from "./timeline-graph.ts";

export const TEMPORAL_RELATIONSHIPS = ["happened_before", "happened_after", "during", "causes"] as const;
export type TemporalRelationship = (typeof TEMPORAL_RELATIONSHIPS)[number];

export type TimelineEvent = { id: string; name: string; validFrom: number | null; validUntil: number | null };
export type TimelineLink = {
  id: number;
  sourceId: string;
  targetId: string;
  relationship: TemporalRelationship;
  /** A fallacy (post_hoc) that downgraded a `causes` claim to a mere `happened_before` observation. */
  downgradedBy?: string;
};

const start = (event: string): TimePoint => ({ event, edge: "start" });
const end = (event: string): TimePoint => ({ event, edge: "end" });
const day = (ms: number) => new Date(ms).toISOString().replace("T00:00:00.000Z", "").replace(".000Z", "Z");

/**
 * What each link says about time points. A event happened_before B: A ends before B starts;
 * during: B starts before A starts and A ends before B ends; causes: the cause starts before the
 * effect starts. A post_hoc-flagged `causes` keeps only its observed order (happened_before).
 */
function linkConstraints(link: TimelineLink, name: (id: string) => string): OrderingConstraint[] {
  const { sourceId: a, targetId: b, id: linkId } = link;
  const says = `${name(a)} ${link.relationship} ${name(b)}`;
  switch (link.downgradedBy && link.relationship === "causes" ? "happened_before" : link.relationship) {
    case "happened_before":
      return [{ before: end(a), after: start(b), linkId, why: link.downgradedBy ? `${says} (downgraded by ${link.downgradedBy} to happened_before)` : says }];
    case "happened_after":
      return [{ before: end(b), after: start(a), linkId, why: says }];
    case "during":
      return [
        { before: start(b), after: start(a), linkId, why: says },
        { before: end(a), after: end(b), linkId, why: says },
      ];
    default:
      return [{ before: start(a), after: start(b), linkId, why: says }];
  }
}

/** Known valid times order the points: each group of equal times precedes the next later group. */
function timeConstraints(events: TimelineEvent[]): OrderingConstraint[] {
  const timed = events.flatMap((e) => [
    ...(e.validFrom === null ? [] : [{ point: start(e.id), at: e.validFrom, label: `${e.name} starts ${day(e.validFrom)}` }]),
    ...(e.validUntil === null ? [] : [{ point: end(e.id), at: e.validUntil, label: `${e.name} ends ${day(e.validUntil)}` }]),
  ]);
  const groups = [...Map.groupBy(timed, (t) => t.at)].sort(([x], [y]) => x - y).map(([, g]) => g);
  return groups.slice(1).flatMap((group, i) => groups[i]!.flatMap((earlier) => group.map((later) => ({ before: earlier.point, after: later.point, why: `valid times: ${earlier.label}, ${later.label}` }))));
}

export type Timeline = { events: TimelineEvent[]; graph: OrderingGraph };

/** Builds the ordering constraints of a set of events and temporal links (plus hypotheses). */
export function buildTimeline(events: TimelineEvent[], links: TimelineLink[], hypotheses: OrderingConstraint[] = []): Timeline {
  const byId = new Map(events.map((e) => [e.id, e]));
  const name = (id: string) => byId.get(id)?.name ?? id;
  const durations = events.map((e) => ({ before: start(e.id), after: end(e.id), why: `${e.name} starts before it ends` }));
  for (const link of links) for (const id of [link.sourceId, link.targetId]) if (!byId.has(id)) throw new GllamError("E_BAD_INPUT", `timeline link ${link.id} names an unknown event ${id}`);
  const constraints = [...durations, ...timeConstraints(events), ...links.flatMap((l) => linkConstraints(l, name)), ...hypotheses];
  return { events, graph: new OrderingGraph(constraints) };
}

const pddlName = (index: number, edge: string) => `e${index}-${edge}`;

/**
 * The timeline as a PDDL task: one action per time point, whose preconditions are the points that
 * must come before it; the goal is that every point has happened. Every plan is a total order
 * consistent with every constraint; none exists exactly when the constraints contradict.
 */
export function compileTimelinePddl(timeline: Timeline): { domain: Domain; problem: Problem; pointOf: Map<string, TimePoint> } {
  const index = new Map(timeline.events.map((e, i) => [e.id, i]));
  const nameOf = (p: TimePoint) => pddlName(index.get(p.event)!, p.edge);
  const points = timeline.events.flatMap((e) => [start(e.id), end(e.id)]);
  const pointOf = new Map(points.map((p) => [nameOf(p), p]));
  const earlier = new Map<string, Set<string>>();
  for (const c of timeline.graph.constraints) {
    const key = nameOf(c.after);
    earlier.set(key, (earlier.get(key) ?? new Set()).add(nameOf(c.before)));
  }
  const happened = (point: string, negated = false): Literal => ({ predicate: "happened", args: [point], negated });
  const domain: Domain = {
    name: "gllam-timeline",
    requirements: [":strips", ":typing", ":negative-preconditions"],
    types: [{ name: "point", parent: "object" }],
    constants: points.map((p) => ({ name: nameOf(p), types: ["point"] })),
    predicates: [{ name: "happened", parameters: [{ name: "?p", types: ["point"] }] }],
    functions: [],
    actions: points.map((p) => ({
      name: `occur-${nameOf(p)}`,
      parameters: [],
      precondition: [happened(nameOf(p), true), ...[...(earlier.get(nameOf(p)) ?? [])].map((q) => happened(q))],
      effect: [happened(nameOf(p))],
    })),
  };
  const problem: Problem = { name: "timeline", domain: domain.name, requirements: [], objects: [], init: [], numericInit: [], goal: points.map((p) => happened(nameOf(p))), minimizeTotalCost: false };
  return { domain, problem, pointOf };
}

export type TimelineOrder =
  | { consistent: true; order: TimePoint[]; events: string[]; planner: string }
  | { consistent: false; conflict: OrderingConstraint[]; planner: string };

/** Plans the timeline in process: an ordering of every point, or the constraints that contradict each other. */
export function orderTimeline(timeline: Timeline, options: NativePlannerOptions = {}): TimelineOrder {
  const { domain, problem, pointOf } = compileTimelinePddl(timeline);
  return readTimelineOrder(timeline, solveNative(domain, problem, options), pointOf);
}

/** The same with the planner the caller chooses (Fast Downward when configured reads the task as PDDL files). */
export async function planTimeline(timeline: Timeline, options: PlanFilesOptions = {}): Promise<TimelineOrder> {
  const { domain, problem, pointOf } = compileTimelinePddl(timeline);
  return readTimelineOrder(timeline, await planTask(domain, problem, options), pointOf);
}

function readTimelineOrder(timeline: Timeline, result: PlanResult, pointOf: Map<string, TimePoint>): TimelineOrder {
  if (result.status === "solved") {
    const order = result.plan.map((step) => pointOf.get(step.action.replace(/^occur-/, ""))!);
    return { consistent: true, order, events: order.filter((p) => p.edge === "start").map((p) => p.event), planner: result.planner };
  }
  const conflict = timeline.graph.findCycle();
  if (!conflict) throw new GllamError("E_PLANNER", `the timeline planner (${result.planner}) found no ordering (${result.status}: ${result.reason}) yet the constraints have no cycle`);
  return { consistent: false, conflict, planner: result.planner };
}

export type OrderAnswer = { possible: boolean; order?: string[]; conflict?: OrderingConstraint[] };

/** Is it possible the events started in this sequence? A witness ordering, or the conflicting constraints. */
export function isOrderPossible(events: TimelineEvent[], links: TimelineLink[], sequence: string[], options?: NativePlannerOptions): OrderAnswer {
  const hypotheses = sequence.slice(1).map((id, i) => ({ before: start(sequence[i]!), after: start(id), why: `hypothesis: ${sequence[i]} started before ${id}` }));
  const answer = orderTimeline(buildTimeline(events, links, hypotheses), options);
  return answer.consistent ? { possible: true, order: answer.events } : { possible: false, conflict: answer.conflict };
}

export type FirstAnswer =
  | { answer: "contradiction"; conflict: OrderingConstraint[] }
  | { answer: "undetermined"; order: string[] }
  | { answer: string; because: OrderingConstraint[]; order: string[] };

/** Which of two events started first: certain when the constraints force it (with the chain that does), else undetermined. */
export function whichCameFirst(events: TimelineEvent[], links: TimelineLink[], a: string, b: string, options?: NativePlannerOptions): FirstAnswer {
  const timeline = buildTimeline(events, links);
  return whichCameFirstIn(timeline, orderTimeline(timeline, options), a, b);
}

/** The answer from a timeline its planner has ordered (or found contradictory). */
export function whichCameFirstIn(timeline: Timeline, solved: TimelineOrder, a: string, b: string): FirstAnswer {
  if (!solved.consistent) return { answer: "contradiction", conflict: solved.conflict };
  for (const [x, y] of [[a, b], [b, a]] as const) {
    const chain = timeline.graph.chain(start(x), start(y));
    if (chain) return { answer: x, because: chain, order: solved.events };
  }
  return { answer: "undetermined", order: solved.events };
}

/** Events that necessarily, or at least possibly, happened after A ended and before B started. */
export function whatHappenedBetween(events: TimelineEvent[], links: TimelineLink[], a: string, b: string): { necessarily: string[]; possibly: string[] } {
  const timeline = buildTimeline(events, links);
  const conflict = timeline.graph.findCycle();
  if (conflict) throw new GllamError("E_BAD_INPUT", `the timeline contradicts itself: ${conflict.map((c) => c.why).join("; ")}`);
  const necessarily: string[] = [];
  const possibly: string[] = [];
  for (const e of events) {
    if (e.id === a || e.id === b) continue;
    if (timeline.graph.chain(end(a), start(e.id)) && timeline.graph.chain(end(e.id), start(b))) necessarily.push(e.id);
    else {
      const hypotheses = [
        { before: end(a), after: start(e.id), why: "hypothesis" },
        { before: end(e.id), after: start(b), why: "hypothesis" },
      ];
      if (!buildTimeline(events, links, hypotheses).graph.findCycle()) possibly.push(e.id);
    }
  }
  return { necessarily, possibly };
}

/** An event by id, else by name (case-insensitive). */
export function resolveEvent(events: TimelineEvent[], ref: string): string {
  const wanted = ref.trim().toLowerCase();
  const found = events.find((e) => e.id === ref) ?? events.find((e) => e.name.toLowerCase() === wanted);
  if (!found) throw new GllamError("E_NOT_FOUND", `no event "${ref}" on the timeline (events are nodes of type event or touched by happened_before/after, during or causes links)`);
  return found.id;
}

/**
 * What the semantic, procedural and planning layers hold for a query, as context items: active
 * facts of the focus entities (caveats, trust, validity), open contradictions, paths between named
 * entities, the timeline's answer for events the query names, and the recipes (and a recipe chain
 * through the planner) for "how do I" questions.
 */
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { formatDay } from "../retrieval/format.ts";
import { queryTerms } from "../retrieval/query-text.ts";
import type { SemanticNode } from "../memory/types.ts";
import { describeFacts } from "../semantic/facts.ts";
import { findMultiHopPath } from "../semantic/paths.ts";
import { getTopProcedures } from "../procedural/procedures.ts";
import { planRecipeChain } from "../procedural/recipe-chain.ts";
import { readTimeline } from "../planning/timeline-reader.ts";
import type { PlanFilesOptions } from "../planning/solve.ts";
import { buildTimeline, planTimeline, whichCameFirstIn } from "../planning/timeline.ts";
import type { ContextItem } from "./budget.ts";
import { formatChainStepLine, formatContradictionLine, formatFactLine, formatPathLine, formatProcedureLine } from "./format.ts";
import type { Intent } from "./intent.ts";

/** What each kind of item is worth, against 1 for the best episode; raised when the intent asks for it. */
const VALUES = { namedFact: 0.9, mentionedFact: 0.35, contradiction: 0.7, path: 1.1, timeline: 1.1, procedure: 0.3, chainStep: 0.3, asked: 1.6 } as const;

export type Focus = { node: SemanticNode; named: boolean };
export type KnowledgeOptions = {
  scope: string;
  asOf?: number;
  intents: Intent[];
  query: string;
  maxChars: number;
  pddlDomainsDir: string | null;
  /** Who orders the timeline: the native planner (default) or Fast Downward when configured. */
  planner?: Pick<PlanFilesOptions, "planner" | "fastDownward">;
};

const asked = (options: KnowledgeOptions, intent: Intent, value: number) => (options.intents.includes(intent) ? value * VALUES.asked : value);

/** Facts of the focus nodes, and the open contradictions they are part of. */
export function factItems(store: Store, focus: Focus[], options: KnowledgeOptions): ContextItem[] {
  const items: ContextItem[] = [];
  for (const [rank, { node, named }] of focus.entries()) {
    const base = (named ? VALUES.namedFact : VALUES.mentionedFact) / (1 + rank * 0.2);
    for (const [i, link] of describeFacts(store, node.id, { scope: options.scope, asOf: options.asOf }).entries()) {
      items.push({ key: `link:${link.id}`, section: "facts", text: formatFactLine(link, node.name), value: base / (1 + i * 0.05), order: rank * 1e6 + i });
      for (const c of link.contradictions.filter((c) => c.status === "open")) {
        items.push({ key: `contradiction:${c.id}`, section: "contradictions", text: formatContradictionLine(c), value: asked(options, "verification", VALUES.contradiction), order: items.length });
      }
    }
  }
  return items;
}

/** Paths between each pair of the named entities (the first few pairs). */
export function pathItems(store: Store, named: SemanticNode[], options: KnowledgeOptions): ContextItem[] {
  const items: ContextItem[] = [];
  for (let i = 0; i < Math.min(named.length, 3); i++) {
    for (let j = i + 1; j < Math.min(named.length, 3); j++) {
      const path = findMultiHopPath(store, named[i]!.id, named[j]!.id, { scope: options.scope, asOf: options.asOf });
      if (!path.found || path.hops === 0) continue;
      items.push({ key: `path:${named[i]!.id}:${named[j]!.id}`, section: "paths", text: formatPathLine(path), value: asked(options, "relation", VALUES.path), order: items.length });
    }
  }
  return items;
}

/** Which of two named events came first (with the links that force it), or each named event's dates. */
export async function timelineItems(store: Store, named: SemanticNode[], options: KnowledgeOptions): Promise<ContextItem[]> {
  const { events, links } = readTimeline(store, options.scope);
  const mine = named.map((node) => events.find((e) => e.id === node.id)).filter((e) => e !== undefined);
  if (mine.length === 0) return [];
  const value = asked(options, "temporal", VALUES.timeline);
  const items: ContextItem[] = mine.map((e, i) => ({
    key: `event:${e.id}`,
    section: "timeline",
    text: `- ${e.name}: ${e.validFrom === null ? "start unknown" : `from ${formatDay(e.validFrom)}`}${e.validUntil === null ? "" : ` to ${formatDay(e.validUntil)}`} [node ${e.id}]`,
    value: value * 0.8,
    order: i + 1,
  }));
  if (mine.length >= 2) {
    const [a, b] = mine as [(typeof mine)[0], (typeof mine)[0]];
    const timeline = buildTimeline(events, links);
    const solved = await planTimeline(timeline, options.planner);
    const answer = whichCameFirstIn(timeline, solved, a.id, b.id);
    const name = (id: string) => events.find((e) => e.id === id)?.name ?? id;
    const constraints = "conflict" in answer ? answer.conflict : "because" in answer ? answer.because : [];
    const why = constraints.map((c) => c.why).join("; ");
    const cited = constraints.flatMap((c) => c.linkId ?? []).join(", ") || "none: valid times";
    const text =
      "conflict" in answer
        ? `- ⚠ the timeline contradicts itself: ${why} (${solved.planner} found no ordering) [links ${cited}]`
        : "because" in answer
          ? `- ${name(answer.answer)} came first: ${why} (ordered by ${solved.planner}) [links ${cited}]`
          : `- nothing known orders ${a.name} and ${b.name} (ordered by ${solved.planner})`;
    items.push({ key: `first:${a.id}:${b.id}`, section: "timeline", text, value, order: 0 });
  }
  return items;
}

/** Recipes whose task type or text share words with the query, and the chain the planner builds to the best one's effects. */
export function procedureItems(store: Store, options: KnowledgeOptions): ContextItem[] {
  const terms = new Set(queryTerms(options.query));
  const scored = getTopProcedures(store, 200, options.scope)
    .map((p) => {
      const words = new Set(queryTerms(`${p.taskType.replace(/[_-]/g, " ")} ${p.recipe}`));
      return { p, overlap: [...terms].filter((t) => words.has(t)).length / Math.max(1, terms.size) };
    })
    .filter((s) => s.overlap > 0)
    .sort((a, b) => b.overlap - a.overlap)
    .slice(0, 3);
  const items: ContextItem[] = scored.map(({ p, overlap }, i) => ({
    key: `procedure:${p.taskType}`,
    section: "procedures",
    text: formatProcedureLine(p, options.maxChars),
    value: asked(options, "procedural", VALUES.procedure) * overlap,
    order: i,
  }));
  const best = scored[0]?.p;
  if (!options.intents.includes("procedural") || !best?.pddlAction?.effects.length || best.pddlAction.parameters.length > 0) return items;
  try {
    const chain = planRecipeChain(store, best.pddlAction.effects, { scope: options.scope, pddlDomainsDir: options.pddlDomainsDir });
    if (chain.status !== "solved" || chain.steps.length < 2) return items;
    const versions = new Map(getTopProcedures(store, 200, options.scope).map((p) => [p.taskType, p.version]));
    const value = asked(options, "procedural", VALUES.chainStep) * scored[0]!.overlap;
    // The steps go in together: half a chain is no recipe, so each is worth the chain.
    chain.steps.forEach((step, i) => items.push({ key: `chain:${i}`, section: "chain", text: formatChainStepLine(step, i, versions.get(step.taskType), options.maxChars), value: value - i * 1e-6, order: i }));
  } catch (error) {
    // A recipe set the planner cannot read leaves the chain out; the recipes themselves are listed.
    if (!(error instanceof GllamError)) throw error;
  }
  return items;
}

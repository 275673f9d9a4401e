/**
 * Writing one session's extraction into the graph: entities resolved against existing nodes (names
 * and aliases, then a vector hint) before any is created, every fact through addEdge with the
 * turn's source (its document, else its speaker within the session's content type) so trust,
 * contradictions, succession and fallacy cues apply as for `fact add`, and provenance: the link's
 * episode and, in its metadata, every turn it came from. Runs inside the caller's transaction.
 * What it creates is tagged with the session, so `extract --clean` removes that and only that.
 */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import { isGllamError } from "../engine/errors.ts";
import type { Store } from "../engine/store.ts";
import { addEdge, type AddEdgeAction } from "./add-edge.ts";
import type { FallacyFinding, FallacyKind } from "./fallacies.ts";
import { forgetExtracted } from "./forget.ts";
import { nameSlug } from "./ids.ts";
import { normalizeEntityName } from "./names.ts";
import { freeNodeId, knownNodeNamed, readNode, upsertNode } from "./nodes.ts";
import { attributeContainerEntryToSource } from "./sources.ts";

/** An entity as an extractor names it. */
export type ExtractedEntity = { name: string; type: string; aliases: string[]; context: string };
/** A fact as an extractor states it: the quoted words and the numbers of the turns it came from. */
export type ExtractedFact = { subject: string; relationship: string; object: string; caveats: string; conditions: string; quote: string; turns: number[] };

/** A turn as the prompt numbered it. */
export type ProvenanceTurn = { id: number; speaker: string; content: string; occurredAt: number | null; sourceId: string | null };

export type SessionExtractionInput = {
  scope: string;
  sessionId: string;
  extractor: string;
  /** The content type (document type) speakers are trusted under. */
  contentType: string;
  sessionSourceId: string | null;
  entities: ExtractedEntity[];
  /** Facts with their dates resolved (epoch ms) and, when a judge read them, its fallacy verdicts. */
  facts: (ExtractedFact & { validFromMs?: number; validUntilMs?: number; judged?: FallacyFinding[]; rejected?: FallacyKind[] })[];
  /** Turns by the number the prompt gave them. */
  turns: Map<number, ProvenanceTurn>;
  /** Node ids a vector search found for names no node carries (normalised name -> id). */
  vectorHints: Map<string, string>;
};

export type WrittenFact = { subject: string; relationship: string; object: string; linkId: number; action: AddEdgeAction; episodeIds: number[] };
export type SessionExtractionResult = { createdNodes: string[]; facts: WrittenFact[]; skipped: { fact: string; reason: string }[] };

/** A relationship as links spell it (lives in -> lives_in); empty when nothing usable is left. */
export const relationshipKey = (text: string): string =>
  text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^[^a-z]+|_+$/g, "");

/** The turns a fact came from: those it names, else those that contain its quote, else none. */
export function provenanceOf(fact: ExtractedFact, turns: Map<number, ProvenanceTurn>): ProvenanceTurn[] {
  const named = fact.turns.flatMap((n) => turns.get(n) ?? []);
  if (named.length > 0) return named;
  const quote = fact.quote.toLowerCase().replace(/\s+/g, " ").trim();
  if (!quote) return [];
  return [...turns.values()].filter((turn) => turn.content.toLowerCase().replace(/\s+/g, " ").includes(quote));
}

export function writeSessionExtraction(store: Store, config: AgenticMemoryConfig, input: SessionExtractionInput, now = Date.now()): SessionExtractionResult {
  const tag = { extraction: { session: input.sessionId, extractor: input.extractor } };
  const result: SessionExtractionResult = { createdNodes: [], facts: [], skipped: [] };
  const byName = new Map<string, string>();
  const declared = new Map(input.entities.flatMap((e) => [e.name, ...e.aliases].map((name) => [normalizeEntityName(name), e] as const)));

  const nodeFor = (name: string): string | undefined => {
    const key = normalizeEntityName(name);
    const seen = byName.get(key);
    if (seen) return seen;
    const entity = declared.get(key) ?? { name, type: "entity", aliases: [], context: "" };
    const known =
      [entity.name, ...entity.aliases].map((n) => knownNodeNamed(store, n, input.scope)).find(Boolean) ??
      [entity.name, ...entity.aliases].map((n) => input.vectorHints.get(normalizeEntityName(n))).flatMap((id) => (id ? (readNode(store, id, input.scope, true) ?? []) : []))[0];
    let id = known?.id;
    if (!id) {
      const slug = nameSlug(entity.name);
      if (!slug) return undefined;
      id = upsertNode(store, {
        id: freeNodeId(store, input.scope, slug),
        scope: input.scope,
        name: entity.name,
        type: entity.type || "entity",
        aliases: entity.aliases.filter((a) => normalizeEntityName(a) !== normalizeEntityName(entity.name)),
        contextPrompt: entity.context,
        metadata: tag,
      }).node.id;
      result.createdNodes.push(id);
    }
    for (const n of [entity.name, ...entity.aliases]) byName.set(normalizeEntityName(n), id);
    return id;
  };

  for (const entity of input.entities) nodeFor(entity.name);
  for (const fact of input.facts) {
    const label = `${fact.subject} ${fact.relationship} ${fact.object}`;
    const relationship = relationshipKey(fact.relationship);
    const [sourceId, targetId] = [nodeFor(fact.subject), nodeFor(fact.object)];
    if (!relationship || !sourceId || !targetId) {
      result.skipped.push({ fact: label, reason: !relationship ? "no usable relationship name" : "a name with no letters or digits" });
      continue;
    }
    const from = provenanceOf(fact, input.turns);
    const first = from[0];
    const origin = first?.sourceId ?? input.sessionSourceId ?? (first?.speaker ? speakerSource(store, config, input, first) : undefined);
    const validFrom = fact.validFromMs ?? first?.occurredAt ?? undefined;
    try {
      const added = addEdge(
        store,
        {
          scope: input.scope,
          sourceId,
          targetId,
          relationship,
          caveats: fact.caveats,
          conditions: fact.conditions,
          validFrom,
          validUntil: fact.validUntilMs !== undefined && (validFrom === undefined || fact.validUntilMs >= validFrom) ? fact.validUntilMs : undefined,
          originSourceId: origin,
          episodeId: first?.id,
          claim: fact.quote,
          metadata: { extraction: { ...tag.extraction, episodes: from.map((t) => t.id) } },
        },
        { config, now, judgedFallacies: fact.judged, rejectedFallacies: fact.rejected },
      );
      result.facts.push({ subject: fact.subject, relationship: added.relationship, object: fact.object, linkId: added.linkId, action: added.action, episodeIds: from.map((t) => t.id) });
    } catch (error) {
      // A fact the graph refuses (a self-loop, a relationship outside a strict vocabulary, a
      // taxonomy cycle) is skipped and reported; its savepoint undid it, the others stand.
      if (!isGllamError(error) || error.code === "E_INTERNAL") throw error;
      result.skipped.push({ fact: label, reason: error.message });
    }
  }
  return result;
}

/** The speaker's source within the session's content type (trust from both, as a container entry). */
function speakerSource(store: Store, config: AgenticMemoryConfig, input: SessionExtractionInput, turn: ProvenanceTurn): string {
  return attributeContainerEntryToSource(store, config, { repoType: input.contentType, handle: turn.speaker, text: turn.content, at: turn.occurredAt ?? undefined, scope: input.scope }).sourceId;
}

/** Removes what extracting the session wrote (its links, with their effects undone, and its nodes nothing else uses). */
export function removeSessionExtraction(store: Store, scope: string, sessionId: string, now = Date.now()): { links: number; nodes: number; restored: number } {
  const db = store.db();
  const links = db
    .query<{ id: number }, [string, string]>("SELECT id FROM semantic_links WHERE scope = ? AND json_extract(metadata, '$.extraction.session') = ?")
    .all(scope, sessionId)
    .map((r) => r.id);
  const nodes = db
    .query<{ id: string }, [string, string]>("SELECT id FROM semantic_nodes WHERE scope = ? AND json_extract(metadata, '$.extraction.session') = ?")
    .all(scope, sessionId)
    .map((r) => r.id);
  if (links.length === 0 && nodes.length === 0) return { links: 0, nodes: 0, restored: 0 };
  const report = forgetExtracted(store, links, nodes, now);
  return { links: report.removed.links.length, nodes: report.removed.nodes.length, restored: report.restored.length };
}

/**
 * A fact as people and agents state it: names for its ends (resolved in the scope, new names
 * becoming nodes), who said it, and the claim's words; recorded through addEdge in one transaction.
 * Every face (`gllam fact add`, MCP `add_fact`, HTTP `POST /v1/facts`) records facts this way.
 */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import { GllamError } from "../engine/errors.ts";
import type { Store } from "../engine/store.ts";
import type { SemanticNode } from "../memory/types.ts";
import { parseScope } from "../memory/parse.ts";
import { addEdge, type AddEdgeResult } from "./add-edge.ts";
import type { FallacyFinding, FallacyKind } from "./fallacies.ts";
import { resolveEntity } from "./entities.ts";
import { ensureNodeNamed, findNearMissNodes, type NearMiss } from "./nodes.ts";
import { attributeContainerEntryToSource } from "./sources.ts";

export type FactStatement = {
  subject: string;
  relationship: string;
  object: string;
  scope?: string;
  caveats?: string;
  conditions?: string;
  validFrom?: number;
  validUntil?: number;
  /** Who said it: a handle within a document type (its trust weight comes from both). */
  source?: { handle: string; docType: string; role?: string };
  claim?: string;
  rationale?: string;
  proof?: string;
  trustWeight?: number;
  /** Create nodes for names that mean none even when close names exist ("Kaddy" beside Caddy). */
  allowNew?: boolean;
  /** A fallacy judge's verdict on the claim (an LLM): findings added to the rule cues, cues it rejected. */
  judged?: { findings: FallacyFinding[]; rejected: FallacyKind[] };
};

export type FactEnd = { id: string; name: string; created: boolean };
export type RecordedFact = AddEdgeResult & { subject: FactEnd; object: FactEnd; created: string[] };

/** A name as the scope knows it: the node it means, or the close names a new node would sit beside. */
export type NameLookup = { name: string; node?: SemanticNode; nearMisses: NearMiss[] };

export const describeNearMisses = (misses: NearMiss[]) => misses.map((m) => `${m.name} (${m.id})`).join(", ");

/** The node a name means in the scope, or undefined; an ambiguous name is refused with its candidates. */
function resolveName(store: Store, name: string, scope: string): SemanticNode | undefined {
  const { node, candidates, ambiguous } = resolveEntity(store, name, { scope });
  if (ambiguous) throw new GllamError("E_BAD_INPUT", `"${name}" may mean ${candidates.map((c) => `${c.id} (${c.name})`).join(", ")}: give the id`);
  return node;
}

/** The node a name (id or alias) means in the scope; none is E_NOT_FOUND, naming close names. */
export function nodeNamed(store: Store, name: string, scopeInput?: string): SemanticNode {
  const scope = parseScope(scopeInput);
  const node = resolveName(store, name, scope);
  if (node) return node;
  const misses = findNearMissNodes(store, name, scope);
  throw new GllamError("E_NOT_FOUND", `no node named "${name}" in scope ${scope}${misses.length > 0 ? ` (close: ${describeNearMisses(misses)})` : ""}`);
}

export function lookUpName(store: Store, name: string, scopeInput?: string): NameLookup {
  const scope = parseScope(scopeInput);
  const node = resolveName(store, name, scope);
  return { name, node, nearMisses: node ? [] : findNearMissNodes(store, name, scope) };
}

/** The names of a statement that mean no node but sit close to existing ones (each once). */
export function doubtfulNames(lookups: NameLookup[]): NameLookup[] {
  return lookups.filter((l, i) => !l.node && l.nearMisses.length > 0 && lookups.findIndex((o) => o.name === l.name) === i);
}

/**
 * Records a fact. A new name close to existing ones is refused (E_NOT_FOUND listing them) unless
 * `allowNew`: a typo must not silently become a node. Nothing is written when anything is refused.
 */
export function recordFact(store: Store, config: AgenticMemoryConfig, statement: FactStatement): RecordedFact {
  const scope = parseScope(statement.scope);
  if (!statement.allowNew) {
    const [doubtful] = doubtfulNames([lookUpName(store, statement.subject, scope), lookUpName(store, statement.object, scope)]);
    if (doubtful) {
      throw new GllamError(
        "E_NOT_FOUND",
        `no node named "${doubtful.name}" in scope ${scope}; close: ${describeNearMisses(doubtful.nearMisses)}. Name one of those, or create "${doubtful.name}" anyway (--new on the command line, allow_new: true in MCP and HTTP)`,
      );
    }
  }
  return store.transaction(() => {
    const [subject, object] = [statement.subject, statement.object].map((name) => {
      const { node, created } = ensureNodeNamed(store, name, scope);
      return { id: node.id, name: node.name, created };
    }) as [FactEnd, FactEnd];
    const origin = statement.source
      ? attributeContainerEntryToSource(store, config, {
          repoType: statement.source.docType,
          handle: statement.source.handle,
          displayName: "",
          // Coherence is judged on what was said, never on words made up from the fact's parts.
          text: statement.claim ?? "",
          role: statement.source.role,
          scope,
        })
      : undefined;
    const added = addEdge(
      store,
      {
        scope,
        sourceId: subject.id,
        targetId: object.id,
        relationship: statement.relationship,
        caveats: statement.caveats,
        conditions: statement.conditions,
        validFrom: statement.validFrom,
        validUntil: statement.validUntil,
        originSourceId: origin?.sourceId,
        trustWeight: statement.trustWeight,
        claim: statement.claim,
        rationale: statement.rationale,
        proof: statement.proof,
      },
      { config, judgedFallacies: statement.judged?.findings, rejectedFallacies: statement.judged?.rejected },
    );
    return { ...added, subject, object, created: [subject, object].filter((end) => end.created).map((end) => end.id) };
  });
}

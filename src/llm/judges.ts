/**
 * The LLM judges over the FAST role, each the LLM side of an interface the layers already use
 * with a rule-based default: FallacyJudge (confirm or reject the rule cues, find what rules miss),
 * Categorizer (file orphan nodes under taxonomy paths), and caveat summaries for hub compaction.
 * A judge that fails leaves the rule-based answer in place, and says which one was used.
 */
import * as v from "valibot";
import { describeError } from "../engine/errors.ts";
import type { CaveatSummariser } from "../semantic/caveats.ts";
import { detectFallacies, FALLACY_KINDS, FallacyFindingSchema, type ClaimContext, type FallacyJudge } from "../semantic/fallacies.ts";
import { createEmbeddingCategorizer, type Categorizer, type CategoryCandidate, type OrphanNode } from "../semantic/taxonomy-categorize.ts";
import { TaxonomyPathSchema } from "../memory/types.ts";
import type { LlmClient } from "./client.ts";

const FallacyVerdictSchema = v.object({
  /** Rule cues judged false alarms. */
  rejected: v.optional(v.array(v.picklist(FALLACY_KINDS)), []),
  /** Fallacies present (confirmed cues and those the rules missed). */
  findings: v.optional(v.array(FallacyFindingSchema), []),
});

const FALLACY_GUIDE = `You check one claim from a knowledge graph for logical fallacies. Kinds: ${FALLACY_KINDS.join(", ")}.
Rule-based cues may be false alarms: list those in "rejected". List in "findings" every fallacy really present (confirmed cues, and any the rules missed, especially straw_man, red_herring and equivocation), each with the words that give it away as "cue" (for equivocation also "term" and its "senses"). A plain factual statement has none.`;

/** FallacyJudge over an LLM: the rule cues go with the claim so the model can confirm or reject them. */
export function createLlmFallacyJudge(client: LlmClient): FallacyJudge {
  return {
    name: `llm:${client.endpoint.model}`,
    judge: async (claim: ClaimContext) => {
      const cues = detectFallacies(claim).map((f) => `${f.kind} ("${f.cue}")`);
      const user = [
        `Claim: ${claim.text || "(no words given)"}`,
        `As a link: ${claim.subjectName} -[${claim.relationship}]-> ${claim.targetName}`,
        claim.proof ? `Proof offered: ${claim.proof}` : "",
        `Rule cues: ${cues.length > 0 ? cues.join("; ") : "none"}`,
      ].filter(Boolean);
      return client.structured(FallacyVerdictSchema, [
        { role: "system", content: FALLACY_GUIDE },
        { role: "user", content: user.join("\n") },
      ], `fallacy check of "${claim.text.slice(0, 60)}"`, "fallacy_verdict");
    },
  };
}

const PlacementSchema = v.object({
  placements: v.array(v.object({ node_id: v.string(), path: TaxonomyPathSchema, reason: v.optional(v.string(), "") })),
});

/**
 * Categorizer over an LLM: each orphan gets an existing category path or a new one. A failed call
 * (or a node it leaves out) is filed by the embedding categorizer, and the reason says so.
 */
export function createLlmCategorizer(client: LlmClient): Categorizer {
  const name = `llm:${client.endpoint.model}`;
  const fallback = createEmbeddingCategorizer();
  return {
    name,
    // Vectors are fetched so the embedding fallback can answer when the model cannot.
    needsVectors: true,
    categorize: async (orphans: OrphanNode[], categories: CategoryCandidate[]) => {
      let placements: v.InferOutput<typeof PlacementSchema>["placements"] = [];
      let failure = "";
      try {
        placements = (
          await client.structured(
            PlacementSchema,
            [
              {
                role: "system",
                content:
                  "You file knowledge-graph entities into a taxonomy of /-separated category paths (like /Engineering/Databases). Prefer an existing path; make a new one only when none fits. One placement per node_id.",
              },
              {
                role: "user",
                content: `Existing categories:\n${categories.map((c) => `- ${c.path}`).join("\n") || "(none yet)"}\n\nEntities:\n${orphans
                  .map((o) => `- node_id ${o.id}: ${o.name} (${o.type})${o.contextPrompt ? `: ${o.contextPrompt.slice(0, 200)}` : ""}`)
                  .join("\n")}`,
              },
            ],
            `categorizing ${orphans.length} nodes`,
            "placements",
          )
        ).placements;
      } catch (error) {
        failure = describeError(error);
      }
      const byNode = new Map(placements.filter((p) => orphans.some((o) => o.id === p.node_id)).map((p) => [p.node_id, p]));
      const missing = orphans.filter((o) => !byNode.has(o.id));
      const filed = missing.length > 0 ? await fallback.categorize(missing, categories) : [];
      return [
        ...[...byNode.values()].map((p) => ({ nodeId: p.node_id, path: p.path, reason: `${name}: ${p.reason || "placed by the model"}` })),
        ...filed.map((d) => ({ ...d, reason: `embedding (${failure ? `the model failed: ${failure}` : "the model left it out"}): ${d.reason}` })),
      ];
    },
  };
}

const SummarySchema = v.object({ summary: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(1500)) });

export function createLlmCaveatSummariser(client: LlmClient): CaveatSummariser {
  return {
    name: `llm:${client.endpoint.model}`,
    summarise: async (node, rest) => {
      const lines = rest.slice(0, 200).map((l) => `- ${l.relationship} ${l.otherName} (trust ${l.trustWeight}${l.expiredAt === null ? "" : ", retired"}): ${l.caveats.trim()}`);
      const answer = await client.structured(
        SummarySchema,
        [
          { role: "system", content: "Summarise the caveats of a knowledge-graph entity in at most five sentences: what holds generally, the exceptions, and which sources disagree. No preamble." },
          { role: "user", content: `Entity: ${node.name}\nCaveats:\n${lines.join("\n")}` },
        ],
        `caveat summary of ${node.name}`,
        "caveat_summary",
      );
      return answer.summary;
    },
  };
}


/** The semantic layer's rules as the configuration sets them, pure. */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import { GllamError } from "../engine/errors.ts";
import { ENGINE_RELATIONSHIPS } from "./links.ts";

/** What fallacy impacts may store instead of the claimed relationship. */
const DOWNGRADED_RELATIONSHIPS = ["happened_before", "correlates_with", "presents_option"];

export type SemanticPolicy = {
  exclusive: ReadonlySet<string>;
  dependency: ReadonlySet<string>;
  allowUserGrilling: boolean;
  strict: boolean;
  vocabulary: ReadonlySet<string>;
  selfLoops: ReadonlySet<string>;
};

export function semanticPolicy(config: AgenticMemoryConfig): SemanticPolicy {
  const exclusive = new Set(config.mutually_exclusive_relationships);
  const dependency = new Set(config.dependency_relationships);
  return {
    exclusive,
    dependency,
    allowUserGrilling: config.allow_user_grilling,
    strict: config.strict_relationships,
    vocabulary: new Set([...config.relationship_vocabulary, ...exclusive, ...dependency, ...ENGINE_RELATIONSHIPS, ...DOWNGRADED_RELATIONSHIPS]),
    selfLoops: new Set(config.self_loop_relationships),
  };
}

/** Refuses a relationship strict mode does not know, and a self-loop the configuration does not allow. */
export function checkLinkShape(policy: SemanticPolicy, link: { sourceId: string; targetId: string; relationship: string }): void {
  if (policy.strict && !policy.vocabulary.has(link.relationship)) {
    throw new GllamError(
      "E_BAD_INPUT",
      `unknown relationship "${link.relationship}" (strict_relationships is on; add it to relationship_vocabulary)`,
    );
  }
  if (link.sourceId === link.targetId && !policy.selfLoops.has(link.relationship)) {
    throw new GllamError("E_BAD_INPUT", `self-loop ${link.sourceId} -[${link.relationship}]-> ${link.sourceId} is not allowed (self_loop_relationships)`);
  }
}

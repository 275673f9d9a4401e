/**
 * Valibot schemas for every row and input of the three memory layers; the TypeScript types are
 * inferred from them. Inputs are parsed at the facade boundary (defaults filled, times normalised
 * to epoch milliseconds); rows are what the layer modules read back (SQL aliases give camelCase).
 */
import * as v from "valibot";
import { parseIsoTimestamp, toEpochMs } from "./time.ts";

// ------------------------------------------------------------------ shared pieces

/** Longest text (episode content, caveats, recipes) in characters. */
export const MAX_TEXT = 1_000_000;
/** Deepest nesting of a metadata object: deeper JSON cannot be written back (the encoder recurses). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whole epoch milliseconds from a number (fractions rounded), a Date or an ISO-8601 string (no
 * zone = UTC; an impossible day is refused), within the range a Date can hold.
 */
export const TimestampSchema = v.pipe(
  v.union([v.number(), v.date(), v.pipe(v.string(), v.nonEmpty())]),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const value = dataset.value;
    const ms = typeof value === "number" ? toEpochMs(value) : value instanceof Date ? toEpochMs(value.getTime()) : parseIsoTimestamp(value);
    if (ms !== undefined) return ms;
    addIssue({ message: "must be a valid date within years -271821..275760 (epoch ms, Date or ISO-8601 string)" });
    return NEVER;
  }),
);

/** The scope every call without one reads and writes. */
export const DEFAULT_SCOPE = "default";
/** The longest scope name, in characters (UTF-16 units). */
export const MAX_SCOPE_LENGTH = 100;
/**
 * A memory scope (a user, agent or project sharing the file), normalised the same way at every
 * boundary: Unicode NFC, trimmed, 1..100 characters, no control or invisible format characters (two
 * scopes must never look alike), and no "/": a non-default scope's node and source ids are
 * `scope/slug`, and with no "/" on either side an id splits back into exactly one scope and slug.
 */
export const ScopeSchema = v.optional(
  v.pipe(
    v.string("must be a string"),
    v.normalize("NFC"),
    v.trim(),
    v.nonEmpty("must not be empty"),
    v.maxLength(MAX_SCOPE_LENGTH, `must be at most ${MAX_SCOPE_LENGTH} characters`),
    v.regex(/^[^\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]*$/u, "must not contain control or invisible characters"),
    v.regex(/^[^/]*$/, 'must not contain "/"'),
  ),
  DEFAULT_SCOPE,
);

/** How deep a JSON value nests (a scalar is 0), counted without recursion and stopping past `limit`. */
export function jsonDepth(value: unknown, limit = Infinity): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}
export const IdSchema = v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty"), v.maxLength(500));
const TextSchema = v.pipe(v.string(), v.maxLength(MAX_TEXT));
const RequiredTextSchema = v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty"), v.maxLength(MAX_TEXT));
export const JsonObjectSchema = v.pipe(
  v.record(v.string(), v.unknown()),
  v.check((value) => jsonDepth(value, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH, `must not nest deeper than ${MAX_JSON_DEPTH} levels`),
);
const CountSchema = v.pipe(v.number(), v.integer(), v.minValue(0));
export const TrustWeightSchema = v.pipe(v.number(), v.integer(), v.minValue(10), v.maxValue(1000));
/** snake_case relationship names (binds_to, has_state); input is trimmed and lower-cased. */
export const RelationshipSchema = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.regex(/^[a-z][a-z0-9_]*$/, "must be snake_case, like binds_to"),
  v.maxLength(100),
);
export const TaxonomyPathSchema = v.pipe(v.string(), v.regex(/^\/(?:[^/]+\/?)*$/, "must start with / (like /Engineering/Databases)"));

// ------------------------------------------------------------------ system

export const SystemMetadataRowSchema = v.object({ key: v.string(), value: v.string(), updatedAt: v.number() });
export type SystemMetadataRow = v.InferOutput<typeof SystemMetadataRowSchema>;

export const MaintenanceJobRowSchema = v.object({
  id: v.number(),
  kind: v.string(),
  scope: v.string(),
  params: JsonObjectSchema,
  state: JsonObjectSchema,
  status: v.picklist(["running", "done", "failed"]),
  startedAt: v.number(),
  updatedAt: v.number(),
  finishedAt: v.nullable(v.number()),
});
export type MaintenanceJobRow = v.InferOutput<typeof MaintenanceJobRowSchema>;

// ------------------------------------------------------------------ sources

export const SourceInputSchema = v.object({
  id: v.optional(IdSchema),
  scope: ScopeSchema,
  docType: IdSchema,
  handle: v.optional(v.string(), ""),
  displayName: v.optional(v.string(), ""),
  role: v.optional(v.string(), ""),
  uri: v.optional(v.string(), ""),
  authoredAt: v.optional(TimestampSchema),
  metadata: v.optional(JsonObjectSchema, {}),
});
export type SourceInput = v.InferInput<typeof SourceInputSchema>;

export const SourceRowSchema = v.object({
  id: v.string(),
  scope: v.string(),
  docType: v.string(),
  handle: v.string(),
  displayName: v.string(),
  role: v.string(),
  uri: v.string(),
  nodeId: v.nullable(v.string()),
  trustWeight: TrustWeightSchema,
  wDocType: v.number(),
  wSource: v.number(),
  dwCoherence: v.number(),
  dwFreshness: v.number(),
  authoredAt: v.nullable(v.number()),
  metadata: JsonObjectSchema,
  createdAt: v.number(),
  updatedAt: v.number(),
});
export type SourceRow = v.InferOutput<typeof SourceRowSchema>;

// ------------------------------------------------------------------ semantic

/** Node types the engine itself creates; any other string is a domain entity type. */
export const NODE_TYPES = { contradiction: "contradiction", fallacy: "fallacy", category: "category", source: "source", event: "event" } as const;

export const NodeInputSchema = v.object({
  id: IdSchema,
  scope: ScopeSchema,
  name: RequiredTextSchema,
  type: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(100)), "entity"),
  aliases: v.optional(v.array(v.pipe(v.string(), v.trim(), v.nonEmpty())), []),
  contextPrompt: v.optional(TextSchema, ""),
  taxonomyPath: v.optional(TaxonomyPathSchema, "/"),
  isCategory: v.optional(v.boolean(), false),
  caveatSummary: v.optional(TextSchema, ""),
  validFrom: v.optional(TimestampSchema),
  validUntil: v.optional(TimestampSchema),
  metadata: v.optional(JsonObjectSchema, {}),
});
export type NodeInput = v.InferInput<typeof NodeInputSchema>;
export type NodeInputParsed = v.InferOutput<typeof NodeInputSchema>;

export const SemanticNodeSchema = v.object({
  id: v.string(),
  scope: v.string(),
  name: v.string(),
  type: v.string(),
  aliases: v.array(v.string()),
  contextPrompt: v.string(),
  taxonomyPath: v.string(),
  isCategory: v.boolean(),
  caveatSummary: v.string(),
  validFrom: v.nullable(v.number()),
  validUntil: v.nullable(v.number()),
  metadata: JsonObjectSchema,
  createdAt: v.number(),
  updatedAt: v.number(),
});
export type SemanticNode = v.InferOutput<typeof SemanticNodeSchema>;

export const LinkInputSchema = v.pipe(
  v.object({
    scope: ScopeSchema,
    sourceId: IdSchema,
    targetId: IdSchema,
    relationship: RelationshipSchema,
    caveats: v.optional(TextSchema, ""),
    conditions: v.optional(TextSchema, ""),
    /** World time the fact starts to hold; defaults to now. */
    validFrom: v.optional(TimestampSchema),
    validUntil: v.optional(TimestampSchema),
    originSourceId: v.optional(IdSchema),
    trustWeight: v.optional(TrustWeightSchema, 500),
    episodeId: v.optional(v.pipe(v.number(), v.integer())),
    metadata: v.optional(JsonObjectSchema, {}),
    /** The statement the link was read from: fallacy cues are looked for in it. */
    claim: v.optional(TextSchema, ""),
    /** Why this claim should override an established one (a straw man needs a matching one). */
    rationale: v.optional(TextSchema, ""),
    /** Explicit proof of a dependency (a correlation-only depends_on needs one). */
    proof: v.optional(TextSchema, ""),
  }),
  v.check(
    (link) => link.validUntil === undefined || link.validFrom === undefined || link.validUntil >= link.validFrom,
    "validUntil must not be before validFrom",
  ),
);
export type LinkInput = v.InferInput<typeof LinkInputSchema>;
export type LinkInputParsed = v.InferOutput<typeof LinkInputSchema>;

export const LinkEndReasonSchema = v.picklist(["superseded", "succeeded", "contradicted", "rejected", "invalidated", "history"]);

export const SemanticLinkSchema = v.object({
  id: v.number(),
  scope: v.string(),
  sourceId: v.string(),
  targetId: v.string(),
  relationship: v.string(),
  caveats: v.string(),
  conditions: v.string(),
  validFrom: v.number(),
  validUntil: v.nullable(v.number()),
  recordedAt: v.number(),
  expiredAt: v.nullable(v.number()),
  originSourceId: v.nullable(v.string()),
  trustWeight: v.number(),
  episodeId: v.nullable(v.number()),
  supersededBy: v.nullable(v.number()),
  endReason: v.nullable(LinkEndReasonSchema),
  evidenceCount: v.number(),
  metadata: JsonObjectSchema,
});
export type SemanticLink = v.InferOutput<typeof SemanticLinkSchema>;

export const SimilarNodeSchema = v.object({ nodeId: v.string(), name: v.string(), type: v.string(), distance: v.number() });
export type SimilarNode = v.InferOutput<typeof SimilarNodeSchema>;

// ------------------------------------------------------------------ episodic

export const SessionInputSchema = v.object({
  scope: ScopeSchema,
  id: IdSchema,
  title: v.optional(v.string(), ""),
  startedAt: v.optional(TimestampSchema),
  endedAt: v.optional(TimestampSchema),
  sourceId: v.optional(IdSchema),
  metadata: v.optional(JsonObjectSchema, {}),
});
export type SessionInput = v.InferInput<typeof SessionInputSchema>;

export const SessionRowSchema = v.object({
  scope: v.string(),
  id: v.string(),
  title: v.string(),
  startedAt: v.nullable(v.number()),
  endedAt: v.nullable(v.number()),
  sourceId: v.nullable(v.string()),
  metadata: JsonObjectSchema,
  createdAt: v.number(),
});
export type SessionRow = v.InferOutput<typeof SessionRowSchema>;

/** Control characters other than tab and line breaks carry nothing a reader or a search can use. */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * One turn or chunk. Every limit the episodes table enforces is checked here (so a file's bad
 * record is found before anything is written, and addEpisodes refuses what ingest refuses): whole
 * ms times in a Date's range, seq a safe integer, content cleaned of control characters, then
 * non-empty and at most MAX_TEXT characters, metadata at most MAX_JSON_DEPTH deep.
 */
export const EpisodeInputSchema = v.object({
  scope: ScopeSchema,
  kind: v.optional(v.picklist(["turn", "chunk"]), "turn"),
  sessionId: IdSchema,
  seq: v.pipe(v.number(), v.safeInteger("must be a whole number below 2^53"), v.minValue(0)),
  role: v.optional(v.pipe(v.string(), v.maxLength(200)), ""),
  speaker: v.optional(v.pipe(v.string(), v.maxLength(500)), ""),
  content: v.pipe(
    v.string(),
    v.maxLength(MAX_TEXT, `must be at most ${MAX_TEXT.toLocaleString("en")} characters`),
    v.transform((text) => text.replace(CONTROL_CHARACTERS, "").trim()),
    v.nonEmpty("must not be empty (after removing control characters and outer spaces)"),
  ),
  occurredAt: v.optional(TimestampSchema),
  sourceId: v.optional(IdSchema),
  metadata: v.optional(JsonObjectSchema, {}),
});
export type EpisodeInput = v.InferInput<typeof EpisodeInputSchema>;

export const EpisodeRowSchema = v.object({
  id: v.number(),
  scope: v.string(),
  kind: v.picklist(["turn", "chunk"]),
  sessionId: v.string(),
  seq: v.number(),
  role: v.string(),
  speaker: v.string(),
  content: v.string(),
  occurredAt: v.nullable(v.number()),
  sourceId: v.nullable(v.string()),
  metadata: JsonObjectSchema,
  contentHash: v.string(),
  createdAt: v.number(),
});
export type EpisodeRow = v.InferOutput<typeof EpisodeRowSchema>;

export const EpisodeMentionRowSchema = v.object({ episodeId: v.number(), nodeId: v.string() });
export type EpisodeMentionRow = v.InferOutput<typeof EpisodeMentionRowSchema>;

export const EpisodicSummaryInputSchema = v.object({
  scope: ScopeSchema,
  sessionId: IdSchema,
  summary: RequiredTextSchema,
  startTime: v.optional(TimestampSchema),
  endTime: v.optional(TimestampSchema),
  metadata: v.optional(JsonObjectSchema, {}),
});
export type EpisodicSummaryInput = v.InferInput<typeof EpisodicSummaryInputSchema>;

export const EpisodicSummaryRowSchema = v.object({
  id: v.number(),
  scope: v.string(),
  sessionId: v.string(),
  summary: v.string(),
  startTime: v.nullable(v.number()),
  endTime: v.nullable(v.number()),
  metadata: JsonObjectSchema,
  createdAt: v.number(),
});
export type EpisodicSummaryRow = v.InferOutput<typeof EpisodicSummaryRowSchema>;

export const ExtractedSessionRowSchema = v.object({
  scope: v.string(),
  sessionId: v.string(),
  extractor: v.string(),
  nodeCount: CountSchema,
  linkCount: CountSchema,
  extractedAt: v.number(),
});
export type ExtractedSessionRow = v.InferOutput<typeof ExtractedSessionRowSchema>;

// ------------------------------------------------------------------ procedural

/** A STRIPS action a recipe may declare so recipes can be chained by the planner. */
export const PddlActionSchema = v.object({
  name: v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9_-]*$/, "must be a PDDL name")),
  parameters: v.optional(v.array(v.object({ name: v.string(), type: v.optional(v.string(), "object") })), []),
  preconditions: v.optional(v.array(v.string()), []),
  effects: v.optional(v.array(v.string()), []),
});
export type PddlAction = v.InferOutput<typeof PddlActionSchema>;

export const ProcedureInputSchema = v.object({
  scope: ScopeSchema,
  taskType: IdSchema,
  recipe: RequiredTextSchema,
  taxonomyPath: v.optional(TaxonomyPathSchema, "/"),
  pddlAction: v.optional(PddlActionSchema),
});
export type ProcedureInput = v.InferInput<typeof ProcedureInputSchema>;

export const ProceduralKnowledgeSchema = v.object({
  id: v.number(),
  scope: v.string(),
  taskType: v.string(),
  recipe: v.string(),
  version: v.number(),
  isGolden: v.boolean(),
  helpfulCount: CountSchema,
  unhelpfulCount: CountSchema,
  timesApplied: CountSchema,
  taxonomyPath: v.string(),
  pddlAction: v.nullable(PddlActionSchema),
  createdAt: v.number(),
  updatedAt: v.number(),
});
export type ProceduralKnowledge = v.InferOutput<typeof ProceduralKnowledgeSchema>;

export const ProceduralVersionRowSchema = v.object({
  procedureId: v.number(),
  version: v.number(),
  recipe: v.string(),
  pddlAction: v.nullable(PddlActionSchema),
  recordedAt: v.number(),
});
export type ProceduralVersionRow = v.InferOutput<typeof ProceduralVersionRowSchema>;

// ------------------------------------------------------------------ forget

const RowIdSchema = v.pipe(v.number(), v.integer(), v.minValue(1));

/** What `forget` removes: a node, a link, a source (by id, or by its handle in the scope), an episode, or a session of a scope. */
export const ForgetTargetSchema = v.union([
  v.strictObject({ node: IdSchema, scope: ScopeSchema }),
  v.strictObject({ link: RowIdSchema, scope: ScopeSchema }),
  v.strictObject({ source: IdSchema, scope: ScopeSchema }),
  v.strictObject({ episode: RowIdSchema, scope: ScopeSchema }),
  v.strictObject({ session: IdSchema, scope: ScopeSchema }),
]);
export type ForgetTarget = v.InferInput<typeof ForgetTargetSchema>;

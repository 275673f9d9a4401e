/** Operations on episodic memory: remember turns, recall what memory holds about a query. */
import * as v from "valibot";
import { ScopeSchema } from "../../memory/types.ts";
import { formatRecallMarkdown } from "../../retrieval/format.ts";
import { defineOperation, IntegerSchema, NameSchema, TextSchema, WireTimeSchema } from "../operation.ts";

const TurnSchema = v.object({
  session_id: NameSchema,
  speaker: v.optional(v.string(), ""),
  role: v.optional(v.string(), ""),
  content: v.pipe(TextSchema, v.trim(), v.nonEmpty("must not be empty")),
  timestamp: v.optional(WireTimeSchema),
  /** The turn's position in its session; without one it goes to the end. */
  seq: v.optional(IntegerSchema(0, Number.MAX_SAFE_INTEGER)),
  metadata: v.optional(v.record(v.string(), v.unknown())),
});

export const remember = defineOperation({
  name: "remember",
  summary: "Store conversation turns (or notes) as episodes: each goes to the end of its session unless a seq is given; the same turn sent twice is stored once",
  input: v.object({ turns: v.pipe(v.array(TurnSchema), v.minLength(1, "must hold at least one turn"), v.maxLength(10_000)), scope: ScopeSchema }),
  readOnly: false,
  // The first turns create the memory, with their static vectors (as `gllam ingest` does).
  opens: { create: true, staticTable: true },
  run: (gllam, input) =>
    gllam.remember(
      input.turns.map((turn) => ({
        scope: input.scope,
        sessionId: turn.session_id,
        speaker: turn.speaker,
        role: turn.role,
        content: turn.content,
        occurredAt: turn.timestamp,
        seq: turn.seq,
        metadata: turn.metadata,
      })),
    ),
  toText: (result) => `stored ${result.inserted} new turn(s), ${result.duplicates} already stored (episode ids ${result.ids.join(", ")})`,
});

const WindowSchema = v.object({ start: v.optional(WireTimeSchema), end: v.optional(WireTimeSchema) });

export const recall = defineOperation({
  name: "recall",
  summary:
    "Recall what memory holds about a query: the focus entities with their active facts (caveats, validity, trust, contradictions), the best matching episodes with dates and speakers, and similar entities, as cited Markdown",
  input: v.object({
    query: v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty"), v.maxLength(10_000)),
    k: v.optional(IntegerSchema(1, 100)),
    episodes: v.optional(IntegerSchema(0, 1000)),
    entities: v.optional(v.array(NameSchema), []),
    window: v.optional(WindowSchema),
    as_of: v.optional(WireTimeSchema),
    scope: ScopeSchema,
  }),
  readOnly: true,
  run: (gllam, input) =>
    gllam.recall(input.query, { k: input.k, episodes: input.episodes, entities: input.entities, window: input.window, asOf: input.as_of, scope: input.scope }),
  toText: formatRecallMarkdown,
});

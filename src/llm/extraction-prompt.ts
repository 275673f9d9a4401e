/**
 * What extraction asks the STRONG model, and the shape its answer must have (validated with
 * valibot, sent as JSON Schema): entities with types, aliases and context, and relationships with
 * caveats, conditions, validity resolved against the session's date, the quoted claim, and the
 * numbers of the turns it came from. Pure.
 */
import * as v from "valibot";

const Text = (max: number) => v.pipe(v.string(), v.trim(), v.maxLength(max));
const Name = v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(200));
/** A date as the model gives it: ISO (YYYY-MM-DD), or words the extractor resolves against the session date. */
const DateText = v.nullish(v.pipe(v.string(), v.trim(), v.maxLength(100)));

export const ExtractedEntitySchema = v.object({
  name: Name,
  type: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(60)), "entity"),
  aliases: v.optional(v.array(Name), []),
  context: v.optional(Text(1000), ""),
});

export const ExtractedFactSchema = v.object({
  subject: Name,
  relationship: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(80)),
  object: Name,
  caveats: v.optional(Text(2000), ""),
  conditions: v.optional(Text(2000), ""),
  valid_from: DateText,
  valid_until: DateText,
  /** The claim's words as said (fallacy cues are looked for in them). */
  quote: v.optional(Text(2000), ""),
  /** Numbers of the turns the fact comes from, as the prompt numbers them. */
  turns: v.optional(v.array(v.pipe(v.number(), v.integer())), []),
});

export const ExtractionSchema = v.object({
  entities: v.optional(v.array(ExtractedEntitySchema), []),
  facts: v.optional(v.array(ExtractedFactSchema), []),
});
export type Extraction = v.InferOutput<typeof ExtractionSchema>;
export type ExtractedFact = v.InferOutput<typeof ExtractedFactSchema>;
export type ExtractedEntity = v.InferOutput<typeof ExtractedEntitySchema>;

export type PromptTurn = { number: number; speaker: string; content: string };

export type ExtractionPromptInput = {
  steeringPrompt: string;
  contentType: string;
  sessionTitle: string;
  /** YYYY-MM-DD and weekday, or undefined when the session has no date. */
  sessionDate: string | undefined;
  part: { index: number; of: number };
  turns: PromptTurn[];
};

const RULES = [
  "Use snake_case relationship names (lives_in, works_at, has_state, located_in, likes, owns, ...).",
  "Name each entity the same way every time; put other names it goes by in aliases.",
  "valid_from / valid_until: YYYY-MM-DD; resolve relative dates (yesterday, last week, in May) against the session date; null when unknown.",
  "quote: the exact words of the turn the fact comes from; turns: the numbers of those turns.",
  "Keep hedges, exceptions and conditions in caveats / conditions; do not invent facts nobody stated.",
].join("\n- ");

/** The system and user messages for one chunk of a session. */
export function buildExtractionMessages(input: ExtractionPromptInput): { role: "system" | "user"; content: string }[] {
  const system = `You turn ${input.contentType} content into a knowledge graph.\n${input.steeringPrompt}\n- ${RULES}`;
  const header = [
    `Session: ${input.sessionTitle}`,
    input.sessionDate ? `Session date: ${input.sessionDate}` : "Session date: unknown",
    input.part.of > 1 ? `Part ${input.part.index + 1} of ${input.part.of}` : "",
  ].filter(Boolean);
  const body = input.turns.map((turn) => `[${turn.number}] ${turn.speaker || "unknown"}: ${turn.content}`).join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: `${header.join("\n")}\n\n${body}` },
  ];
}

/** Rough token count (about 4 characters a token): enough to chunk to a context window. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

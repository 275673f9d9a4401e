/**
 * The lines of an assembled context, pure: each carries its citation (episode id, with the session
 * and day in its group heading; link ids; procedure versions).
 */
import { formatDay, formatLink } from "../retrieval/format.ts";
import type { ProceduralKnowledge } from "../memory/types.ts";
import type { MultiHopPath } from "../semantic/paths.ts";
import type { QueryIntent } from "./intent.ts";
import type { DateWindow } from "./dates.ts";

export type EpisodeLine = { episodeId: number; sessionId: string; seq: number; speaker: string; role: string; content: string; occurredAt: number | null };

/** Cuts long text at a word boundary near `max` characters (an ellipsis says it was cut). */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${space > max * 0.7 ? cut.slice(0, space) : cut}…`;
}

/**
 * The group heading an episode sits under: its day (its session when it has none). The session's
 * id is not printed: the episode id cites the turn, and an id such as "conv-26/session_3" costs
 * tokens and reads as content ("3"). Sessions stay apart by `episodeGroupId`.
 */
export const episodeGroup = (e: EpisodeLine): string => (e.occurredAt === null ? `session ${e.sessionId}` : formatDay(e.occurredAt));
export const episodeGroupId = (e: EpisodeLine): string => `session ${e.sessionId}`;

/**
 * An episode's line: its citation, speaker and text ("…" where a compacted turn was cut). The day
 * is in the group heading above it, and the turns of a session are listed in their order, so the
 * line carries only the episode id: a token saved per line is room for more turns (the turn's
 * position, "#3", was dropped for that; it also read as an answer to "how many" questions; the
 * list bullet and the word "excerpt" went for the same room).
 */
export function formatEpisodeLine(e: EpisodeLine, text: string): string {
  const who = e.speaker || e.role;
  return `[e${e.episodeId}] ${who ? `${who}: ` : ""}${text}`;
}

export function formatSummaryLine(summary: { id: number; sessionId: string; summary: string; createdAt: number }, maxChars: number): string {
  return `- session ${summary.sessionId}: ${clip(summary.summary, maxChars)} [summary ${summary.id}]`;
}

export { formatLink as formatFactLine };

export function formatContradictionLine(c: { id: string; name: string; linkIds: number[] }): string {
  return `- ⚠ ${c.name} [contradiction ${c.id}; links ${c.linkIds.join(", ")}]`;
}

export function formatPathLine(path: MultiHopPath): string {
  const steps = path.links.map((link, i) => {
    const arrow = link.direction === "out" ? `-${link.relationship}->` : `<-${link.relationship}-`;
    return `${arrow} ${path.nodes[i + 1]!.name}`;
  });
  return `- ${path.nodes[0]!.name} ${steps.join(" ")} [links ${path.links.map((l) => l.id).join(", ")}]`;
}

export function formatProcedureLine(p: ProceduralKnowledge, maxChars: number): string {
  const marks = [p.isGolden ? "golden" : undefined, `helpful ${p.helpfulCount}/${p.helpfulCount + p.unhelpfulCount}`].filter(Boolean).join(", ");
  return `- **${p.taskType}** (${marks}): ${clip(p.recipe, maxChars)} [procedure ${p.taskType} v${p.version}]`;
}

export function formatChainStepLine(step: { step: string; taskType: string; recipe: string }, index: number, version: number | undefined, maxChars: number): string {
  return `${index + 1}. ${step.step}: ${clip(step.recipe, maxChars)} [procedure ${step.taskType}${version === undefined ? "" : ` v${version}`}]`;
}

/** The title and intent line, charged before anything else. */
export function formatContextHeader(query: string, intent: QueryIntent, windows: DateWindow[], budget: number, classifiedBy?: string): string {
  // Who classified is said only when a model could have: the rules are the default.
  const notes = [`intent${classifiedBy === undefined ? "" : ` (${classifiedBy})`}: ${intent.intents.join(", ")}`];
  if (intent.entities.length > 0) notes.push(`entities: ${intent.entities.join(", ")}`);
  for (const w of windows) notes.push(`"${w.expression}" = ${formatDay(w.start)}..${formatDay(w.end - 1)}`);
  notes.push(`budget ${budget} tokens (≈ characters / 4)`);
  return `# Context for "${clip(query, 200)}"\n_${notes.join(" · ")}_\n`;
}

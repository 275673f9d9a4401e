/**
 * BEAM chat.json: a list of batches {batch_number, time_anchor, turns: [[{role, id, content,
 * time_anchor?, index}]]}; each inner list is a session. A turn without a time anchor happened at the
 * last anchor seen. BEAM marks user turns with a trailing "->-> i,j" index, which is not speech.
 */
import { parseSourceDate } from "./dates.ts";
import { isRecord, textField, type ParseOptions, type SourceRecord } from "./source.ts";

export const looksLikeBeam = (data: unknown) => Array.isArray(data) && isRecord(data[0]) && Array.isArray(data[0].turns) && "batch_number" in data[0];

/** Drops a trailing "->-> i,j" (found by position: a regex scanning for it is quadratic on long runs of spaces). */
function stripIndexMark(text: string): string {
  const at = text.lastIndexOf("->->");
  return at >= 0 && /^\s*\d+\s*,\s*\d+\s*$/.test(text.slice(at + 4)) ? text.slice(0, at) : text;
}

/** A turn id or index worth keeping: a short scalar (the file may hold anything there). */
const scalarId = (value: unknown) => (typeof value === "number" || (typeof value === "string" && value.length <= 200) ? value : undefined);

/** `options.session` names the chat: session ids are `<session>/batch-<n>/<i>`. */
export function* parseBeam(data: unknown, options: ParseOptions & { session: string }): Generator<SourceRecord> {
  if (!Array.isArray(data)) {
    yield { where: options.file, problem: "expected a list of BEAM batches" };
    return;
  }
  let anchor: number | undefined;
  for (const [b, batch] of data.entries()) {
    const where = `${options.file}: [${b}]`;
    if (!isRecord(batch) || !Array.isArray(batch.turns)) {
      yield { where, problem: "expected {batch_number, turns: [[...]]}" };
      continue;
    }
    anchor = parseSourceDate(batch.time_anchor) ?? anchor;
    const batchNumber = scalarId(batch.batch_number) ?? b + 1;
    for (const [s, session] of (batch.turns as unknown[]).entries()) {
      const sessionWhere = `${where}.turns[${s}]`;
      if (!Array.isArray(session)) {
        yield { where: sessionWhere, problem: "expected a list of turns" };
        continue;
      }
      const sessionId = `${options.session}/batch-${batchNumber}/${s + 1}`;
      yield { where: sessionWhere, session: { scope: options.scope, id: sessionId, startedAt: anchor } };
      for (const [t, turn] of session.entries()) {
        if (!isRecord(turn) || typeof turn.content !== "string") {
          yield { where: `${sessionWhere}[${t}]`, problem: "expected a turn {role, content}" };
          continue;
        }
        const content = stripIndexMark(turn.content).trim();
        if (!content) continue; // an empty turn says nothing to remember
        anchor = parseSourceDate(turn.time_anchor) ?? anchor;
        const id = scalarId(turn.id);
        yield {
          where: `${sessionWhere}[${t}]`,
          episode: {
            scope: options.scope,
            sessionId,
            seq: t,
            role: textField(turn, "role") ?? "",
            content,
            occurredAt: anchor,
            metadata: { ...(id !== undefined ? { id } : {}), ...(typeof turn.index === "string" ? { index: turn.index } : {}) },
          },
        };
      }
    }
  }
}

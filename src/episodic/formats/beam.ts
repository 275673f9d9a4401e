/**
 * BEAM chat.json: a list of batches {batch_number, time_anchor, turns: [[{role, id, content,
 * time_anchor?, index}]]}; each inner list is a session. A turn without a time anchor happened at the
 * last anchor seen. BEAM marks user turns with a trailing "->-> i,j" index, which is not speech.
 */
import { parseSourceDate } from "./dates.ts";
import { createBadRecordSink, isRecord, textField, type IngestUnit, type ParseOptions, type ParsedSource } from "./source.ts";

export const looksLikeBeam = (data: unknown) => Array.isArray(data) && isRecord(data[0]) && Array.isArray(data[0].turns) && "batch_number" in data[0];

const INDEX_MARK = /\s*->->\s*\d+\s*,\s*\d+\s*$/;

export function parseBeam(data: unknown, options: ParseOptions): ParsedSource {
  const sink = createBadRecordSink(options);
  const unit: IngestUnit = { key: options.session ?? options.file, sessions: [], episodes: [] };
  if (!Array.isArray(data)) {
    sink.report(options.file, "expected a list of BEAM batches");
    return { format: "beam", units: [], bad: sink.bad };
  }
  let anchor: number | undefined;
  data.forEach((batch, b) => {
    const where = `${options.file}: [${b}]`;
    if (!isRecord(batch) || !Array.isArray(batch.turns)) return sink.report(where, "expected {batch_number, turns: [[...]]}");
    anchor = parseSourceDate(batch.time_anchor) ?? anchor;
    batch.turns.forEach((session: unknown, s: number) => {
      if (!Array.isArray(session)) return sink.report(`${where}.turns[${s}]`, "expected a list of turns");
      const sessionId = `${unit.key}/batch-${batch.batch_number ?? b + 1}/${s + 1}`;
      const startedAt = anchor;
      session.forEach((turn: unknown, t: number) => {
        if (!isRecord(turn) || typeof turn.content !== "string") return sink.report(`${where}.turns[${s}][${t}]`, "expected a turn {role, content}");
        const content = turn.content.replace(INDEX_MARK, "").trim();
        if (!content) return; // an empty turn says nothing to remember
        anchor = parseSourceDate(turn.time_anchor) ?? anchor;
        unit.episodes.push({
          scope: options.scope,
          sessionId,
          seq: t,
          role: textField(turn, "role") ?? "",
          content,
          occurredAt: anchor,
          metadata: { ...(turn.id !== undefined ? { id: turn.id } : {}), ...(typeof turn.index === "string" ? { index: turn.index } : {}) },
        });
      });
      unit.sessions.push({ scope: options.scope, id: sessionId, startedAt });
    });
  });
  return { format: "beam", units: unit.episodes.length > 0 ? [unit] : [], bad: sink.bad };
}

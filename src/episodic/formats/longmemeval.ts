/**
 * LongMemEval: a list of questions, each with a haystack of chat sessions ({role, content}) and
 * their dates. Each question's haystack is one unit; sessions shared between haystacks are the same
 * session id and content, so ingesting a whole file stores each once.
 */
import type { EpisodeInput } from "../../memory/types.ts";
import { parseSourceDate } from "./dates.ts";
import { createBadRecordSink, isRecord, textField, type IngestUnit, type ParseOptions, type ParsedSource } from "./source.ts";

export const looksLikeLongMemEval = (data: unknown) => Array.isArray(data) && isRecord(data[0]) && Array.isArray(data[0].haystack_sessions);

export function parseLongMemEval(data: unknown, options: ParseOptions): ParsedSource {
  const sink = createBadRecordSink(options);
  const units: IngestUnit[] = [];
  if (!Array.isArray(data)) {
    sink.report(options.file, "expected a list of LongMemEval questions");
    return { format: "longmemeval", units, bad: sink.bad };
  }
  data.forEach((question, q) => {
    const where = `${options.file}: [${q}]`;
    if (!isRecord(question) || !Array.isArray(question.haystack_sessions)) return sink.report(where, "expected {question_id, haystack_sessions: [...]}");
    const ids = Array.isArray(question.haystack_session_ids) ? question.haystack_session_ids : [];
    const dates = Array.isArray(question.haystack_dates) ? question.haystack_dates : [];
    const unit: IngestUnit = { key: textField(question, "question_id") ?? `question-${q}`, sessions: [], episodes: [] };
    question.haystack_sessions.forEach((turns: unknown, s: number) => {
      const sessionWhere = `${where}.haystack_sessions[${s}]`;
      if (!Array.isArray(turns)) return sink.report(sessionWhere, "expected a list of turns");
      const sessionId = typeof ids[s] === "string" ? (ids[s] as string) : `${unit.key}/session-${s}`;
      const occurredAt = parseSourceDate(dates[s]);
      if (dates[s] !== undefined && occurredAt === undefined) sink.report(`${where}.haystack_dates[${s}]`, `unreadable date ${JSON.stringify(dates[s])}`);
      unit.sessions.push({ scope: options.scope, id: sessionId, startedAt: occurredAt, metadata: { date: dates[s] ?? null } });
      turns.forEach((turn: unknown, t: number) => {
        if (!isRecord(turn) || typeof turn.content !== "string") return sink.report(`${sessionWhere}[${t}]`, "expected a turn {role, content}");
        const content = turn.content.trim();
        if (!content) return; // an empty turn says nothing to remember
        const episode: EpisodeInput = { scope: options.scope, sessionId, seq: t, role: textField(turn, "role") ?? "", content, occurredAt };
        unit.episodes.push(episode);
      });
    });
    if (unit.episodes.length > 0) units.push(unit);
  });
  return { format: "longmemeval", units, bad: sink.bad };
}

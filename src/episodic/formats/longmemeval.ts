/**
 * LongMemEval: a list of questions, each with a haystack of chat sessions ({role, content}) and
 * their dates. Each question's haystack is one unit; sessions shared between haystacks are the same
 * session id and content, so ingesting a whole file stores each once.
 */
import { parseSourceDate } from "./dates.ts";
import { describeValue, isRecord, textField, type ParseOptions, type SourceRecord } from "./source.ts";

export const looksLikeLongMemEval = (data: unknown) => Array.isArray(data) && isRecord(data[0]) && Array.isArray(data[0].haystack_sessions);

export function* parseLongMemEval(data: unknown, options: ParseOptions): Generator<SourceRecord> {
  if (!Array.isArray(data)) {
    yield { where: options.file, problem: "expected a list of LongMemEval questions" };
    return;
  }
  for (const [q, question] of data.entries()) {
    const where = `${options.file}: [${q}]`;
    if (!isRecord(question) || !Array.isArray(question.haystack_sessions)) {
      yield { where, problem: "expected {question_id, haystack_sessions: [...]}" };
      continue;
    }
    const ids = Array.isArray(question.haystack_session_ids) ? question.haystack_session_ids : [];
    const dates = Array.isArray(question.haystack_dates) ? question.haystack_dates : [];
    const unit = textField(question, "question_id") ?? `question-${q}`;
    for (const [s, turns] of (question.haystack_sessions as unknown[]).entries()) {
      const sessionWhere = `${where}.haystack_sessions[${s}]`;
      if (!Array.isArray(turns)) {
        yield { where: sessionWhere, problem: "expected a list of turns" };
        continue;
      }
      const sessionId = typeof ids[s] === "string" ? (ids[s] as string) : `${unit}/session-${s}`;
      const occurredAt = parseSourceDate(dates[s]);
      if (dates[s] !== undefined && occurredAt === undefined) yield { where: `${where}.haystack_dates[${s}]`, problem: `unreadable date ${describeValue(dates[s])}` };
      yield { where: sessionWhere, unit, session: { scope: options.scope, id: sessionId, startedAt: occurredAt, metadata: { date: typeof dates[s] === "string" ? dates[s] : null } } };
      for (const [t, turn] of turns.entries()) {
        const turnWhere = `${sessionWhere}[${t}]`;
        if (!isRecord(turn) || typeof turn.content !== "string") {
          yield { where: turnWhere, problem: "expected a turn {role, content}" };
          continue;
        }
        const content = turn.content.trim();
        if (!content) continue; // an empty turn says nothing to remember
        yield { where: turnWhere, unit, episode: { scope: options.scope, sessionId, seq: t, role: textField(turn, "role") ?? "", content, occurredAt } };
      }
    }
  }
}

/**
 * Generic JSONL: one turn a line, {session_id, speaker | role, content | text, timestamp?, seq?,
 * metadata?}. Lines without a session id go to --session (or the file's name); seq defaults to
 * the line's position within its session.
 */
import { parseSourceDate } from "./dates.ts";
import { createBadRecordSink, isRecord, textField, type IngestUnit, type ParseOptions, type ParsedSource } from "./source.ts";

const ROLES = new Set(["user", "assistant", "system", "tool"]);

export function parseJsonl(text: string, options: ParseOptions): ParsedSource {
  const sink = createBadRecordSink(options);
  const unit: IngestUnit = { key: options.file, sessions: [], episodes: [] };
  const nextSeq = new Map<string, number>();
  const lines = text.split("\n");
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (!line) return;
    const where = `${options.file}:${index + 1}`;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      return sink.report(where, `invalid JSON (${(error as Error).message.replace(/^JSON Parse error:\s*/, "")})`);
    }
    if (!isRecord(record)) return sink.report(where, "expected a JSON object");
    const content = textField(record, "content", "text");
    if (!content) return sink.report(where, 'missing "content" (or "text")');
    const sessionId = textField(record, "session_id", "sessionId", "session") ?? options.session ?? options.file;
    const rawRole = textField(record, "role") ?? "";
    const role = rawRole.toLowerCase();
    const speaker = textField(record, "speaker", "name") ?? "";
    const stamp = record.timestamp ?? record.time ?? record.date ?? record.occurred_at;
    const occurredAt = stamp === undefined || stamp === null ? undefined : parseSourceDate(stamp);
    if (stamp !== undefined && stamp !== null && occurredAt === undefined) return sink.report(where, `unreadable timestamp ${JSON.stringify(stamp)}`);
    const seqValue = record.seq;
    if (seqValue !== undefined && !(Number.isInteger(seqValue) && (seqValue as number) >= 0)) return sink.report(where, `"seq" must be a non-negative integer`);
    const seq = (seqValue as number | undefined) ?? nextSeq.get(sessionId) ?? 0;
    nextSeq.set(sessionId, Math.max(seq + 1, nextSeq.get(sessionId) ?? 0));
    const metadata = isRecord(record.metadata) ? record.metadata : {};
    unit.episodes.push({
      scope: options.scope,
      sessionId,
      seq,
      role: ROLES.has(role) ? role : "",
      // A role that is not a chat role ("Bob") names the speaker.
      speaker: speaker || (ROLES.has(role) ? "" : rawRole),
      content,
      occurredAt,
      metadata: { ...metadata, line: index + 1 },
    });
  });
  return { format: "jsonl", units: unit.episodes.length > 0 ? [unit] : [], bad: sink.bad };
}

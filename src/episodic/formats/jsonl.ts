/**
 * Generic JSONL: one turn a line, {session_id, speaker | role, content | text, timestamp?, seq?,
 * metadata?}. Lines without a session id go to --session (or the file's base name); seq defaults to
 * the line's position within its session. Read line by line: memory does not grow with the file.
 */
import { basename } from "node:path";
import { MAX_JSON_DEPTH } from "../../memory/types.ts";
import { parseSourceDate } from "./dates.ts";
import { nestsDeeperThan } from "./json-text.ts";
import { isRecord, textField, type ParseOptions, type SourceRecord } from "./source.ts";
import type { TextLine } from "./text-lines.ts";

const ROLES = new Set(["user", "assistant", "system", "tool"]);
/** A line this long may nest deep enough to take seconds to parse: its depth is checked first. */
const DEPTH_CHECK_CHARS = 64 * 1024;

/** One JSONL line as a JSON object, or what is wrong with it (nested too deep, invalid JSON, not an object). */
export function parseJsonLine(line: string): { record: Record<string, unknown> } | { problem: string } {
  // A record is one level above its metadata.
  if (line.length > DEPTH_CHECK_CHARS && nestsDeeperThan(line, MAX_JSON_DEPTH + 1)) return { problem: `JSON nested deeper than ${MAX_JSON_DEPTH + 1} levels` };
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch (error) {
    return { problem: `invalid JSON (${(error as Error).message.replace(/^JSON Parse error:\s*/, "")})` };
  }
  return isRecord(record) ? { record } : { problem: "expected a JSON object" };
}

export function* parseJsonl(lines: Iterable<TextLine>, options: ParseOptions): Generator<SourceRecord> {
  const nextSeq = new Map<string, number>();
  const defaultSession = options.session ?? basename(options.file);
  for (const item of lines) {
    const where = `${options.file}:${item.line}`;
    if ("problem" in item) {
      yield { where, problem: item.problem };
      continue;
    }
    const line = item.text.trim();
    if (!line) continue;
    const parsed = parseJsonLine(line);
    if ("problem" in parsed) {
      yield { where, problem: parsed.problem };
      continue;
    }
    const record = parsed.record;
    const content = textField(record, "content", "text");
    if (!content) {
      yield { where, problem: 'missing "content" (or "text")' };
      continue;
    }
    const sessionId = textField(record, "session_id", "sessionId", "session") ?? defaultSession;
    const rawRole = textField(record, "role") ?? "";
    const role = rawRole.toLowerCase();
    const speaker = textField(record, "speaker", "name") ?? "";
    const stamp = record.timestamp ?? record.time ?? record.date ?? record.occurred_at;
    const occurredAt = stamp === undefined || stamp === null ? undefined : parseSourceDate(stamp);
    if (stamp !== undefined && stamp !== null && occurredAt === undefined) {
      yield { where, problem: `unreadable timestamp ${JSON.stringify(stamp).slice(0, 100)}` };
      continue;
    }
    // A seq that is not a whole number is left to the episode schema to refuse.
    const seq = record.seq ?? nextSeq.get(sessionId) ?? 0;
    if (Number.isSafeInteger(seq)) nextSeq.set(sessionId, Math.max((seq as number) + 1, nextSeq.get(sessionId) ?? 0));
    const metadata = isRecord(record.metadata) ? record.metadata : {};
    yield {
      where,
      episode: {
        scope: options.scope,
        sessionId,
        seq: seq as number,
        role: ROLES.has(role) ? role : "",
        // A role that is not a chat role ("Bob") names the speaker.
        speaker: speaker || (ROLES.has(role) ? "" : rawRole),
        content,
        occurredAt,
        metadata: { ...metadata, line: item.line },
      },
    };
  }
}

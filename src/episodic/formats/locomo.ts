/**
 * LoCoMo: a list of {sample_id, conversation: {speaker_a, speaker_b, session_N_date_time,
 * session_N: [{speaker, dia_id, text, blip_caption?}]}}. A shared photo becomes part of the turn's
 * text, since speakers answer what it shows.
 */
import type { EpisodeInput } from "../../memory/types.ts";
import { parseSourceDate } from "./dates.ts";
import { describeValue, isRecord, textField, type ParseOptions, type SourceRecord } from "./source.ts";

export const looksLikeLocomo = (data: unknown) => Array.isArray(data) && isRecord(data[0]) && isRecord(data[0].conversation);

export function* parseLocomo(data: unknown, options: ParseOptions): Generator<SourceRecord> {
  if (!Array.isArray(data)) {
    yield { where: options.file, problem: "expected a list of LoCoMo samples" };
    return;
  }
  for (const [s, sample] of data.entries()) {
    const where = `${options.file}: [${s}]`;
    if (!isRecord(sample) || !isRecord(sample.conversation)) {
      yield { where, problem: "expected {sample_id, conversation: {...}}" };
      continue;
    }
    const sampleId = textField(sample, "sample_id") ?? `sample-${s}`;
    const conversation = sample.conversation;
    const sessionKeys = Object.keys(conversation)
      .filter((key) => /^session_\d+$/.test(key))
      .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
    for (const key of sessionKeys) {
      const turns = conversation[key];
      const sessionWhere = `${where}.conversation.${key}`;
      if (!Array.isArray(turns)) {
        yield { where: sessionWhere, problem: "expected a list of turns" };
        continue;
      }
      const dateText = conversation[`${key}_date_time`];
      const occurredAt = parseSourceDate(dateText);
      if (dateText !== undefined && occurredAt === undefined) yield { where: `${sessionWhere}_date_time`, problem: `unreadable date ${describeValue(dateText)}` };
      const sessionId = `${sampleId}/${key}`;
      const date = typeof dateText === "string" ? dateText : null;
      yield { where: sessionWhere, unit: sampleId, session: { scope: options.scope, id: sessionId, title: `${sampleId} ${key.replace("_", " ")}`, startedAt: occurredAt, metadata: { date } } };
      for (const [t, turn] of turns.entries()) {
        const episode = readTurn(turn, t, sessionId, occurredAt, options);
        const turnWhere = `${sessionWhere}[${t}]`;
        yield typeof episode === "string" ? { where: turnWhere, problem: episode } : { where: turnWhere, unit: sampleId, episode };
      }
    }
  }
}

function readTurn(turn: unknown, t: number, sessionId: string, occurredAt: number | undefined, options: ParseOptions): EpisodeInput | string {
  if (!isRecord(turn)) return "expected a turn object";
  const text = textField(turn, "text", "clean_text") ?? "";
  const caption = textField(turn, "blip_caption");
  const content = [text, caption ? `[shares a photo of ${caption}]` : ""].filter(Boolean).join(" ");
  if (!content) return 'turn has no "text"';
  const diaId = textField(turn, "dia_id");
  return {
    scope: options.scope,
    sessionId,
    seq: t,
    speaker: textField(turn, "speaker") ?? "",
    content,
    occurredAt,
    metadata: { ...(diaId ? { dia_id: diaId } : {}), ...(typeof turn.img_url === "string" || Array.isArray(turn.img_url) ? { img_url: turn.img_url } : {}) },
  };
}

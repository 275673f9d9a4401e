/**
 * Canned extraction answers for a dev LoCoMo conversation, built from the file at test time (its
 * speakers, turns and dates are read, never written down here): each session's answer names the
 * session's speakers and one place per session, quoting a real turn of that session.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { devDataPath } from "../fuzz/dev-data.ts";
import type { StubRule } from "../llm/stub-server.ts";

type Turn = { speaker: string; text: string };
export type DevSession = { key: string; title: string; date: string; turns: Turn[] };
export type DevConversation = { sampleId: string; speakers: [string, string]; sessions: DevSession[] };

let generated: string | undefined;

/**
 * The dev LoCoMo file when it is beside the project, else a generated file of the same shape (so
 * the extraction tests also run where the dev data is not, as on CI): two speakers, ten dated
 * sessions of 40 turns, each turn its own sentence.
 */
export function locomoTestFile(): string {
  const dev = devDataPath("locomo", "locomo_dev5.json");
  if (dev) return dev;
  if (generated) return generated;
  const dir = mkdtempSync(join(tmpdir(), "gllam-locomo-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const topics = ["the garden", "a pottery class", "the new job", "a hiking trip", "the book club", "a charity run", "the twins' birthday", "a road trip", "the bakery", "a guitar lesson"];
  const conversation: Record<string, unknown> = { speaker_a: "Marta", speaker_b: "Jonas" };
  topics.forEach((topic, s) => {
    const key = `session_${s + 1}`;
    conversation[`${key}_date_time`] = `${1 + (s % 11)}:${10 + s} pm on ${3 + s} ${["May", "June", "July"][s % 3]}, 2023`;
    conversation[key] = Array.from({ length: 40 }, (_, t) => ({
      speaker: t % 2 ? "Jonas" : "Marta",
      dia_id: `D${s + 1}:${t + 1}`,
      text: `${t % 2 ? "Jonas" : "Marta"} talks about ${topic}, remark ${t + 1} of session ${s + 1}: it went ${["well", "badly", "slowly", "fast"][t % 4]}.`,
    }));
  });
  generated = join(dir, "locomo.json");
  writeFileSync(generated, JSON.stringify([{ sample_id: "generated-1", conversation, qa: [] }]));
  return generated;
}

/** The first conversation of the file with its first `sessions` sessions (each cut to `turns` turns). */
export function readDevConversation(path: string, sessions: number, turns = 8): DevConversation {
  const [sample] = JSON.parse(readFileSync(path, "utf8")) as { sample_id: string; conversation: Record<string, unknown> }[];
  const conversation = sample!.conversation;
  const keys = Object.keys(conversation)
    .filter((k) => /^session_\d+$/.test(k))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
    .slice(0, sessions);
  return {
    sampleId: sample!.sample_id,
    speakers: [conversation.speaker_a as string, conversation.speaker_b as string],
    sessions: keys.map((key) => ({
      key,
      title: `${sample!.sample_id} ${key.replace("_", " ")}`,
      date: conversation[`${key}_date_time`] as string,
      turns: (conversation[key] as Turn[]).slice(0, turns),
    })),
  };
}

/** The conversation as a LoCoMo file holding only those sessions and turns. */
export function locomoFileOf(conversation: DevConversation): string {
  const body: Record<string, unknown> = { speaker_a: conversation.speakers[0], speaker_b: conversation.speakers[1] };
  for (const session of conversation.sessions) {
    body[`${session.key}_date_time`] = session.date;
    body[session.key] = session.turns;
  }
  return JSON.stringify([{ sample_id: conversation.sampleId, conversation: body }]);
}

/** The turn number (1-based, as the prompt numbers turns) of the first turn by `speaker`. */
export const turnBy = (session: DevSession, speaker: string): number => session.turns.findIndex((t) => t.speaker === speaker) + 1;

export type Fact = { subject: string; relationship: string; object: string; valid_from?: string | null; quote?: string; turns?: number[] };

/** A rule answering the session's extraction request (keyed on its title line) with these facts. */
export function answerFor(session: DevSession, facts: Fact[], extra: Partial<StubRule> = {}): StubRule {
  const names = [...new Set(facts.flatMap((f) => [f.subject, f.object]))];
  return { match: `Session: ${session.title}\n`, reply: { json: { entities: names.map((name) => ({ name, type: "entity" })), facts } }, ...extra };
}

/** "<speaker> located_in Place <n>", said in the speaker's first turn of the session. */
export function placeFact(session: DevSession, speaker: string, place: string, validFrom?: string): Fact {
  const turn = turnBy(session, speaker);
  return { subject: speaker, relationship: "located_in", object: place, valid_from: validFrom ?? null, quote: session.turns[turn - 1]!.text.slice(0, 40), turns: [turn] };
}

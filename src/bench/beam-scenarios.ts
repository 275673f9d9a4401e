/**
 * BEAM as a retrieval / context benchmark: each chat (a folder with chat.json and
 * probing_questions/probing_questions.json) is one database; each probing question's
 * `source_chat_ids` (a list, or lists by role such as {first_statement, second_statement}) are the
 * message ids its evidence is in. Abstention questions name no source and are left out, as LoCoMo's
 * adversarial ones are.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { GllamError } from "../engine/errors.ts";
import { parseBeam } from "../episodic/formats/beam.ts";
import { parseJsonText } from "../episodic/formats/json-text.ts";
import { collectUnits } from "../episodic/formats/source.ts";
import type { BenchQuestion, BenchScenario } from "./retrieval.ts";

type ProbingQuestion = { question?: unknown; answer?: unknown; source_chat_ids?: unknown };

/** Every id in a source_chat_ids value, however nested. */
export function sourceIds(value: unknown): string[] {
  if (typeof value === "number" || typeof value === "string") return [String(value)];
  if (Array.isArray(value)) return value.flatMap(sourceIds);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(sourceIds);
  return [];
}

/** The probing questions whose evidence names turns of the chat, grouped by the ability they test. */
export function beamQuestions(probing: unknown, file: string, known: ReadonlySet<string>): BenchQuestion[] {
  if (probing === null || typeof probing !== "object" || Array.isArray(probing)) throw new GllamError("E_BAD_INPUT", `${file}: expected {ability: [questions]}`);
  return Object.entries(probing).flatMap(([ability, questions]) =>
    (Array.isArray(questions) ? (questions as ProbingQuestion[]) : []).flatMap((q) => {
      const relevant = new Set(sourceIds(q.source_chat_ids).filter((id) => known.has(id)));
      if (typeof q.question !== "string" || relevant.size === 0) return [];
      return [{ text: q.question, group: ability, relevant, ...(typeof q.answer === "string" ? { answer: q.answer } : {}) }];
    }),
  );
}

/** The chats under `folder` (its numbered sub-folders, in number order; or the folder itself when it holds chat.json). */
function chatFolders(folder: string): string[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new GllamError("E_NOT_FOUND", `no BEAM folder at ${folder} (expected chats like 100K/1/chat.json)`);
  if (existsSync(join(folder, "chat.json"))) return [folder];
  const chats = readdirSync(folder)
    .filter((name) => existsSync(join(folder, name, "chat.json")))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((name) => join(folder, name));
  if (chats.length === 0) throw new GllamError("E_NOT_FOUND", `no BEAM chats under ${folder} (expected <n>/chat.json with <n>/probing_questions/probing_questions.json)`);
  return chats;
}

async function readJson(path: string): Promise<unknown> {
  const text = await Bun.file(path).text().catch(() => {
    throw new GllamError("E_NOT_FOUND", `cannot read ${path}`);
  });
  return parseJsonText(text, path);
}

export async function beamScenarios(folder: string): Promise<BenchScenario[]> {
  const scenarios: BenchScenario[] = [];
  for (const chat of chatFolders(folder)) {
    const chatFile = join(chat, "chat.json");
    const units = collectUnits(parseBeam(await readJson(chatFile), { file: chatFile, session: `beam-${chat.split("/").at(-1)}` }));
    const questionsFile = join(chat, "probing_questions", "probing_questions.json");
    for (const unit of units) {
      const known = new Set(unit.episodes.map((e) => String(e.metadata?.id)));
      scenarios.push({ unit, questions: beamQuestions(await readJson(questionsFile), questionsFile, known), docOf: (episode) => String(episode.metadata.id) });
    }
  }
  return scenarios;
}

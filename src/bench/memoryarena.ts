/**
 * MemoryArena (He et al. 2026, arXiv 2602.16313; the Hugging Face dataset ZexueHe/memoryarena) for
 * the QA pipeline: JSONL, one agentic task a line, {id, questions: [subtask...], answers: [result...],
 * backgrounds?: str | [str], base_person?, paper_name?, ...}, in five configs (bundled_shopping,
 * progressive_search, group_travel_planner, formal_reasoning_math, formal_reasoning_phys). A task's
 * subtasks are interdependent: later ones need what earlier ones learned.
 *
 * There is no environment here for an agent to act in, so each task becomes the nearest thing a
 * memory engine can be scored on: one scope per task; before subtask i is asked, memory holds the
 * task's background(s) and subtasks 1..i-1 as the agent's experience (the subtask asked, and the
 * result it reached: the gold answer). Memory grows a step at a time: the turns to ingest before
 * subtask i are subtask i-1's session (plus subtask i's own background, in the configs that give
 * one per subtask), so nothing later than subtask i-1 is ever in memory when subtask i is asked.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as v from "valibot";
import { GllamError } from "../engine/errors.ts";
import { chunkContent, chunkDocument } from "../episodic/formats/markdown.ts";
import { MAX_JSONL_LINE_BYTES, statSourceFile } from "../episodic/formats/read-source.ts";
import { parseJsonLine } from "../episodic/formats/jsonl.ts";
import { fileBlocks, readTextLines } from "../episodic/formats/text-lines.ts";
import { checkInput } from "../memory/parse.ts";

/** The configs the dataset ships; a file in a folder of one of these names belongs to it. */
export const MEMORYARENA_CONFIGS = ["bundled_shopping", "progressive_search", "group_travel_planner", "formal_reasoning_math", "formal_reasoning_phys"];

const isTaskId = (value: unknown) => Number.isSafeInteger(value) || (typeof value === "string" && /^[\w.-]{1,60}$/.test(value));
const isBackgrounds = (value: unknown) => typeof value === "string" || (Array.isArray(value) && value.every((item) => item === null || typeof item === "string"));

/** A task line as documented; other fields (category, paper_name, ...) are accepted and ignored. */
const TaskSchema = v.looseObject({
  id: v.custom<number | string>(isTaskId, "must be an integer (or a name of letters, digits, _ . -)"),
  questions: v.pipe(v.array(v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty"))), v.minLength(1, "must list at least one subtask")),
  // Bundled shopping's results are product objects ({target_asin, attributes}), the others' text.
  answers: v.array(v.nonNullable(v.unknown(), "must be a string or a JSON value")),
  backgrounds: v.nullish(v.custom<string | (string | null)[]>(isBackgrounds, "must be a string or a list of strings")),
  base_person: v.nullish(v.record(v.string(), v.unknown())),
});

export type ArenaTask = {
  config: string;
  /** `file:line`, for messages. */
  where: string;
  id: string;
  questions: string[];
  /** The gold result of each subtask, as text (JSON for structured ones). */
  answers: string[];
  /** Backgrounds every subtask shares (in memory before subtask 1). */
  shared: string[];
  /** One background per subtask (formal reasoning), in memory from that subtask on; empty when none. */
  perSubtask: string[];
};

export type ArenaQuestion = { id: string; scope: string; question: string; gold: string; category: string; position: number };

/** One line of the generic JSONL ingest format (`gllam ingest x.jsonl`). */
export type ArenaTurn = { session_id: string; seq: number; role: string; speaker?: string; content: string; timestamp: string; metadata: Record<string, unknown> };

const answerText = (answer: unknown) => (typeof answer === "string" ? answer.trim() : JSON.stringify(answer));

/** A task line, validated, or a GllamError naming `where` (file:line). */
export function parseArenaTask(line: string, where: string, config: string): ArenaTask {
  const parsed = parseJsonLine(line);
  if ("problem" in parsed) throw new GllamError("E_BAD_INPUT", `${where}: ${parsed.problem} (one task a line)`);
  const checked = checkInput(TaskSchema, parsed.record);
  if (!checked.ok) throw new GllamError("E_BAD_INPUT", `${where}: not a MemoryArena task: ${checked.problem}`);
  const task = checked.value;
  if (task.answers.length !== task.questions.length) {
    throw new GllamError("E_BAD_INPUT", `${where}: task ${task.id} has ${task.questions.length} questions but ${task.answers.length} answers (one a subtask)`);
  }
  const backgrounds = typeof task.backgrounds === "string" ? [task.backgrounds] : (task.backgrounds ?? []).map((text) => text ?? "");
  // A list with one entry a subtask is per subtask (formal reasoning); anything else is shared.
  const perSubtask = backgrounds.length > 1 && backgrounds.length === task.questions.length;
  const shared = perSubtask ? [] : backgrounds.filter((text) => text.trim());
  // The group travel planner's base person is the background of all its subtasks: kept when no text says it.
  if (shared.length === 0 && !perSubtask && task.base_person) shared.push(`The base person's travel details:\n${JSON.stringify(task.base_person, null, 2)}`);
  return { config, where, id: String(task.id), questions: task.questions, answers: task.answers.map(answerText), shared, perSubtask: perSubtask ? backgrounds : [] };
}

/** The config of a file: its folder's name when that is a config (the dataset's layout, `bundled_shopping/data.jsonl`), else its own name. */
export function configOf(path: string): string {
  const folder = basename(dirname(path));
  return MEMORYARENA_CONFIGS.includes(folder) ? folder : basename(path).replace(/\.(jsonl|ndjson)$/i, "");
}

const isJsonl = (name: string) => /\.(jsonl|ndjson)$/i.test(name);

/** DATA's files: itself, or the .jsonl files in a folder and its folders one level down, in name order. */
export function memoryArenaFiles(data: string): string[] {
  let folder: boolean;
  try {
    folder = statSync(data).isDirectory();
  } catch {
    throw new GllamError("E_NOT_FOUND", `cannot read ${data}: no such file or folder`);
  }
  if (!folder) return [data];
  const files = readdirSync(data, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && isJsonl(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => path.slice(data.length).split("/").filter(Boolean).length <= 2)
    .sort();
  if (files.length === 0) throw new GllamError("E_BAD_INPUT", `${data}: no .jsonl files in it or in its folders (one folder or file per MemoryArena config)`);
  return files;
}

/** Every task of DATA (a .jsonl file, or a folder of config folders or files), validated line by line. */
export function loadMemoryArena(data: string): ArenaTask[] {
  const tasks: ArenaTask[] = [];
  const seen = new Map<string, string>();
  for (const file of memoryArenaFiles(data)) {
    statSourceFile(file);
    const config = configOf(file);
    for (const item of readTextLines(fileBlocks(file), { file, maxLineBytes: MAX_JSONL_LINE_BYTES, longLines: "bad" })) {
      const where = `${file}:${item.line}`;
      if ("problem" in item) throw new GllamError("E_BAD_INPUT", `${where}: ${item.problem}`);
      if (!item.text.trim()) continue;
      const task = parseArenaTask(item.text, where, config);
      const key = `${config}:${task.id}`;
      const earlier = seen.get(key);
      if (earlier) throw new GllamError("E_BAD_INPUT", `${where}: task ${task.id} of ${config} is also at ${earlier} (ids name the tasks' scopes)`);
      seen.set(key, where);
      tasks.push(task);
    }
  }
  return tasks;
}

export const arenaScope = (task: ArenaTask) => `memoryarena-${task.config}-${task.id}`;

/** The subtasks as the pipeline asks them, in order: subtask i of a task after its subtask i-1. */
export function arenaQuestions(task: ArenaTask): ArenaQuestion[] {
  return task.questions.map((question, i) => ({
    id: `${task.config}:${task.id}:${i + 1}`,
    scope: arenaScope(task),
    question,
    gold: task.answers[i]!,
    category: task.config,
    position: i + 1,
  }));
}

/** Synthetic dates, in order: the shared background on day 0, subtask i's session on day i. */
const dayOf = (day: number) => new Date(Date.UTC(2025, 0, 1 + day)).toISOString();

/** A background as turns of its own session, in chunks that read on their own (papers are long). */
function backgroundTurns(sessionId: string, text: string, day: number, subtask?: number): ArenaTurn[] {
  return chunkDocument(text, true).map((chunk, seq) => ({
    session_id: sessionId,
    seq,
    role: "user",
    speaker: "background",
    content: chunkContent(chunk),
    timestamp: dayOf(day),
    metadata: { memoryarena: "background", ...(subtask ? { subtask } : {}) },
  }));
}

/**
 * The turns to ingest before each subtask is asked (index i-1 for subtask i): the shared
 * backgrounds before subtask 1; subtask i-1 as asked and its result before subtask i; and subtask
 * i's own background when the config gives one a subtask.
 */
export function arenaSteps(task: ArenaTask): ArenaTurn[][] {
  return task.questions.map((_, i) => {
    const turns: ArenaTurn[] = [];
    if (i === 0) turns.push(...task.shared.flatMap((text, b) => backgroundTurns(`background-${b + 1}`, text, 0)));
    if (i > 0) {
      const session_id = `subtask-${i}`;
      const metadata = { memoryarena: "experience", subtask: i };
      turns.push({ session_id, seq: 0, role: "user", content: task.questions[i - 1]!, timestamp: dayOf(i), metadata });
      // An empty result says nothing to remember (and is no turn to ingest).
      if (task.answers[i - 1]) turns.push({ session_id, seq: 1, role: "assistant", content: task.answers[i - 1]!, timestamp: dayOf(i), metadata });
    }
    const own = task.perSubtask[i]?.trim();
    if (own) turns.push(...backgroundTurns(`subtask-${i + 1}-background`, own, i + 1, i + 1));
    return turns;
  });
}

const jsonLines = (rows: object[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join("");

/**
 * Writes what the shell pipeline reads: OUT/questions.jsonl (every subtask, in order) and
 * OUT/steps/<scope>/<i>.jsonl (the turns to ingest before subtask i; empty when there are none).
 * Rewritten whole on every run, from DATA alone.
 */
export async function writeMemoryArenaPlan(data: string, out: string): Promise<{ tasks: number; questions: number }> {
  const tasks = loadMemoryArena(data);
  rmSync(join(out, "steps"), { recursive: true, force: true });
  const questions = tasks.flatMap(arenaQuestions);
  for (const task of tasks) {
    const folder = join(out, "steps", arenaScope(task));
    mkdirSync(folder, { recursive: true });
    for (const [i, turns] of arenaSteps(task).entries()) await Bun.write(join(folder, `${i + 1}.jsonl`), jsonLines(turns));
  }
  await Bun.write(join(out, "questions.jsonl"), jsonLines(questions));
  return { tasks: tasks.length, questions: questions.length };
}

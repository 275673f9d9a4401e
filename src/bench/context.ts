/**
 * `gllam bench context`: ingests each scenario as `bench retrieval` does, assembles the context of
 * every question at the budget, and scores the share of the question's evidence (LoCoMo: turns;
 * LongMemEval: sessions) that made it into the context: the no-LLM proxy for answer quality.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Gllam } from "../gllam/gllam.ts";
import type { Embedder } from "../embed/embedder.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { writeUnits } from "../episodic/ingest.ts";
import { fillScenario, loadBenchScenarios, type BenchDataset, type BenchScenario } from "./retrieval.ts";
import { percentile, round, summarize } from "./metrics.ts";

export type ContextBenchOptions = {
  dataset: BenchDataset;
  data: string;
  budget: number;
  /** The static tier (written at ingest). */
  staticEmbedder?: StaticEmbedder;
  /** A model tier whose vectors are filled before the questions (none: the static tier alone). */
  embedder?: Embedder;
  limit?: number;
  /** Every scenario in one database (latency at scale: 20 LongMemEval haystacks hold about 10,000 turns); each question then has the others' turns as distractors. */
  oneDatabase?: boolean;
  /**
   * Each database's questions asked this many times over, round after round (default 1), every
   * assembly timed: the p95 of 20 questions is the second-slowest, one busy moment moves it. The
   * contexts are scored once (the same in every round).
   */
  repeat?: number;
  onProgress?: (message: string) => void;
};

export type ContextBenchResult = {
  dataset: string;
  budget: number;
  questions: number;
  turns: number;
  overall: Record<string, number>;
  by_category: Record<string, { questions: number } & Record<string, number>>;
  /** Questions with a short gold answer (at most three words) and the share whose answer the context holds verbatim: evidence in the context is only worth it if the answer survived (a compacted turn may cut it). */
  answer_in_context: { questions: number; share: number };
  context_tokens_p50: number;
  context_tokens_p95: number;
  assembly_p50_ms: number;
  assembly_p95_ms: number;
  /** Assemblies timed (questions x repeat). */
  assemblies: number;
  /** The process's first assembly, which builds the word space of the near-word round (src/router/word-space.ts): counted in the percentiles too. */
  first_assembly_ms: number;
  embedder: string;
  static_embedder: string;
};

const normaliseText = (text: string) => ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `;

/** A line's citation ("[e12 excerpt]", "[links 1, 2]"): ids, not content, so no answer is found in one ("3" in "[links 3, 4]"). */
const CITATION = /\[(?:e\d+|links?|summary|procedure|node|contradiction)\b[^\]]*\]/g;

/** The context's title and notes line (the query echoed: its words are not an answer) and a session heading's id ("3" in "### session conv-26/session_3"). */
const NOT_CONTENT = [/^# .*\n(?:_.*_\n)?/, /^(### session) \S+/gm] as const;

/** Whether the context holds a short gold answer verbatim (case and punctuation aside; citations, session ids and the echoed query left out); undefined for a long or missing answer. */
export function answerInContext(markdown: string, answer: string | undefined): boolean | undefined {
  const wanted = answer === undefined ? "" : normaliseText(answer).trim();
  if (wanted === "" || wanted.split(" ").length > 3) return undefined;
  const content = markdown.replace(CITATION, " ").replace(NOT_CONTENT[0], "").replace(NOT_CONTENT[1], "$1");
  return normaliseText(content).includes(` ${wanted} `);
}

/** Share of the relevant documents that some episode of the context belongs to. */
export function evidenceRecall(contextDocs: ReadonlySet<string>, relevant: ReadonlySet<string>): number {
  if (relevant.size === 0) return 0;
  let found = 0;
  for (const doc of relevant) if (contextDocs.has(doc)) found++;
  return found / relevant.size;
}

export async function runContextBench(options: ContextBenchOptions): Promise<ContextBenchResult> {
  const scenarios = await loadBenchScenarios(options);
  const dir = mkdtempSync(join(tmpdir(), "gllam-bench-context-"));
  const rows: { group: string; metrics: Record<string, number> }[] = [];
  const tokens: number[] = [];
  const latencies: number[] = [];
  let turns = 0;
  const answers = { questions: 0, found: 0 };
  const repeat = options.repeat ?? 1;
  const assemble = async (gllam: Gllam, question: BenchScenario["questions"][number]) => {
    const started = performance.now();
    const context = await gllam.routeAndAssemble(question.text, { budget: options.budget });
    latencies.push(performance.now() - started);
    return context;
  };
  const ask = async (gllam: Gllam, questions: BenchScenario["questions"], docOf: Map<number, string>) => {
    for (const question of questions) {
      const context = await assemble(gllam, question);
      tokens.push(context.tokens);
      const docs = new Set(context.items.flatMap((item) => (item.episodeId === undefined ? [] : [docOf.get(item.episodeId)!])));
      rows.push({ group: question.group, metrics: { evidence_recall: evidenceRecall(docs, question.relevant) } });
      const found = answerInContext(context.markdown, question.answer);
      if (found !== undefined) {
        answers.questions++;
        if (found) answers.found++;
      }
    }
  };
  // One database per scenario, or all in one: each group is written, then its questions asked.
  const groups = options.oneDatabase ? [scenarios] : scenarios.map((scenario) => [scenario]);
  try {
    for (const [i, group] of groups.entries()) {
      const gllam = await Gllam.open(join(dir, `${i}.db`), { embedder: options.embedder ?? options.staticEmbedder, staticEmbedder: options.staticEmbedder ?? null });
      try {
        writeUnits(gllam.store, group.map((scenario) => scenario.unit), { staticEmbedder: options.staticEmbedder });
        const docOfs = [];
        for (const scenario of group) docOfs.push(await fillScenario(gllam, scenario, options.embedder, 2));
        turns += docOfs[0]?.size ?? 0;
        for (const [j, scenario] of group.entries()) await ask(gllam, scenario.questions, docOfs[j]!);
        for (let round = 1; round < repeat; round++) for (const scenario of group) for (const question of scenario.questions) await assemble(gllam, question);
      } finally {
        gllam.close();
      }
      options.onProgress?.(`${i + 1}/${groups.length} databases, ${rows.length} questions`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { overall, byGroup } = summarize(rows);
  return {
    dataset: options.dataset,
    budget: options.budget,
    questions: rows.length,
    turns,
    overall,
    by_category: byGroup,
    answer_in_context: { questions: answers.questions, share: answers.questions === 0 ? 0 : round(answers.found / answers.questions) },
    context_tokens_p50: percentile(tokens, 50),
    context_tokens_p95: percentile(tokens, 95),
    assembly_p50_ms: round(percentile(latencies, 50), 2),
    assembly_p95_ms: round(percentile(latencies, 95), 2),
    assemblies: latencies.length,
    first_assembly_ms: round(latencies[0] ?? Number.NaN, 2),
    embedder: options.embedder?.modelVersion ?? "none",
    static_embedder: options.staticEmbedder?.modelVersion ?? "none",
  };
}

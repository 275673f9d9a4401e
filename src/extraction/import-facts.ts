/**
 * `gllam fact import FILE` (the seed's skip_extraction): pre-structured facts, one JSON object a
 * line with the fields of `fact add` (add_fact), go straight to addEdge with no LLM. Every line is
 * checked before anything is written; then all are recorded in one transaction, so a fact the
 * graph refuses writes nothing and names its line.
 */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import { describeError, GllamError } from "../engine/errors.ts";
import type { Store } from "../engine/store.ts";
import { recordFact, type FactStatement, type RecordedFact } from "../semantic/record-fact.ts";

export type FactImportReport = { facts: number; created: number; duplicates: number; contradictions: number; results: RecordedFact[] };

/** JSONL text -> one value per non-blank line, numbered as in the file; bad JSON names its line. */
export function parseJsonLines(text: string, where: string): { line: number; value: unknown }[] {
  const rows: { line: number; value: unknown }[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    if (!raw.trim()) continue;
    try {
      rows.push({ line: index + 1, value: JSON.parse(raw) });
    } catch (error) {
      throw new GllamError("E_BAD_INPUT", `${where}:${index + 1}: not valid JSON (${describeError(error)})`);
    }
  }
  return rows;
}

export function importFacts(store: Store, config: AgenticMemoryConfig, statements: { where: string; statement: FactStatement }[]): FactImportReport {
  const report: FactImportReport = { facts: 0, created: 0, duplicates: 0, contradictions: 0, results: [] };
  store.transaction(() => {
    for (const { where, statement } of statements) {
      let result: RecordedFact;
      try {
        result = recordFact(store, config, statement);
      } catch (error) {
        if (error instanceof GllamError) throw new GllamError(error.code, `${where}: ${error.message}`, { cause: error });
        throw error;
      }
      report.facts++;
      report.created += result.created.length;
      if (result.action === "duplicate") report.duplicates++;
      if (result.contradictionId) report.contradictions++;
      report.results.push(result);
    }
  });
  return report;
}

/** A file's text (`-`: stdin); a missing or unreadable file is E_NOT_FOUND naming it. */
export async function readTextFile(path: string): Promise<string> {
  try {
    return path === "-" ? await Bun.stdin.text() : await Bun.file(path).text();
  } catch (error) {
    throw new GllamError("E_NOT_FOUND", `cannot read ${path}: ${describeError(error)}`);
  }
}
